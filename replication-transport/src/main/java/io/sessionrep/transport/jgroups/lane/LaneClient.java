package io.sessionrep.transport.jgroups.lane;

import io.sessionrep.core.transport.TransportException;
import io.sessionrep.transport.jgroups.lane.LaneFrames.MalformedLaneFrame;
import io.sessionrep.transport.jgroups.lane.LaneFrames.Reply;
import org.jgroups.Address;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * The primary's end of the data lane: connections to each member's {@link LaneServer}, kept idle between
 * uses, at most {@link #MAX_CONNECTIONS_PER_MEMBER} per member. A sync request end takes one, writes its update
 * and reads the acknowledgement on its own thread ({@link #exchange}); a sync-mode invalidation the same way, reading
 * only that it was handled ({@link #deliver}). The async sender has a connection of its own
 * per backup ({@link #openPipe}), on which it writes its batches without waiting for each answer ({@link OneWayPipe}).
 *
 * <p>Never blocked without bound: a write of at most {@link #room()} bytes goes into a socket send buffer that
 * holds at least that much and is empty (the previous exchange on the connection read its
 * reply, so the server had read the whole request), and the read of the reply waits at most the request's
 * time-out ({@link ReplyDeadlines}: the read itself has no socket time-out); a connection that times out or fails is
 * closed. A member whose lane does not accept a connection
 * (within {@link #CONNECT_TIMEOUT_MILLIS}) is left to the channel for {@link #UNREACHABLE_RETRY_AFTER_MILLIS};
 * one for {@link #RETRY_AFTER_MILLIS} whose lane answered that the channel was behind
 * ({@link LaneFrames#NOT_HANDLED}), since that stays so until the channel catches up, and one where an exchange
 * failed (its update is sent again over the channel by the caller), or that kept a sync exchange waiting
 * {@link #NO_LONGER_NEEDED_GRACE_MILLIS} after the caller no longer needed the reply (another backup stored the
 * update; the exchange is given up then); one that did not answer a batch within its time-out for
 * {@link #UNREACHABLE_RETRY_AFTER_MILLIS}.
 */
final class LaneClient implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(LaneClient.class.getName());

    static final int MAX_CONNECTIONS_PER_MEMBER = 16;
    static final long RETRY_AFTER_MILLIS = 5_000;
    /** A member whose lane port does not accept a connection is left to the channel this long. */
    static final long UNREACHABLE_RETRY_AFTER_MILLIS = 30_000;
    /**
     * How long a backup may wait for this node's earlier channel messages before it handles a one-way batch; past
     * it the batch takes the channel (behind them) and the lane rests {@link #RETRY_AFTER_MILLIS}.
     */
    static final int ONE_WAYS_CHANNEL_WAIT_MILLIS = 100;
    /** At most this, and at most half the request's time-out (the rest is for the channel if it fails). */
    static final int CONNECT_TIMEOUT_MILLIS = 200;
    /**
     * How long a sync exchange still waits for its reply once the caller no longer needs it (another backup stored
     * the update): long enough for a reply already on its way, short against a backup that has stalled.
     */
    static final long NO_LONGER_NEEDED_GRACE_MILLIS = 50;
    /** Idle connections older than this are closed rather than used (the server closes them after its idle time-out). */
    static final long IDLE_MILLIS = LaneServer.IDLE_TIMEOUT_MILLIS / 2;
    /** What the client asks of each socket's send buffer; the kernel may grant less ({@code net.core.wmem_max}). */
    private static final int SEND_BUFFER = LaneFrames.MAX_PAYLOAD + 1024;
    /** Below this much room the lane is not used at all. */
    private static final int MIN_ROOM = 16 * 1024;

    /** Where a member's lane listens. */
    record Endpoint(Address member, InetSocketAddress socket) {
    }

    private final LaneFrames frames;
    private final DataLane.Counts counters;
    private final Map<Address, Pool> pools = new ConcurrentHashMap<>();
    private final Set<OneWayPipe<?>> pipes = ConcurrentHashMap.newKeySet();
    private final ReplyDeadlines deadlines = new ReplyDeadlines("sessionrep-lane-deadlines");
    private final int room;
    /** The channel's TLS context when the lane is TLS too; null: plain TCP. */
    private final SSLContext tls;
    /** Where connections leave from (the channel's bind address); null: where the system routes them from. */
    private final InetAddress localAddress;
    private volatile boolean closed;

    /**
     * @param tls the channel's TLS context ({@code tls-keystore}): this lane's connections are TLS too; null: plain
     * @param localAddress the address connections leave from, the one members admit them from; null: any
     */
    LaneClient(LaneFrames frames, DataLane.Counts counters, SSLContext tls, InetAddress localAddress) {
        this.frames = frames;
        this.counters = counters;
        this.tls = tls;
        this.localAddress = localAddress;
        this.room = payloadRoom(grantedRoom(), tls != null);
        if (room < MIN_ROOM) {
            LOG.log(System.Logger.Level.WARNING, "the lane is not used: a socket's send buffer holds " + room
                    + " bytes here (net.core.wmem_max), under the " + MIN_ROOM + " it needs");
        }
    }

    /**
     * The largest request payload this client sends: what one write puts into an empty send buffer without waiting,
     * as granted by the kernel (on Linux {@code net.core.wmem_max}, 212,992 bytes by default; Linux reports twice
     * the size asked for, the other half being its bookkeeping), at most {@link LaneFrames#MAX_PAYLOAD}.
     */
    int room() {
        return room >= MIN_ROOM ? room : 0;
    }

    private static int grantedRoom() {
        try (Socket probe = new Socket()) {
            probe.setSendBufferSize(SEND_BUFFER);
            return roomOf(probe);
        } catch (IOException e) {
            return 0;
        }
    }

    private static int roomOf(Socket socket) throws IOException {
        return Math.min(LaneFrames.MAX_PAYLOAD, socket.getSendBufferSize() / 2 - 1024);
    }

    /** What TLS adds to every record of up to 16 KiB (header, tag, padding; 22 bytes with TLS 1.3's AES-GCM), with margin. */
    static final int TLS_RECORD_OVERHEAD = 64;
    private static final int TLS_RECORD = 16 * 1024;

    /** The payload a socket of {@code socketRoom} takes in one write: all of it in plain TCP, less TLS's records' overhead. */
    static int payloadRoom(int socketRoom, boolean tls) {
        return tls ? socketRoom - (socketRoom / TLS_RECORD + 1) * TLS_RECORD_OVERHEAD : socketRoom;
    }

    /**
     * Sends {@code payload} to {@code target} and reads the reply on this thread.
     *
     * @param sentBefore the {@link ChannelPosition} of the channel messages this node handed over for the target before
     * @param noLongerNeeded null, or a stage after whose completion the exchange waits at most
     *                       {@link #NO_LONGER_NEEDED_GRACE_MILLIS} more: then the connection is closed, the exchange
     *                       times out, and this member's lane rests {@link #RETRY_AFTER_MILLIS} (a member that keeps
     *                       a request waiting while another answered it is likely stalled: a long GC pause, a hung
     *                       receiver)
     * @return the reply, or null when nothing was handled there (no lane now, or the channel was behind): the
     *         caller sends it over the channel
     */
    byte[] exchange(Endpoint target, Address self, long sentBefore, byte[] payload, Duration timeout,
                    CompletionStage<?> noLongerNeeded) throws TimeoutException {
        Reply reply = roundTrip(target, self, sentBefore, payload, timeout, noLongerNeeded);
        if (reply != null && reply.status() == LaneFrames.NO_REPLY) {
            throw new TransportException("the receiver at " + target.member() + " returned no reply");
        }
        return reply == null ? null : reply.payload();
    }

    /**
     * Sends the one-way message {@code payload} to {@code target} as {@link #exchange} sends a request, and waits on
     * this thread until the target has handled it (whatever its core answered).
     *
     * @return true once handled there; false when nothing was handled (no lane now, or the channel was behind): the
     *         caller sends it over the channel
     */
    boolean deliver(Endpoint target, Address self, long sentBefore, byte[] payload, Duration timeout)
            throws TimeoutException {
        return roundTrip(target, self, sentBefore, payload, timeout, null) != null;
    }

    /**
     * A pipe for the async sender's one-way frames to {@code target} ({@link OneWayPipe}), on a connection of its own;
     * null when that member's lane is not to be used now (resting, not reachable, no room, this client closed).
     *
     * @param timeout how long a frame may wait for its answer before the pipe fails
     * @param onFailure told when the pipe fails with frames not answered
     */
    <T> OneWayPipe<T> openPipe(Endpoint target, Address self, Duration timeout, Runnable onFailure) {
        if (closed || room() == 0) {
            return null;
        }
        Pool pool = pools.computeIfAbsent(target.member(), a -> new Pool());
        if (pool.paused()) {
            return null;
        }
        Connection c;
        try {
            c = new Connection(target, self, (int) Math.min(CONNECT_TIMEOUT_MILLIS, Math.max(1, timeout.toMillis() / 2)));
        } catch (IOException e) {
            pool.pauseFor(UNREACHABLE_RETRY_AFTER_MILLIS, "cannot connect to " + target.socket() + ": " + e);
            return null;
        }
        OneWayPipe<T> pipe = new OneWayPipe<>(c, frames, counters, room(), timeout.toMillis(), pool::pauseFor, onFailure,
                "sessionrep-lane-answers-" + target.member());
        pipes.removeIf(OneWayPipe::failed); // closed by their owners
        pipes.add(pipe);
        if (closed) {
            pipe.close();
        }
        return pipe;
    }

    /**
     * One exchange on a pooled connection: the reply (status {@link LaneFrames#REPLIED}, or {@link LaneFrames#NO_REPLY}
     * when the core handled it and answered nothing), or null if not handled (nor sent, when this client is closed or
     * the payload is larger than {@link #room()}).
     */
    private Reply roundTrip(Endpoint target, Address self, long sentBefore, byte[] payload, Duration timeout,
                            CompletionStage<?> noLongerNeeded) throws TimeoutException {
        if (closed || payload.length > room()) {
            return null;
        }
        long started = System.nanoTime();
        Pool pool = pools.computeIfAbsent(target.member(), a -> new Pool());
        Connection c = pool.take(target, self, timeout);
        if (c == null) {
            return null;
        }
        long millis = Math.max(1, timeout.toMillis() - (System.nanoTime() - started) / 1_000_000); // after a connect
        boolean replied = false;
        int wait = (int) Math.min(Integer.MAX_VALUE, millis);
        ReplyDeadlines.Deadline deadline = deadlines.start(c.socket, wait); // the read has no socket time-out
        if (noLongerNeeded != null) {
            noLongerNeeded.thenRun(() -> deadlines.cutShort(deadline, NO_LONGER_NEEDED_GRACE_MILLIS));
        }
        try {
            long exchange = c.link.nextExchange();
            frames.writeRequest(c.out, c.link, exchange, sentBefore, wait / 2, payload);
            Reply reply = frames.readReply(c.in, c.link, LaneFrames.MAX_PAYLOAD);
            if (reply.exchange() != exchange) {
                throw new MalformedLaneFrame("a reply to exchange " + reply.exchange() + " where " + exchange + " was asked");
            }
            replied = true;
            return switch (reply.status()) {
                case LaneFrames.REPLIED, LaneFrames.NO_REPLY -> {
                    counters.laneExchanged();
                    yield reply;
                }
                case LaneFrames.NOT_HANDLED -> {
                    pool.pauseFor(RETRY_AFTER_MILLIS, "its lane answered that this node's channel messages were not handled"
                            + " there within half the time the exchange allowed");
                    yield null;
                }
                default -> throw new TransportException("the lane at " + target.member() + " answered status " + reply.status());
            };
        } catch (IOException | MalformedLaneFrame e) {
            if (deadline.cut()) { // closed by the deadline cut short: the reply was no longer needed
                counters.laneExchangeGivenUp();
                pool.pauseFor(RETRY_AFTER_MILLIS, "it did not answer a sync exchange within "
                        + NO_LONGER_NEEDED_GRACE_MILLIS + " ms of another backup storing the update");
                throw new TimeoutException("no reply on the lane from " + target.member() + " within "
                        + NO_LONGER_NEEDED_GRACE_MILLIS + " ms of another member's; given up");
            }
            if (deadline.expired()) { // closed by the deadline, in the read or in the write
                counters.requestTimedOut();
                throw new TimeoutException("no reply on the lane from " + target.member() + " within " + millis + " ms");
            }
            counters.requestFailed();
            if (e instanceof MalformedLaneFrame) {
                counters.countLaneRefused(); // a reply not authentic here, or not to this request: the connection is closed
            }
            // e.g. closed at once by a lane that has as many connections as it takes: do not try again per request
            pool.pauseFor(RETRY_AFTER_MILLIS, "an exchange failed (" + e + ")");
            throw new TransportException("lane to " + target.member() + " failed: " + e, e);
        } finally {
            // not in time: the deadline passed as the reply came, and closed the socket
            if (deadlines.finish(deadline) && replied && !closed) {
                pool.giveBack(c);
            } else {
                pool.discard(c);
            }
        }
    }

    /** Closes the connections to members that left. */
    void retainOnly(Set<Address> members) {
        pools.entrySet().removeIf(e -> {
            if (members.contains(e.getKey())) {
                return false;
            }
            e.getValue().closeAll();
            return true;
        });
    }

    @Override
    public void close() {
        closed = true;
        deadlines.close();
        pipes.forEach(OneWayPipe::close);
        pipes.clear();
        pools.values().forEach(Pool::closeAll);
        pools.clear();
    }

    /** The connections to one member. */
    private final class Pool {
        private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
        private final AtomicInteger count = new AtomicInteger();
        private volatile long pausedUntil;

        boolean paused() {
            return System.currentTimeMillis() < pausedUntil;
        }

        /** An idle connection, a new one, or null (none to spare, or the lane is paused or not reachable). */
        Connection take(Endpoint target, Address self, Duration timeout) {
            long now = System.currentTimeMillis();
            if (now < pausedUntil) {
                return null;
            }
            Connection c;
            while ((c = idle.pollFirst()) != null) {
                if (now - c.idleSince < IDLE_MILLIS) {
                    return c;
                }
                discard(c);
            }
            if (count.incrementAndGet() > MAX_CONNECTIONS_PER_MEMBER) {
                count.decrementAndGet();
                return null; // as many requests to it at once as connections: this one takes the channel
            }
            try {
                return new Connection(target, self, (int) Math.min(CONNECT_TIMEOUT_MILLIS, Math.max(1, timeout.toMillis() / 2)));
            } catch (IOException e) {
                count.decrementAndGet();
                pauseFor(UNREACHABLE_RETRY_AFTER_MILLIS, "cannot connect to " + target.socket() + ": " + e);
                return null;
            }
        }

        void giveBack(Connection c) {
            c.idleSince = System.currentTimeMillis();
            idle.addFirst(c); // the most recently used first: the others age out
        }

        void discard(Connection c) {
            count.decrementAndGet();
            c.close();
        }

        void pauseFor(long millis, String why) {
            boolean wasRunning = System.currentTimeMillis() >= pausedUntil;
            pausedUntil = System.currentTimeMillis() + millis;
            counters.lanePaused();
            if (wasRunning) {
                LOG.log(System.Logger.Level.INFO, "data lane: " + why + "; updates to that member take the channel"
                        + " for " + millis / 1000 + " s");
            }
        }

        void closeAll() {
            Connection c;
            while ((c = idle.pollFirst()) != null) {
                discard(c);
            }
        }
    }

    /** A connection to a member's lane, hello said. */
    final class Connection {
        final Socket socket;
        final DataInputStream in;
        final DataOutputStream out;
        final LaneLink link;
        long idleSince;

        Connection(Endpoint target, Address self, int connectTimeoutMillis) throws IOException {
            socket = tls == null ? new Socket() : tls.getSocketFactory().createSocket();
            try {
                socket.setTcpNoDelay(true);
                socket.setSendBufferSize(SEND_BUFFER);
                if (localAddress != null) {
                    socket.bind(new InetSocketAddress(localAddress, 0));
                }
                socket.connect(target.socket(), connectTimeoutMillis);
                if (socket instanceof SSLSocket secured) { // the handshake waits for the member: as long as a connect
                    socket.setSoTimeout(connectTimeoutMillis);
                    secured.startHandshake();
                    socket.setSoTimeout(0); // else an async pipe's answer reader gave up after that long without an answer
                }
                if (payloadRoom(roomOf(socket), tls != null) < room) {
                    throw new IOException("send buffer of " + socket.getSendBufferSize() + " bytes, under the "
                            + room + " the lane needs so that a write never waits");
                }
                in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 16 * 1024));
                out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 16 * 1024));
                link = LaneLink.atClient(self, target.member());
                frames.writeHello(out, link);
            } catch (IOException | RuntimeException e) {
                close();
                throw e;
            }
        }

        void close() {
            LaneFrames.closeQuietly(socket);
        }
    }
}
