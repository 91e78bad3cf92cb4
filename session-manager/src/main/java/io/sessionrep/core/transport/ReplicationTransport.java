package io.sessionrep.core.transport;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Moves opaque replication messages between cluster members. The core builds and parses the messages;
 * a transport only delivers bytes, knows the membership, and correlates requests with replies.
 *
 * <p>Lifecycle: construct, {@link #start}, use, {@link #close}. Contracts every implementation keeps:
 * <ul>
 *   <li>messages from one member to another are delivered in send order (one-way and requests alike);</li>
 *   <li>{@link #send} and {@link #broadcast} never wait for the receiver to process the message;</li>
 *   <li>{@link #request} never blocks the caller: the future completes with the reply, or exceptionally
 *       when the timeout passes or the target leaves. It may complete on a thread of the transport that
 *       reads further messages after it (the JGroups transport completes a reply on the thread that read
 *       it): actions chained without an executor must be short and must never wait for the network;</li>
 *   <li>this member never receives its own broadcasts.</li>
 * </ul>
 */
public interface ReplicationTransport extends AutoCloseable {

    /** Joins the cluster. Returns once this node is a member (alone, if nobody else is reachable). */
    void start(MessageReceiver receiver) throws TransportException;

    /** This node. */
    Member localMember();

    /** The current view, this node included, in the same order on every member. */
    List<Member> members();

    /**
     * The wire protocols {@code member} reads, as its cluster address states them ({@link
     * io.sessionrep.core.wire.ProtocolRange#UNSTATED} when it states none); the core writes the newest protocol
     * every member reads. By default every member reads what this build reads.
     */
    default io.sessionrep.core.wire.ProtocolRange protocolsOf(Member member) {
        return io.sessionrep.core.wire.ProtocolRange.SUPPORTED;
    }

    /** One-way message to one member. Silently dropped if {@code target} is no longer a member. */
    void send(Member target, byte[] message);

    /** One one-way message for one member, as {@link #sendAll} takes them. */
    record Outbound(Member target, byte[] message) {
    }

    /**
     * One-way messages, each as {@link #send} would send it, in list order per member. A transport with a path
     * of its own to a member may carry that member's messages together, on the calling thread, and wait (a bounded
     * time) until the member has handled them, instead of handing them to other threads: the async sender, a
     * thread of its own, sends its batches here. Request threads use {@link #send}.
     */
    default void sendAll(List<Outbound> messages) {
        for (Outbound m : messages) {
            send(m.target(), m.message());
        }
    }

    /**
     * Request to one member; completes with the bytes its receiver returned, or fails: with a
     * {@link MemberLeftException} when {@code target} is not a member or leaves the view before replying.
     */
    CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout);

    /**
     * A request whose reply the calling thread waits for itself, over a path of the transport's own beside the
     * one {@link #request} takes, when it has one to {@code target} (one write and one read on this thread, no
     * hand-off): sync request ends use it. The target handles it after everything this node sent it before the
     * call (so FIFO holds for this thread's messages), possibly beside messages other threads send meanwhile.
     *
     * @return the reply, or null when there is no such path to {@code target} now: nothing was sent, the caller
     *         uses {@link #request}
     * @throws TransportException the path failed after the request was written: the target may have handled it or
     *                            not (sending it again over {@link #request} must be safe for the caller)
     * @throws java.util.concurrent.TimeoutException no reply within {@code timeout}
     */
    default byte[] requestOnCallerThread(Member target, byte[] message, Duration timeout)
            throws TransportException, java.util.concurrent.TimeoutException {
        return requestOnCallerThread(target, message, timeout, null);
    }

    /**
     * As {@link #requestOnCallerThread(Member, byte[], Duration)}, for a caller that may stop needing the reply
     * before it comes: a sync request end whose other backups were asked too, one of which may store the update
     * first. Implementations override this one.
     *
     * @param noLongerNeeded null, or a stage that completes once the reply is no longer needed: the transport then
     *                       waits a short grace more for a reply already on its way and gives up
     *                       ({@link java.util.concurrent.TimeoutException}), instead of waiting out {@code timeout}
     *                       for a target that hangs (the caller sends the request again over {@link #request},
     *                       as after a time-out)
     */
    default byte[] requestOnCallerThread(Member target, byte[] message, Duration timeout,
                                         java.util.concurrent.CompletionStage<?> noLongerNeeded)
            throws TransportException, java.util.concurrent.TimeoutException {
        return null;
    }

    /**
     * A one-way message that the calling thread sees handled: over the same path as {@link #requestOnCallerThread},
     * when the transport has one to {@code target}, waiting until the target has handled it (after everything this
     * node sent it before the call). Sync-mode invalidations use it, so that they leave nothing behind them in the
     * channel for the next request to wait on.
     *
     * @return true once the target has handled it; false when there is no such path to {@code target} now: nothing
     *         was sent, the caller uses {@link #send}
     * @throws TransportException the path failed after the message was written: the target may have handled it or
     *                            not (sending it again with {@link #send} must be safe for the caller)
     * @throws java.util.concurrent.TimeoutException not handled within {@code timeout} (handled or not)
     */
    default boolean sendOnCallerThread(Member target, byte[] message, Duration timeout)
            throws TransportException, java.util.concurrent.TimeoutException {
        return false;
    }

    /** One-way message to every other member. */
    void broadcast(byte[] message);

    /**
     * What this transport can see of its cluster outside its current view: one sentence per sign that this node is
     * in a partial cluster, in words an operator understands (for example "configured peer 10.0.0.2:7800 is up but
     * not in this node's view"); empty when it sees none, and by default. Part of the node's
     * {@link io.sessionrep.core.Readiness}: a node that sees such a sign is not ready. A peer that cannot be reached
     * at all is no such sign, or only for a bounded time: a node whose peer is down must become ready.
     *
     * <p>Called from request threads (readiness probes) and meter readers: it must answer at once from what the
     * transport already knows (never wait for the network), and it may be called before {@link #start} and after
     * {@link #close}.
     */
    default List<String> partialClusterSigns() {
        return List.of();
    }

    /** The transport's own counts, which the core exports with its meters ({@link TransportCount}); none by default. */
    default List<TransportCount> counts() {
        return List.of();
    }

    /** Leaves the cluster and releases sockets and threads. Idempotent. */
    @Override
    void close();
}
