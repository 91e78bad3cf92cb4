package io.sessionrep.transport.jgroups.lane;

import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * Closes the data lane's connections that stay silent too long: no hello within the hello time-out, or no request
 * within the idle time-out. The lane's reads wait without a socket time-out because of this: a read with one makes the
 * JDK's socket non-blocking, and every time it waits it costs a failed read and a {@code poll} before the read (a
 * third of the backup's lane thread CPU in a profile with four nodes, where the blocking read costs one system call).
 *
 * <p>One daemon thread per lane looks at every connection each {@link #tickMillis} and closes one whose count of frames
 * read has not moved for its time-out (the thread blocked in its read then ends as when the peer closes): a connection
 * is closed between its time-out and one tick later. It watches every open connection of its lane, so closing it
 * closes them all (the lane closing).
 */
final class SilentConnectionReaper implements AutoCloseable {

    /** One connection as the reaper sees it; its reader thread calls {@link #heard} after each frame it reads. */
    static final class Watched {
        final Socket socket;
        private volatile long framesRead; // the first is the hello
        // the reaper thread's own
        private long framesSeen;
        private long quietSinceMillis;

        private Watched(Socket socket, long nowMillis) {
            this.socket = socket;
            this.quietSinceMillis = nowMillis;
        }

        /** A frame was read: the hello (the first one) or a request. */
        void heard() {
            framesRead++; // one reader thread per connection writes it
        }
    }

    private final Set<Watched> watched = ConcurrentHashMap.newKeySet();
    private final int helloTimeoutMillis;
    private final int idleTimeoutMillis;
    private final long tickMillis;
    private final BiConsumer<Socket, String> close;
    private final Thread thread;
    private volatile boolean closed;

    /** @param close closes a connection found silent, told why */
    SilentConnectionReaper(int helloTimeoutMillis, int idleTimeoutMillis, String name, BiConsumer<Socket, String> close) {
        this.helloTimeoutMillis = helloTimeoutMillis;
        this.idleTimeoutMillis = idleTimeoutMillis;
        this.tickMillis = Math.max(10, Math.min(1_000, helloTimeoutMillis / 5));
        this.close = close;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    Watched watch(Socket socket) {
        Watched w = new Watched(socket, System.currentTimeMillis());
        watched.add(w);
        if (closed) { // the lane closed as it accepted this one
            LaneFrames.closeQuietly(socket);
        }
        return w;
    }

    void forget(Watched w) {
        watched.remove(w);
    }

    private void run() {
        while (!closed) {
            try {
                Thread.sleep(tickMillis);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.currentTimeMillis();
            for (Watched w : watched) {
                long read = w.framesRead;
                if (read != w.framesSeen) {
                    w.framesSeen = read;
                    w.quietSinceMillis = now;
                    continue;
                }
                boolean hello = read > 0;
                long quietMillis = now - w.quietSinceMillis;
                if (quietMillis >= (hello ? idleTimeoutMillis : helloTimeoutMillis)) {
                    watched.remove(w);
                    close.accept(w.socket, hello ? "idle for " + quietMillis + " ms" : "no hello within " + quietMillis + " ms");
                }
            }
        }
    }

    /** Stops watching and closes every connection still watched. */
    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        watched.forEach(w -> LaneFrames.closeQuietly(w.socket));
    }
}
