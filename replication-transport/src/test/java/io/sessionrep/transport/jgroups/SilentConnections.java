package io.sessionrep.transport.jgroups;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An outsider that knows nothing of the cluster: opens TCP connections to a port and holds them open without sending a
 * byte, at a steady rate on its own thread and in bursts on the caller's. {@link #close} closes them all.
 */
public final class SilentConnections implements AutoCloseable {

    private final InetSocketAddress target;
    private final List<Socket> opened = new CopyOnWriteArrayList<>();
    private volatile Thread steady;
    private volatile boolean closed;

    public SilentConnections(String host, int port) {
        this.target = new InetSocketAddress(host, port);
    }

    /** Opens {@code perSecond} connections a second from now on, until {@link #stop} or {@link #close}. */
    public SilentConnections steady(int perSecond) {
        long pauseMillis = 1_000L / perSecond;
        Thread thread = new Thread(() -> {
            while (!closed && !Thread.currentThread().isInterrupted()) {
                open();
                try {
                    Thread.sleep(pauseMillis);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "silent-connections-" + target.getPort());
        thread.setDaemon(true);
        steady = thread;
        thread.start();
        return this;
    }

    /** Stops opening connections; those open stay open. */
    public void stop() throws InterruptedException {
        Thread thread = steady;
        if (thread != null) {
            thread.interrupt();
            thread.join(5_000);
        }
    }

    /** Opens {@code count} connections now, one after the other; stops at the first that does not connect. */
    public void burst(int count) {
        for (int i = 0; i < count && !closed; i++) {
            if (!open()) {
                return;
            }
        }
    }

    /** The connections opened so far (connected; none was ever written to), oldest first. */
    public List<Socket> opened() {
        return List.copyOf(opened);
    }

    private boolean open() {
        Socket socket = new Socket();
        try {
            socket.connect(target, 2_000);
            opened.add(socket);
            return true;
        } catch (IOException e) { // the port's backlog was full: a flood's connection that never got through
            closeQuietly(socket);
            return false;
        }
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        stop();
        opened.forEach(SilentConnections::closeQuietly);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
