package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.TransportException;
import io.sessionrep.transport.jgroups.LaneFrames.MalformedLaneFrame;
import io.sessionrep.transport.jgroups.LaneFrames.Reply;
import org.jgroups.Address;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The primary's end of the sync lane: connections to each member's {@link SyncLaneServer}, kept idle between
 * uses, at most {@link #MAX_CONNECTIONS_PER_MEMBER} per member. A sync request end takes one, writes its update
 * and reads the acknowledgement on its own thread.
 *
 * <p>Never blocked without bound: a write of at most {@link LaneFrames#MAX_PAYLOAD} bytes goes into a socket
 * send buffer that holds at least that much and is empty (the previous exchange on the connection read its
 * reply, so the server had read the whole request), and the read of the reply waits at most the request's
 * time-out; a connection that times out or fails is closed. A member whose lane does not accept a connection
 * (within {@link #CONNECT_TIMEOUT_MILLIS}) is left to the channel for {@link #UNREACHABLE_RETRY_AFTER_MILLIS};
 * one for {@link #RETRY_AFTER_MILLIS} whose lane answered that the channel was behind
 * ({@link LaneFrames#NOT_HANDLED}), since that stays so until the channel catches up, and one where an exchange
 * failed (its update is sent again over the channel by the caller).
 */
final class SyncLaneClient implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(SyncLaneClient.class.getName());

    static final int MAX_CONNECTIONS_PER_MEMBER = 16;
    static final long RETRY_AFTER_MILLIS = 5_000;
    /** A member whose lane port does not accept a connection is left to the channel this long. */
    static final long UNREACHABLE_RETRY_AFTER_MILLIS = 30_000;
    /** At most this, and at most half the request's time-out (the rest is for the channel if it fails). */
    static final int CONNECT_TIMEOUT_MILLIS = 200;
    /** Idle connections older than this are closed rather than used (the server closes them after its idle time-out). */
    static final long IDLE_MILLIS = SyncLaneServer.IDLE_TIMEOUT_MILLIS / 2;
    private static final int SEND_BUFFER = 4 * LaneFrames.MAX_PAYLOAD;

    /** Where a member's lane listens. */
    record Endpoint(Address member, InetSocketAddress socket) {
    }

    private final LaneFrames frames;
    private final TransportCounters counters;
    private final Map<Address, Pool> pools = new ConcurrentHashMap<>();
    private volatile boolean closed;

    SyncLaneClient(LaneFrames frames, TransportCounters counters) {
        this.frames = frames;
        this.counters = counters;
    }

    /**
     * Sends {@code payload} to {@code target} and reads the reply on this thread.
     *
     * @param sentBefore how many channel messages this node had handed to the channel for the target before
     * @return the reply, or null when nothing was handled there (no lane now, or the channel was behind): the
     *         caller sends it over the channel
     */
    byte[] exchange(Endpoint target, Address self, long sentBefore, byte[] payload, Duration timeout)
            throws TimeoutException {
        if (closed || payload.length > LaneFrames.MAX_PAYLOAD) {
            return null;
        }
        long started = System.nanoTime();
        Pool pool = pools.computeIfAbsent(target.member(), a -> new Pool());
        Connection c = pool.take(target, self, timeout);
        if (c == null) {
            return null;
        }
        long millis = Math.max(1, timeout.toMillis() - (System.nanoTime() - started) / 1_000_000); // after a connect
        boolean reusable = false;
        try {
            c.socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, millis));
            frames.writeRequest(c.out, sentBefore, (int) Math.min(Integer.MAX_VALUE, millis / 2), payload);
            Reply reply = frames.readReply(c.in, LaneFrames.MAX_PAYLOAD);
            reusable = true;
            return switch (reply.status()) {
                case LaneFrames.REPLIED -> {
                    counters.laneExchanged();
                    yield reply.payload();
                }
                case LaneFrames.NOT_HANDLED -> {
                    pool.pauseFor(RETRY_AFTER_MILLIS, "its lane answered that this node's channel messages were not handled"
                            + " there within half the sync-timeout");
                    yield null;
                }
                default -> throw new TransportException("the receiver at " + target.member() + " returned no reply");
            };
        } catch (SocketTimeoutException e) {
            counters.requestTimedOut();
            throw new TimeoutException("no reply on the sync lane from " + target.member() + " within " + millis + " ms");
        } catch (IOException | MalformedLaneFrame e) {
            counters.requestFailed();
            // e.g. closed at once by a lane that has as many connections as it takes: do not try again per request
            pool.pauseFor(RETRY_AFTER_MILLIS, "an exchange failed (" + e + ")");
            throw new TransportException("sync lane to " + target.member() + " failed: " + e, e);
        } finally {
            if (reusable && !closed) {
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
        pools.values().forEach(Pool::closeAll);
        pools.clear();
    }

    /** The connections to one member. */
    private final class Pool {
        private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
        private final AtomicInteger count = new AtomicInteger();
        private volatile long pausedUntil;

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
                LOG.log(System.Logger.Level.INFO, "sync lane: " + why + "; sync updates to that member take the channel"
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

    private final class Connection {
        final Socket socket;
        final DataInputStream in;
        final DataOutputStream out;
        long idleSince;

        Connection(Endpoint target, Address self, int connectTimeoutMillis) throws IOException {
            socket = new Socket();
            try {
                socket.setTcpNoDelay(true);
                socket.setSendBufferSize(SEND_BUFFER);
                socket.connect(target.socket(), connectTimeoutMillis);
                if (socket.getSendBufferSize() < 2 * (LaneFrames.MAX_PAYLOAD + 1024)) { // Linux reports twice the payload room
                    throw new IOException("send buffer of " + socket.getSendBufferSize() + " bytes, under the "
                            + LaneFrames.MAX_PAYLOAD + " the lane needs so that a write never waits");
                }
                in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 16 * 1024));
                out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 16 * 1024));
                frames.writeHello(out, LaneFrames.Hello.of(self, target.member()));
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
