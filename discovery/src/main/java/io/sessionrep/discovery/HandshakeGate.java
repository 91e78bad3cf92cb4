package io.sessionrep.discovery;

import org.jgroups.logging.Log;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.nio.channels.ServerSocketChannel;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;

/**
 * The channel port as JGroups' TCP server sees it: a server socket whose {@link #accept} hands over only connections
 * whose JGroups handshake has arrived whole ({@link PeerHandshake}), so that JGroups' acceptor, which reads each new
 * connection's handshake itself, one connection after the other, never waits for one. Without it, a connection that
 * says nothing held every accept behind it for JGroups' read time-out (1 s): two idle connections a second from
 * anyone who can reach the port kept a joining node from being heard until it had founded a cluster of its own.
 *
 * <p>Its own thread accepts connections from the real server socket and a reader per connection waits for the
 * handshake (with TLS, the TLS handshake first), all in parallel, within bounds:
 * <ul>
 *   <li>at most {@value #MAX_WAITING} connections wait at once, and {@value #MAX_WAITING_PER_ADDRESS} from one remote
 *       address; a new one pushes out the oldest (of its address, or of all: {@link WaitingConnections});</li>
 *   <li>each waits at most {@value #HANDSHAKE_TIMEOUT_MILLIS} ms. A member writes its handshake as it connects, so it
 *       arrives within milliseconds (with TLS, a few round trips); a member's connection is lost only if it is the
 *       oldest of {@value #MAX_WAITING_PER_ADDRESS} from its address, or of {@value #MAX_WAITING}, when another
 *       arrives before its handshake is read (JGroups then connects again with its next message).</li>
 * </ul>
 * A connection refused here is closed and counted ({@link ChannelPortRefusals}: silent, or a bad handshake) and
 * reported in one warning a minute at most; one its peer closed first is only logged at DEBUG.
 *
 * <p>No connection is refused for where it comes from. Before its handshake nothing tells a member's connection from
 * anyone else's: a node joining through {@code peers} need not be listed in this node's {@code peers}; with dynamic
 * discovery any host may join; behind NAT, in containers or on one machine (every node on 127.0.0.1) members and
 * outsiders share addresses. The address a handshake states is the sender's own claim. Telling members apart is the
 * work of {@code cluster-key} (nothing a stranger sends is accepted) and TLS (no handshake without a trusted
 * certificate, refused here); the per-address bound only keeps connections from one address from pushing out
 * everyone else's.
 *
 * <p>If JGroups' acceptor falls {@value #MAX_WAITING} connections behind, this gate stops accepting until it catches
 * up (the kernel's backlog holds new connections meanwhile, as it did without the gate).
 */
final class HandshakeGate extends ServerSocket {

    static final int MAX_WAITING = 16;
    static final int MAX_WAITING_PER_ADDRESS = 4;
    static final int HANDSHAKE_TIMEOUT_MILLIS = 2_000;
    /** How often the gate thread looks for connections past their time-out, and {@link #accept} for {@link #close}. */
    static final int TICK_MILLIS = 100;

    private final ServerSocket server;
    private final ChannelPortRefusals refusals;
    private final Log log;
    private final WaitingConnections waiting = new WaitingConnections(MAX_WAITING, MAX_WAITING_PER_ADDRESS);
    /** Connections whose handshake has arrived, for JGroups' acceptor, in the order they completed. */
    private final BlockingQueue<Socket> ready = new LinkedBlockingQueue<>();
    private final ThreadPoolExecutor readers;
    private final Object lifecycle = new Object();
    private Thread gate; // guarded by lifecycle
    private volatile boolean closed;
    private volatile int acceptTimeoutMillis;

    /** A gate in front of {@code server} (bound or not: JGroups binds it through this gate). */
    HandshakeGate(ServerSocket server, ChannelPortRefusals refusals, Log log) throws IOException {
        this.server = server;
        this.refusals = refusals;
        this.log = log;
        AtomicInteger count = new AtomicInteger();
        // one reader per waiting connection: a reader blocks in its connection's read
        this.readers = new ThreadPoolExecutor(MAX_WAITING, MAX_WAITING, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                task -> daemon(task, "sessionrep-handshake-reader-" + server.getLocalPort() + "-" + count.incrementAndGet()));
        readers.allowCoreThreadTimeOut(true);
    }

    @Override
    public Socket accept() throws IOException {
        startGate();
        int timeout = acceptTimeoutMillis;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeout);
        while (!closed) {
            long waitMillis = TICK_MILLIS;
            if (timeout > 0) {
                long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (leftMillis <= 0) {
                    throw new SocketTimeoutException("Accept timed out");
                }
                waitMillis = Math.min(waitMillis, leftMillis);
            }
            Socket next;
            try {
                next = ready.poll(waitMillis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for a connection");
            }
            if (next != null) {
                return next;
            }
        }
        throw new SocketException("Socket is closed");
    }

    private void startGate() throws SocketException {
        synchronized (lifecycle) {
            if (gate != null || closed) {
                return;
            }
            if (!server.isBound()) {
                throw new SocketException("Socket is not bound yet");
            }
            server.setSoTimeout(TICK_MILLIS);
            gate = daemon(this::run, "sessionrep-handshake-gate-" + server.getLocalPort());
            gate.start();
        }
    }

    private void run() {
        while (!closed && !Thread.currentThread().isInterrupted()) {
            try {
                refuseExpired();
                if (ready.size() >= MAX_WAITING) { // JGroups' acceptor is behind: the kernel holds new ones meanwhile
                    pause();
                    continue;
                }
                admit(server.accept());
            } catch (SocketTimeoutException e) {
                // a tick: look at the time-outs again
            } catch (IOException e) {
                if (closed || server.isClosed()) {
                    return;
                }
                log.debug("accepting a connection to the channel port failed: %s", e); // e.g. out of file descriptors
                pause();
            } catch (RuntimeException e) { // never leave the port without its acceptor
                log.error("the channel port's handshake gate failed; it keeps accepting", e);
                pause();
            }
        }
    }

