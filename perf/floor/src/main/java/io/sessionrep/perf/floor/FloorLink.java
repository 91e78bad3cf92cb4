package io.sessionrep.perf.floor;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;

/**
 * One request thread's connection to one peer: the thread writes its request's changes into it itself (no
 * queue, no other thread) and, in sync mode, reads the peer's acknowledgement from it.
 */
final class FloorLink implements Closeable {

    static final int CONNECT_TIMEOUT_MS = 1_000;
    /** Small frames (ids, names, lengths) gather here; a value longer than this goes to the socket directly. */
    static final int BUFFER = 8 * 1024;

    private final Socket socket;
    private final DataOutputStream out;
    private final InputStream in;

    FloorLink(InetSocketAddress peer) throws IOException {
        socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(peer.getHostString(), peer.getPort()), CONNECT_TIMEOUT_MS);
            out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), BUFFER));
            in = socket.getInputStream();
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * Writes {@code changes} and, when {@code sync}, waits until the peer has stored them; counts what it sent,
     * and the changes of a type the floor does not copy (not sent), into {@code counters}.
     */
    void send(List<Change> changes, boolean sync, FloorCounters counters) throws IOException {
        for (Change change : changes) {
            long written = FloorFrames.write(out, change);
            if (written < 0) {
                counters.changesSkipped.increment();
            } else {
                counters.changesSent.increment();
                counters.valueBytesSent.add(written);
            }
        }
        if (sync) {
            out.writeByte(FloorFrames.END);
        }
        out.flush();
        if (sync && in.read() != FloorFrames.ACK) {
            throw new IOException("the peer closed the connection instead of acknowledging");
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
