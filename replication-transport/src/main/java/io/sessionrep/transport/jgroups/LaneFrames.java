package io.sessionrep.transport.jgroups;

import io.sessionrep.discovery.SealedBytes;
import org.jgroups.Address;
import org.jgroups.util.UUID;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The lane's frames ({@link LaneServer}, {@link LaneClient}), each a 4-byte length and a body;
 * with {@code cluster-key} every body is sealed as the channel's frames are ({@link SealedBytes}: authenticated,
 * fresh, accepted once), without it the body is plain, as the channel's is then.
 * <pre>
 * hello   = magic (4) | client address (16) | server address (16)         client to server, first
 * request = sent before (8) | wait millis (4) | kind (1) | payload                     client to server
 * reply   = status (1) | payload                                                      server to client
 * </pre>
 * "Sent before" is the {@link ChannelPosition} of the channel messages the client sent the server's node before the
 * request, which the server handles first. A request of kind {@link #REQUEST} carries one message, which the core answers (a sync request end); one of
 * kind {@link #ONE_WAYS} carries one-way messages, {@code count (4) | (length (4) | message) * count}, handled
 * in order and answered with an empty {@link #REPLIED} once all are (the async sender's batch).
 * A length outside what the lane carries, a body that does not open or parse: {@link MalformedLaneFrame}, and
 * the connection is closed.
 */
final class LaneFrames {

    static final int MAGIC = 0x53524C31; // "SRL1"
    static final int HELLO_BYTES = 4 + 16 + 16;
    static final int REQUEST_HEADER = 8 + 4 + 1;
    static final byte REQUEST = 0;
    static final byte ONE_WAYS = 1;
    /**
     * The largest payload a lane frame may carry; a client sends at most what its socket's send buffer holds
     * ({@link LaneClient#room()}), larger messages take the channel.
     */
    static final int MAX_PAYLOAD = 1024 * 1024;
    /** A request sent its payload to the core, which answered (or returned nothing: {@link #NO_REPLY}). */
    static final byte REPLIED = 0;
    static final byte NO_REPLY = 1;
    /**
     * The sender's channel messages sent before the request were not all handled within the wait: the
     * request was not handled either (the client sends it over the channel).
     */
    static final byte NOT_HANDLED = 2;

    /** A frame the lane refuses. */
    static final class MalformedLaneFrame extends Exception {
        MalformedLaneFrame(String message) {
            super(message, null, false, false);
        }
    }

    record Hello(long clientHigh, long clientLow, long serverHigh, long serverLow) {
        static Hello of(Address client, Address server) {
            UUID c = (UUID) client;
            UUID s = (UUID) server;
            return new Hello(c.getMostSignificantBits(), c.getLeastSignificantBits(),
                    s.getMostSignificantBits(), s.getLeastSignificantBits());
        }

        static boolean names(Address address, long high, long low) {
            return address instanceof UUID u && u.getMostSignificantBits() == high && u.getLeastSignificantBits() == low;
        }
    }

    /**
     * A request: of kind {@link #REQUEST} its {@code payload} (and {@code oneWays} null); of kind {@link #ONE_WAYS} the
     * messages of its batch, in order, each read straight into an array of its own ({@code payload} null).
     */
    record Request(long sentBefore, int waitMillis, byte kind, byte[] payload, List<byte[]> oneWays) {
    }

    /** The payload size of a {@link #ONE_WAYS} request carrying messages of these sizes in all. */
    static int oneWaysLength(int messages, long messageBytes) {
        return (int) Math.min(Integer.MAX_VALUE, 4 + 4L * messages + messageBytes);
    }

    record Reply(byte status, byte[] payload) {
    }

    private final SealedBytes sealer; // null: plain

    LaneFrames(SealedBytes sealer) {
        this.sealer = sealer;
    }

    void writeHello(DataOutputStream out, Hello hello) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(HELLO_BYTES).putInt(MAGIC).putLong(hello.clientHigh()).putLong(hello.clientLow())
                .putLong(hello.serverHigh()).putLong(hello.serverLow());
        writeBody(out, b.array());
    }

    Hello readHello(DataInputStream in) throws IOException, MalformedLaneFrame {
        ByteBuffer b = ByteBuffer.wrap(readBody(in, HELLO_BYTES));
        if (b.remaining() != HELLO_BYTES || b.getInt() != MAGIC) {
            throw new MalformedLaneFrame("not a data lane hello");
        }
        return new Hello(b.getLong(), b.getLong(), b.getLong(), b.getLong());
    }

    void writeRequest(DataOutputStream out, long sentBefore, int waitMillis, byte[] payload) throws IOException {
        if (sealer == null) { // written as it goes: no copy of the payload
            out.writeInt(REQUEST_HEADER + payload.length);
            out.writeLong(sentBefore);
            out.writeInt(waitMillis);
            out.writeByte(REQUEST);
            out.write(payload);
            out.flush();
            return;
        }
        writeBody(out, ByteBuffer.allocate(REQUEST_HEADER + payload.length).putLong(sentBefore).putInt(waitMillis)
                .put(REQUEST).put(payload).array());
    }

    /** A {@link #ONE_WAYS} request; {@code payloadLength} is {@link #oneWaysLength} of the messages. */
    void writeOneWays(DataOutputStream out, long sentBefore, int waitMillis, List<byte[]> messages, int payloadLength)
            throws IOException {
        if (sealer == null) { // written as it goes: no copy of the messages
            out.writeInt(REQUEST_HEADER + payloadLength);
            out.writeLong(sentBefore);
            out.writeInt(waitMillis);
            out.writeByte(ONE_WAYS);
            out.writeInt(messages.size());
            for (byte[] m : messages) {
                out.writeInt(m.length);
                out.write(m);
            }
            out.flush();
            return;
        }
        ByteBuffer b = ByteBuffer.allocate(REQUEST_HEADER + payloadLength).putLong(sentBefore).putInt(waitMillis)
                .put(ONE_WAYS).putInt(messages.size());
        for (byte[] m : messages) {
            b.putInt(m.length).put(m);
        }
        writeBody(out, b.array());
    }

    Request readRequest(DataInputStream in) throws IOException, MalformedLaneFrame {
        if (sealer == null) {
            return readRequestBody(in, readLength(in, REQUEST_HEADER + MAX_PAYLOAD));
        }
        byte[] body = readBody(in, REQUEST_HEADER + MAX_PAYLOAD);
        return readRequestBody(new DataInputStream(new ByteArrayInputStream(body)), body.length);
    }

    /** A request's {@code length} bytes after its length, from {@code in}: plain off the socket, or as opened. */
    private static Request readRequestBody(DataInputStream in, int length) throws IOException, MalformedLaneFrame {
        if (length < REQUEST_HEADER) {
            throw new MalformedLaneFrame("request of " + length + " bytes");
        }
        long sentBefore = in.readLong();
        int wait = in.readInt();
        byte kind = kind(in.readByte());
        int payloadLength = length - REQUEST_HEADER;
        if (kind == ONE_WAYS) {
            return new Request(sentBefore, wait, kind, null, readOneWays(in, payloadLength));
        }
        byte[] payload = new byte[payloadLength];
        in.readFully(payload);
        return new Request(sentBefore, wait, kind, payload, null);
    }

    /**
     * The messages of a {@link #ONE_WAYS} payload of {@code payloadLength} bytes, each read into an array of its own
     * (no copy of the whole payload first); a count or a length that the payload cannot hold is refused before
     * anything is allocated for it.
     */
    private static List<byte[]> readOneWays(DataInputStream in, int payloadLength) throws IOException, MalformedLaneFrame {
        if (payloadLength < 4) {
            throw new MalformedLaneFrame("one-way batch of " + payloadLength + " bytes");
        }
        int count = in.readInt();
        int left = payloadLength - 4;
        if (count < 0 || count > left / 4) {
            throw new MalformedLaneFrame("one-way batch claims " + count + " messages in " + payloadLength + " bytes");
        }
        List<byte[]> messages = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int length = left >= 4 ? in.readInt() : -1;
            left -= 4;
            if (length < 0 || length > left) {
                throw new MalformedLaneFrame("one-way message " + i + " of " + length + " bytes, " + Math.max(0, left) + " left");
            }
            byte[] message = new byte[length];
            in.readFully(message);
            left -= length;
            messages.add(message);
        }
        if (left > 0) {
            throw new MalformedLaneFrame(left + " bytes after the last one-way message");
        }
        return messages;
    }

    private static byte kind(byte kind) throws MalformedLaneFrame {
        if (kind != REQUEST && kind != ONE_WAYS) {
            throw new MalformedLaneFrame("request of unknown kind " + kind);
        }
        return kind;
    }

    void writeReply(DataOutputStream out, byte status, byte[] payload) throws IOException {
        byte[] p = payload == null ? new byte[0] : payload;
        if (sealer == null) {
            out.writeInt(1 + p.length);
            out.writeByte(status);
            out.write(p);
            out.flush();
            return;
        }
        writeBody(out, ByteBuffer.allocate(1 + p.length).put(status).put(p).array());
    }

    Reply readReply(DataInputStream in, int maxPayload) throws IOException, MalformedLaneFrame {
        byte[] body = readBody(in, 1 + maxPayload);
        if (body.length < 1 || body[0] < REPLIED || body[0] > NOT_HANDLED) {
            throw new MalformedLaneFrame("not a data lane reply");
        }
        byte[] payload = new byte[body.length - 1];
        System.arraycopy(body, 1, payload, 0, payload.length);
        return new Reply(body[0], payload);
    }

    private void writeBody(DataOutputStream out, byte[] plain) throws IOException {
        byte[] body = sealer == null ? plain : sealer.seal(plain);
        out.writeInt(body.length);
        out.write(body);
        out.flush();
    }

    private byte[] readBody(DataInputStream in, int maxPlain) throws IOException, MalformedLaneFrame {
        int length = readLength(in, maxPlain + (sealer == null ? 0 : SealedBytes.OVERHEAD));
        byte[] body = new byte[length];
        in.readFully(body);
        if (sealer == null) {
            return body;
        }
        try {
            return sealer.open(body);
        } catch (SealedBytes.Refused e) {
            throw new MalformedLaneFrame("refused by cluster-key: " + e.getMessage());
        }
    }

    /** Closes a lane socket, ignoring a failure to close (the connection is gone either way). */
    static void closeQuietly(java.net.Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    private static int readLength(DataInputStream in, int max) throws IOException, MalformedLaneFrame {
        int length = in.readInt();
        if (length < 0 || length > max) {
            throw new MalformedLaneFrame("frame length " + length + " outside 0.." + max);
        }
        return length;
    }
}
