package io.sessionrep.perf.floor;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A floor node's backups: a server socket on 127.0.0.1 and one reader thread per connection, which reads each
 * frame and applies it at once: a SET's value into a new array kept in a map of the session's attributes, a
 * REMOVE or DESTROY from it, and for END one acknowledgement byte back.
 *
 * <p>Each request thread of a peer has a connection of its own, so the frames of one session's requests may
 * arrive over different connections and be read in another order than they were sent: in async mode a SET of a
 * session's last request may be read after the DESTROY of its next one. Such a SET is dropped (counted), else
 * the session would be held for ever and the node's heap fill with dead sessions (which it did, before this
 * check: over 300 MB on one node after a profile of the large sizes). Destroyed ids are remembered for
 * {@value #DESTROYED_KEPT_MS} ms, far longer than any such reordering.
 */
final class FloorBackups implements Closeable {

    /** Frames and small values come through it; a longer value is read straight into its array. */
    private static final int READ_BUFFER = 8 * 1024;
    /** How long a destroyed session's id is remembered. */
    private static final long DESTROYED_KEPT_MS = 10_000;

    private final ServerSocket server;
    private final FloorCounters counters;
    private final Map<String, Map<String, Object>> sessions = new ConcurrentHashMap<>();
    /** Ids destroyed lately, with when ({@link System#nanoTime}). */
    private final Map<String, Long> destroyed = new ConcurrentHashMap<>();
    private final AtomicLong destroys = new AtomicLong();
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger readers = new AtomicInteger();
    private volatile boolean closed;

    FloorBackups(int port, FloorCounters counters) throws IOException {
        this.counters = counters;
        server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        Thread acceptor = new Thread(this::accept, "floor-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket socket = server.accept();
                socket.setTcpNoDelay(true);
                connections.add(socket);
                Thread reader = new Thread(() -> read(socket), "floor-reader-" + readers.incrementAndGet());
                reader.setDaemon(true);
                reader.start();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("floor: accept failed: " + e);
                }
            }
        }
    }

    private void read(Socket socket) {
        try (socket; DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), READ_BUFFER))) {
            OutputStream ack = socket.getOutputStream();
            while (true) {
                int kind;
                try {
                    kind = in.readUnsignedByte();
                } catch (EOFException end) {
                    return; // the peer closed its link
                }
                counters.framesReceived.increment();
                switch (kind) {
                    case FloorFrames.SET -> {
                        String id = in.readUTF();
                        String name = in.readUTF();
                        Object value = FloorFrames.readValue(in);
                        if (value instanceof byte[] bytes) {
                            counters.valueBytesReceived.add(bytes.length);
                        }
                        set(id, name, value);
                    }
                    case FloorFrames.REMOVE -> {
                        String id = in.readUTF();
                        String name = in.readUTF();
                        Map<String, Object> attributes = sessions.get(id);
                        if (attributes != null) {
                            attributes.remove(name);
                        }
                    }
                    case FloorFrames.DESTROY -> destroy(in.readUTF());
                    case FloorFrames.END -> ack.write(FloorFrames.ACK);
                    default -> throw new IOException("unknown frame kind " + kind);
                }
            }
        } catch (IOException e) {
            if (!closed && !(e instanceof SocketException)) {
                System.err.println("floor: a link failed: " + e);
            }
        } finally {
            connections.remove(socket);
        }
    }

    /**
     * Keeps a SET unless its session was destroyed. The check after the put catches a DESTROY read meanwhile on
     * another connection, which records the id before it removes the session.
     */
    private void set(String id, String name, Object value) {
        if (destroyed.containsKey(id)) {
            counters.setsAfterDestroy.increment();
            return;
        }
        sessions.computeIfAbsent(id, k -> new ConcurrentHashMap<>()).put(name, value);
        if (destroyed.containsKey(id)) {
            sessions.remove(id);
            counters.setsAfterDestroy.increment();
        }
    }

    /** Forgets the session, its id recorded first (see {@link #set}); now and then forgets ids older than the bound. */
    private void destroy(String id) {
        long now = System.nanoTime();
        destroyed.put(id, now);
        sessions.remove(id);
        if ((destroys.incrementAndGet() & 4095) == 0) {
            long cutoff = now - DESTROYED_KEPT_MS * 1_000_000L;
            destroyed.values().removeIf(at -> at < cutoff);
        }
    }

    /** The port the backups listen on (the one asked for, or the one the system chose for 0). */
    int port() {
        return server.getLocalPort();
    }

    /** How many sessions the backups hold now. */
    long sessionsHeld() {
        return sessions.size();
    }

    /** The bytes of every byte array the backups hold now. */
    long valueBytesHeld() {
        long total = 0;
        for (Map<String, Object> attributes : sessions.values()) {
            for (Object value : attributes.values()) {
                if (value instanceof byte[] bytes) {
                    total += bytes.length;
                }
            }
        }
        return total;
    }

    /** The copy of attribute {@code name} of session {@code id}, or null. */
    Object held(String id, String name) {
        Map<String, Object> attributes = sessions.get(id);
        return attributes == null ? null : attributes.get(name);
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Socket s : connections) {
            s.close();
        }
    }
}