    private void admit(Socket accepted) {
        WaitingConnections.Waiting connection = new WaitingConnections.Waiting(accepted, accepted.getInetAddress(),
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HANDSHAKE_TIMEOUT_MILLIS));
        for (WaitingConnections.Waiting pushedOut : waiting.add(connection)) {
            refuseSilent(pushedOut, "no handshake yet when newer connections came (at most " + MAX_WAITING
                    + " wait, " + MAX_WAITING_PER_ADDRESS + " from one address)");
        }
        try {
            readers.execute(() -> readHandshake(connection));
        } catch (RejectedExecutionException closing) {
            if (waiting.remove(connection)) {
                closeQuietly(accepted);
            }
        }
    }

    private void refuseExpired() {
        for (WaitingConnections.Waiting expired : waiting.expired(System.nanoTime())) {
            refuseSilent(expired, "no handshake within " + HANDSHAKE_TIMEOUT_MILLIS + " ms");
        }
    }

    /** On a reader: waits for the handshake, then hands the connection over, or refuses it. */
    private void readHandshake(WaitingConnections.Waiting connection) {
        Socket handedOver;
        try {
            handedOver = PeerHandshake.read(connection.socket(), HANDSHAKE_TIMEOUT_MILLIS);
        } catch (PeerHandshake.NotAHandshake e) {
            if (waiting.remove(connection)) {
                refuseBadHandshake(connection, "not a JGroups handshake: " + e.getMessage());
            }
            return;
        } catch (SSLException e) {
            if (waiting.remove(connection)) {
                if (PeerHandshake.closedByPeer(e)) {
                    closedBeforeHandshake(connection, e);
                } else {
                    refuseBadHandshake(connection, "the TLS handshake failed: " + e.getMessage());
                }
            }
            return;
        } catch (SocketTimeoutException e) {
            if (waiting.remove(connection)) {
                refuseSilent(connection, "no handshake within " + HANDSHAKE_TIMEOUT_MILLIS + " ms");
            }
            return;
        } catch (IOException | RuntimeException e) {
            if (waiting.remove(connection)) {
                closedBeforeHandshake(connection, e);
            }
            return; // else pushed out or timed out: its socket was closed under the read, and counted
        }
        if (waiting.remove(connection)) {
            ready.add(handedOver);
            if (closed) { // closed meanwhile: nobody takes it
                closeReady();
            }
        } else {
            closeQuietly(connection.socket()); // pushed out or timed out meanwhile: refused already
        }
    }

    private void refuseSilent(WaitingConnections.Waiting connection, String why) {
        try {
            refusals.silent(connection.from(), why); // counted before it closes: whoever sees it closed sees it counted
        } finally {
            closeQuietly(connection.socket());
        }
    }

    private void refuseBadHandshake(WaitingConnections.Waiting connection, String why) {
        try {
            refusals.badHandshake(connection.from(), why);
        } finally {
            closeQuietly(connection.socket());
        }
    }

    private void closedBeforeHandshake(WaitingConnections.Waiting connection, Exception e) {
        closeQuietly(connection.socket());
        log.debug("a connection to the channel port from %s closed before its handshake (not a refusal): %s",
                connection.from(), e);
    }

    private void pause() {
        try {
            Thread.sleep(TICK_MILLIS / 10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws IOException {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            server.close(); // ends the gate thread's accept
        } finally {
            readers.shutdownNow();
            for (WaitingConnections.Waiting connection : waiting.removeAll()) {
                closeQuietly(connection.socket()); // ends its reader's read
            }
            closeReady();
        }
    }

    private void closeReady() {
        for (Socket socket; (socket = ready.poll()) != null; ) {
            closeQuietly(socket);
        }
    }

    @Override public boolean isClosed() { return closed; }
    @Override public boolean isBound() { return server.isBound(); }
    @Override public void bind(SocketAddress endpoint) throws IOException { server.bind(endpoint); }
    @Override public void bind(SocketAddress endpoint, int backlog) throws IOException { server.bind(endpoint, backlog); }
    @Override public InetAddress getInetAddress() { return server.getInetAddress(); }
    @Override public int getLocalPort() { return server.getLocalPort(); }
    @Override public SocketAddress getLocalSocketAddress() { return server.getLocalSocketAddress(); }
    @Override public ServerSocketChannel getChannel() { return null; } // accepting from the channel would skip the gate
    @Override public void setSoTimeout(int timeout) { acceptTimeoutMillis = Math.max(0, timeout); }
    @Override public int getSoTimeout() { return acceptTimeoutMillis; }
    @Override public void setReuseAddress(boolean on) throws SocketException { server.setReuseAddress(on); }
    @Override public boolean getReuseAddress() throws SocketException { return server.getReuseAddress(); }
    @Override public void setReceiveBufferSize(int size) throws SocketException { server.setReceiveBufferSize(size); }
    @Override public int getReceiveBufferSize() throws SocketException { return server.getReceiveBufferSize(); }
    @Override public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        server.setPerformancePreferences(connectionTime, latency, bandwidth);
    }
    @Override public <T> ServerSocket setOption(SocketOption<T> name, T value) throws IOException {
        server.setOption(name, value);
        return this;
    }
    @Override public <T> T getOption(SocketOption<T> name) throws IOException { return server.getOption(name); }
    @Override public Set<SocketOption<?>> supportedOptions() { return server.supportedOptions(); }
    @Override public String toString() { return "HandshakeGate[" + server + "]"; }

    private static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a refused connection
        }
    }
}
