package io.sessionrep.transport.jgroups.lane;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MessageReceiver;
import io.sessionrep.transport.jgroups.lane.LaneFrames.Hello;
import io.sessionrep.transport.jgroups.lane.LaneFrames.MalformedLaneFrame;
import io.sessionrep.transport.jgroups.lane.LaneFrames.Request;
import io.sessionrep.core.WarningInterval;
import org.jgroups.Address;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLServerSocket;

/**
 * The backup's end of the data lane: accepts connections from members' {@link LaneClient}s and, on one
 * thread per connection, reads a request, waits until the channel messages its sender sent before it were
 * handled here ({@link HandledPositions}), hands it to the core and writes the core's reply (a batch of one-way
 * messages: hands each to the core in order, then answers that it did). The async sender writes its batches one
 * after the other without waiting ({@link OneWayPipe}); they are handled in the order written, and a batch that
 * cannot be handled in time is answered {@link LaneFrames#NOT_HANDLED} and the connection closed, so that none
 * written after it is handled before it (the sender sends them all over the channel). Batches already read when
 * the sender has gone (its answer cannot be written) are still handled. An update then costs one write and one
 * read on each side, where over the channel it crosses a bundler thread on the sender and a reader and a pool
 * thread on the receiver, and every protocol of the stack.
 *
 * <p>A connection from an address that is not the host of a member of this node's view ({@code admitted}) is closed
 * as it is accepted, before a thread or a buffer is spent on it, and counted ({@link DataLane.Counts#countLaneRefused()});
 * members on one host share its address, and so do outsiders on it, for whom the bounds below apply.
 *
 * <p>Bounds: at most {@link #MAX_CONNECTIONS} connections past their hello at once (more are closed); at most
 * {@link #MAX_SILENT} connections that have not said hello yet, the oldest closed when another comes, so that
 * connections that say nothing cannot hold every slot (a member says hello as it connects: it loses its connection
 * only if {@link #MAX_SILENT} newer ones arrive before its hello is read, and then takes the channel); a
 * connection must say hello within {@link #HELLO_TIMEOUT_MILLIS} and is closed after {@link #IDLE_TIMEOUT_MILLIS}
 * without a request (by a {@link SilentConnectionReaper}: the reads themselves wait without a socket time-out); a hello from an address that is not a member of this node's view, a frame longer than the lane
 * carries, or one that does not open ({@code cluster-key}) or parse closes the connection and is counted
 * ({@link DataLane.Counts#countLaneRefused()}). The wait for the channel is bounded by what the request allows
 * (half the client's sync-timeout; {@link LaneClient#ONE_WAYS_CHANNEL_WAIT_MILLIS} for a batch); a request not handled then is answered {@link LaneFrames#NOT_HANDLED} and
 * the client sends it over the channel.
 *
 * <p>With TLS ({@code tls-keystore}) the server socket is TLS, with the client's certificate required; the handshake
 * runs within the hello's time-out, and one that fails (no TLS, no certificate, one this node does not trust) closes the
 * connection and is counted as refused.
 */
