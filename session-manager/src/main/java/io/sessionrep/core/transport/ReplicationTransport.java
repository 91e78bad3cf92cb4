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
     * One-way messages, each as {@link #send} sends it, in list order per member. The caller is a thread of its own
     * (the async sender) that may wait: the transport may carry the messages on it and return once they are on
     * their way or handled, at most a bounded time later. By default each goes through {@link #send}.
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
     * A request whose reply the calling thread waits for next (a sync request end's update): as {@link #request},
     * except that the transport may carry it on the calling thread, which then returns with the future complete.
     * The target handles it after everything this node sent it before the call. It may handle it more than once (a
     * transport sends it again when a route fails after writing it), so only idempotent messages go this way. By
     * default it is {@link #request}.
     *
     * @param noLongerNeeded null, or a stage that completes once the reply no longer decides anything for the caller
     *                       (another member answered first): a transport that holds the calling thread for the reply
     *                       then waits only a short grace more before it lets the thread go (the future still
     *                       completes later, with the reply or a failure)
     */
    default CompletableFuture<byte[]> requestInline(Member target, byte[] message, Duration timeout,
                                                    java.util.concurrent.CompletionStage<?> noLongerNeeded) {
        return request(target, message, timeout);
    }

    /**
     * A one-way message, delivered as {@link #send} delivers it, that the caller would rather see handled before it
     * goes on (sync-mode invalidations): the transport may hold the calling thread, at most {@code timeout}, until
     * the target has handled it, after everything this node sent it before. The target may handle it more than once,
     * so only idempotent messages go this way. By default it is {@link #send}, which waits for nothing.
     *
     * @throws java.util.concurrent.TimeoutException not seen handled within {@code timeout}; the message is
     *                                               still delivered as {@link #send} delivers it
     */
    default void sendAndAwaitHandled(Member target, byte[] message, Duration timeout)
            throws java.util.concurrent.TimeoutException {
        send(target, message);
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
