package io.sessionrep.perf.floor;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.List;

/**
 * One request thread's connection to one peer: the thread writes its request's changes into it itself (no
 * queue, no other thread), all of them in one write from one direct buffer (one copy of the values into it, which
 * a write from a Java array costs anyway, then one system call for the whole request), and, in sync mode, reads
 * the peer's acknowledgement from it.
 */
final class FloorLink implements Closeable {

    static final int CONNECT_TIMEOUT_MS = 1_000;
    static final int INITIAL_BUFFER = 64 * 1024;

    private final SocketChannel channel;
    private final ByteBuffer ack = ByteBuffer.allocateDirect(1);
    private ByteBuffer out = ByteBuffer.allocateDirect(INITIAL_BUFFER);

    FloorLink(InetSocketAddress peer) throws IOException {
        channel = SocketChannel.open();
        try {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.socket().connect(new InetSocketAddress(peer.getHostString(), peer.getPort()), CONNECT_TIMEOUT_MS);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Writes {@code changes} and, when {@code sync}, waits until the peer has stored them; counts what it sent,
     * and the changes of a type the floor does not copy (not sent), into {@code counters}.
     */
    void send(List<Change> changes, boolean sync, FloorCounters counters) throws IOException {
        out.clear();
        for (Change change : changes) {
            ensureRoom(FloorFrames.maxLength(change) + 1);
            long written = FloorFrames.write(out, change);
            if (written < 0) {
                counters.changesSkipped.increment();
            } else {
                counters.changesSent.increment();
                counters.valueBytesSent.add(written);
            }
        }
        if (sync) {
            ensureRoom(1);
            out.put((byte) FloorFrames.END);
        }
        out.flip();
        while (out.hasRemaining()) {
            channel.write(out);
        }
        if (sync) {
            ack.clear();
            while (ack.hasRemaining()) {
                if (channel.read(ack) < 0) {
                    throw new IOException("the peer closed the connection instead of acknowledging");
                }
            }
            if (ack.get(0) != (byte) FloorFrames.ACK) {
                throw new IOException("the peer answered " + ack.get(0) + " instead of acknowledging");
            }
        }
    }

    /** A larger buffer when {@code bytes} more do not fit (kept for the next requests). */
    private void ensureRoom(int bytes) {
        if (out.remaining() < bytes) {
            ByteBuffer larger = ByteBuffer.allocateDirect(Math.max(out.capacity() * 2, out.position() + bytes));
            out.flip();
            larger.put(out);
            out = larger;
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