final class LaneServer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(LaneServer.class.getName());

    static final int MAX_CONNECTIONS = 64;
    /** Connections the kernel may hold for this lane before it accepts them. */
    static final int ACCEPT_BACKLOG = 128;
    static final int MAX_SILENT = 16;
    static final int HELLO_TIMEOUT_MILLIS = 5_000;
    static final int IDLE_TIMEOUT_MILLIS = 120_000;
    /** The longest wait for the channel a request may ask for. */
    static final int MAX_WAIT_MILLIS = 30_000;

    private final ServerSocket server;
    private final LaneFrames frames;
    private final MessageReceiver receiver;
    private final DataLane.Host host;
    private final Predicate<InetAddress> admitted;
    private final HandledPositions handledPositions;
    private final DataLane.Counts counters;
    private final String localName;
    private final AtomicInteger connections = new AtomicInteger(); // past their hello
    private final AtomicInteger accepted = new AtomicInteger();
    private final ConcurrentLinkedDeque<Socket> silent = new ConcurrentLinkedDeque<>(); // accepted, no hello yet, oldest first
    private final WarningInterval refusalWarning = new WarningInterval(Duration.ofMinutes(1));
    private final SilentConnectionReaper reaper;
    private volatile boolean closed;

    /**
     * @param tls with TLS ({@code tls-keystore}): the context of the channel's TLS, whose connections this lane's then
     *            are too, the client's certificate required ({@code needClientAuth}); null: plain TCP
     * @param admitted whether a connection from this address may be read from: the host of a member of the view
     */
    LaneServer(InetAddress bind, int port, SSLContext tls, LaneFrames frames, MessageReceiver receiver,
               DataLane.Host host, Predicate<InetAddress> admitted,
               HandledPositions handledPositions, DataLane.Counts counters, String localName) throws IOException {
        this.server = tls == null ? new ServerSocket(port, ACCEPT_BACKLOG, bind) : tlsServerSocket(tls, port, bind);
        this.frames = frames;
        this.receiver = receiver;
        this.host = host;
        this.admitted = admitted;
        this.handledPositions = handledPositions;
        this.counters = counters;
        this.localName = localName;
        this.reaper = new SilentConnectionReaper(HELLO_TIMEOUT_MILLIS, IDLE_TIMEOUT_MILLIS, "sessionrep-lane-reaper-" + localName,
                (socket, why) -> {
                    LOG.log(System.Logger.Level.DEBUG, () -> "data lane of " + localName + " closed a connection from "
                            + socket.getRemoteSocketAddress() + ": " + why);
                    LaneFrames.closeQuietly(socket);
                });
    }

    private static ServerSocket tlsServerSocket(SSLContext tls, int port, InetAddress bind) throws IOException {
        SSLServerSocket socket = (SSLServerSocket) tls.getServerSocketFactory().createServerSocket(port, ACCEPT_BACKLOG, bind);
        socket.setNeedClientAuth(true);
        return socket;
    }

    /** Starts accepting (once the channel is connected and this node has an address). */
    void start() {
        Thread acceptor = new Thread(this::accept, "sessionrep-lane-accept-" + localName);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Connections accepted since the start (tests: how often members connect). */
    int accepted() {
        return accepted.get();
    }

    private void accept() {
        while (!closed) {
            Socket socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.log(System.Logger.Level.WARNING, "data lane of " + localName + " stopped accepting: " + e);
                }
                return;
            }
            if (!admitted.test(socket.getInetAddress())) {
                refuse(socket, "not from the host of a member of this node's view");
                continue;
            }
            if (silent.size() >= MAX_SILENT) {
                Socket oldest = silent.pollFirst();
                if (oldest != null) {
                    refuse(oldest, "no hello yet when " + MAX_SILENT + " newer connections had come");
                }
            }
            silent.addLast(socket);
            Thread reader = new Thread(() -> serve(socket), "sessionrep-lane-" + localName + "-" + accepted.incrementAndGet());
            reader.setDaemon(true);
            reader.start();
        }
    }

    private void serve(Socket socket) {
        SilentConnectionReaper.Watched watched = reaper.watch(socket); // no socket time-out: see SilentConnectionReaper
        boolean counted = false;
        try (socket) {
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 16 * 1024));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 16 * 1024));
            Hello hello = frames.readHello(in);
            watched.heard();
            if (!silent.remove(socket)) {
                return; // closed as the oldest silent connection meanwhile
            }
            if (connections.incrementAndGet() > MAX_CONNECTIONS) {
                connections.decrementAndGet();
                refuse(socket, "more than " + MAX_CONNECTIONS + " connections");
                return;
            }
            counted = true;
            Address sender = memberAddress(hello);
            LaneLink link = LaneLink.atServer(hello);
            if (sender == null) {
                // also a node that has just joined, before this node's view holds it: it takes the channel meanwhile
                counters.countLaneRefused();
                LOG.log(System.Logger.Level.DEBUG, () -> "data lane of " + localName + " closed a connection from "
                        + socket.getRemoteSocketAddress() + ": its hello names no member of this node's view, or not this node");
                return;
            }
            boolean answering = true;
            while (!closed) {
                Request request = frames.readRequest(in, link);
                watched.heard();
                Member member = host.memberAt(sender);
                if (member == null) {
                    return; // left the view: its requests are refused (it gets no reply and times out or falls back)
                }
                List<byte[]> oneWays = request.oneWays(); // null: a request, not a batch
                int wait = Math.max(0, Math.min(request.waitMillis(), MAX_WAIT_MILLIS));
                if (!handledPositions.await(sender, request.sentBefore(), wait)) {
                    counters.countLaneNotHandled();
                    frames.writeReply(out, link, request.exchange(), LaneFrames.NOT_HANDLED, null);
                    if (oneWays != null) {
                        return; // the frames written after it must not be handled before it: its sender resends them all
                    }
                    continue;
                }
                if (oneWays != null) {
                    for (byte[] message : oneWays) {
                        handOver(member, message);
                    }
                    answering = answering && answer(out, link, request.exchange());
                    continue;
                }
                counters.received(request.payload().length);
                byte[] reply;
                try {
                    reply = receiver.onMessage(member, request.payload());
                } catch (RuntimeException e) {
                    counters.receiverFailed();
                    LOG.log(System.Logger.Level.WARNING, "the receiver failed on a data lane request from " + member
                            + "; the transport keeps running", e);
                    reply = null;
                }
                if (reply != null) {
                    counters.replySent();
                }
                frames.writeReply(out, link, request.exchange(), reply == null ? LaneFrames.NO_REPLY : LaneFrames.REPLIED, reply);
            }
        } catch (MalformedLaneFrame e) {
            refuse(socket, e.getMessage());
        } catch (SSLException e) {
            refuse(socket, "TLS: " + e.getMessage()); // e.g. no certificate, or one this node does not trust
        } catch (EOFException | SocketException e) {
            // closed by the client, by the reaper (silent too long), or by this lane closing
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "data lane connection closed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            reaper.forget(watched);
            silent.remove(socket);
            if (counted) {
                connections.decrementAndGet();
            }
        }
    }

    /**
     * Answers that a batch was handled; false when the answer cannot be written (its sender has gone, or closed the
     * connection): the batches it wrote before are still handled, as they arrived before it went.
     */
    private boolean answer(DataOutputStream out, LaneLink link, long exchange) {
        try {
            frames.writeReply(out, link, exchange, LaneFrames.REPLIED, null);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** One one-way message of a batch to the core, in order; what it answers is not asked for. */
    private void handOver(Member member, byte[] message) {
        counters.received(message.length);
        try {
            receiver.onMessage(member, message);
        } catch (RuntimeException e) {
            counters.receiverFailed();
            LOG.log(System.Logger.Level.WARNING, "the receiver failed on a one-way message from " + member
                    + " over the lane; the transport keeps running", e);
        }
    }

    /** The member the hello names, if it is one other than this node and the hello is meant for this node; else null. */
    private Address memberAddress(Hello hello) {
        Address me = host.self();
        if (me == null || !Hello.names(me, hello.serverHigh(), hello.serverLow())
                || Hello.names(me, hello.clientHigh(), hello.clientLow())) {
            return null;
        }
        for (Address a : host.members()) {
            if (Hello.names(a, hello.clientHigh(), hello.clientLow())) {
                return a;
            }
        }
        return null;
    }

    private void refuse(Socket socket, String why) {
        counters.countLaneRefused();
        if (refusalWarning.due()) {
            LOG.log(System.Logger.Level.WARNING, "data lane of " + localName + " closed a connection from "
                    + socket.getRemoteSocketAddress() + ": " + why + " (counted in laneRefused; logged at most once a minute)");
        }
        LaneFrames.closeQuietly(socket);
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        reaper.close(); // and the connections it watches: every open one
    }
}
