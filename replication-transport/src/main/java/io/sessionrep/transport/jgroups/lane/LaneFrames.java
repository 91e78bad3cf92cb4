package io.sessionrep.transport.jgroups.lane;

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
 * fresh, accepted once), and every frame after the hello bound to its connection, direction, the two node instances
 * and its place in its direction ({@link LaneLink}); without it the body is plain, as the channel's is then.
 * <pre>
 * hello   = magic (4) | connection id (16) | client address (16) | server address (16)   client to server, first
 * request = exchange (8) | sent before (8) | wait millis (4) | kind (1) | payload             client to server
 * reply   = exchange (8) | status (1) | payload                                             server to client
 * </pre>
 * "Exchange" numbers the client's requests on the connection; a reply names the request it answers, and the client
 * takes it only as the answer to that request.
 * "Sent before" is the {@link ChannelPosition} of the channel messages the client sent the server's node before the
 * request, which the server handles first. A request of kind {@link #REQUEST} carries one message, which the core answers (a sync request end); one of
 * kind {@link #ONE_WAYS} carries one-way messages, {@code count (4) | (length (4) | message) * count}, handled
 * in order and answered with an empty {@link #REPLIED} once all are (the async sender's batch).
 * A length outside what the lane carries, a body that does not open or parse: {@link MalformedLaneFrame}, and
 * the connection is closed.
 */
final class LaneFrames {

    static final int MAGIC = 0x53524C32; // "SRL2"
    /**
     * The oldest wire protocol a member must state (in its address) for this node to use its lane:
     * builds of earlier protocols speak an earlier hello ("SRL1"), which this one refuses, and they refuse this one's.
     */
    static final int SINCE_PROTOCOL = 4;
    static final int HELLO_BYTES = 4 + 16 + 16 + 16;
    static final int REQUEST_HEADER = 8 + 8 + 4 + 1;
    static final int REPLY_HEADER = 8 + 1;
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

    record Hello(long idHigh, long idLow, long clientHigh, long clientLow, long serverHigh, long serverLow) {
        static Hello of(long idHigh, long idLow, Address client, Address server) {
            UUID c = (UUID) client;
            UUID s = (UUID) server;
            return new Hello(idHigh, idLow, c.getMostSignificantBits(), c.getLeastSignificantBits(),
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
    record Request(long exchange, long sentBefore, int waitMillis, byte kind, byte[] payload, List<byte[]> oneWays) {
    }

    /** The payload size of a {@link #ONE_WAYS} request carrying messages of these sizes in all. */
    static int oneWaysLength(int messages, long messageBytes) {
        return (int) Math.min(Integer.MAX_VALUE, 4 + 4L * messages + messageBytes);
    }

    record Reply(long exchange, byte status, byte[] payload) {
    }

    private final SealedBytes sealer; // null: plain

    LaneFrames(SealedBytes sealer) {
        this.sealer = sealer;
    }

    /** The hello of {@code link}'s connection (sealed without a binding: it sets up the binding of what follows). */
    void writeHello(DataOutputStream out, LaneLink link) throws IOException {
        Hello hello = link.hello();
        ByteBuffer b = ByteBuffer.allocate(HELLO_BYTES).putInt(MAGIC).putLong(hello.idHigh()).putLong(hello.idLow())
                .putLong(hello.clientHigh()).putLong(hello.clientLow()).putLong(hello.serverHigh()).putLong(hello.serverLow());
        writeBody(out, b.array(), null);
    }

    Hello readHello(DataInputStream in) throws IOException, MalformedLaneFrame {
        ByteBuffer b = ByteBuffer.wrap(readBody(in, HELLO_BYTES, null));
        if (b.remaining() != HELLO_BYTES || b.getInt() != MAGIC) {
            throw new MalformedLaneFrame("not a data lane hello (of this release)");
        }
        return new Hello(b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong());
    }

    void writeRequest(DataOutputStream out, LaneLink link, long exchange, long sentBefore, int waitMillis, byte[] payload)
            throws IOException {
        if (sealer == null) { // written as it goes: no copy of the payload
            out.writeInt(REQUEST_HEADER + payload.length);
            out.writeLong(exchange);
            out.writeLong(sentBefore);
            out.writeInt(waitMillis);
            out.writeByte(REQUEST);
            out.write(payload);
            out.flush();
            return;
        }
        writeBody(out, ByteBuffer.allocate(REQUEST_HEADER + payload.length).putLong(exchange).putLong(sentBefore)
                .putInt(waitMillis).put(REQUEST).put(payload).array(), link);
    }

    /** A {@link #ONE_WAYS} request; {@code payloadLength} is {@link #oneWaysLength} of the messages. */
    void writeOneWays(DataOutputStream out, LaneLink link, long exchange, long sentBefore, int waitMillis,
                      List<byte[]> messages, int payloadLength) throws IOException {
        if (sealer == null) { // written as it goes: no copy of the messages
            out.writeInt(REQUEST_HEADER + payloadLength);
            out.writeLong(exchange);
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
        ByteBuffer b = ByteBuffer.allocate(REQUEST_HEADER + payloadLength).putLong(exchange).putLong(sentBefore)
                .putInt(waitMillis).put(ONE_WAYS).putInt(messages.size());
        for (byte[] m : messages) {
            b.putInt(m.length).put(m);
        }
        writeBody(out, b.array(), link);
    }

    Request readRequest(DataInputStream in, LaneLink link) throws IOException, MalformedLaneFrame {
        if (sealer == null) {
            return readRequestBody(in, readLength(in, REQUEST_HEADER + MAX_PAYLOAD));
        }
        byte[] body = readBody(in, REQUEST_HEADER + MAX_PAYLOAD, link);
        return readRequestBody(new DataInputStream(new ByteArrayInputStream(body)), body.length);
    }

    /** A request's {@code length} bytes after its length, from {@code in}: plain off the socket, or as opened. */
    private static Request readRequestBody(DataInputStream in, int length) throws IOException, MalformedLaneFrame {
        if (length < REQUEST_HEADER) {
            throw new MalformedLaneFrame("request of " + length + " bytes");
        }
        long exchange = in.readLong();
        long sentBefore = in.readLong();
        int wait = in.readInt();
        byte kind = kind(in.readByte());
        int payloadLength = length - REQUEST_HEADER;
        if (kind == ONE_WAYS) {
            return new Request(exchange, sentBefore, wait, kind, null, readOneWays(in, payloadLength));
        }
        byte[] payload = new byte[payloadLength];
        in.readFully(payload);
        return new Request(exchange, sentBefore, wait, kind, payload, null);
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

    /** The reply to the request {@code exchange}. */
    void writeReply(DataOutputStream out, LaneLink link, long exchange, byte status, byte[] payload) throws IOException {
        byte[] p = payload == null ? new byte[0] : payload;
        if (sealer == null) {
            out.writeInt(REPLY_HEADER + p.length);
            out.writeLong(exchange);
            out.writeByte(status);
            out.write(p);
            out.flush();
            return;
        }
        writeBody(out, ByteBuffer.allocate(REPLY_HEADER + p.length).putLong(exchange).put(status).put(p).array(), link);
    }

    Reply readReply(DataInputStream in, LaneLink link, int maxPayload) throws IOException, MalformedLaneFrame {
        ByteBuffer body = ByteBuffer.wrap(readBody(in, REPLY_HEADER + maxPayload, link));
        if (body.remaining() < REPLY_HEADER) {
            throw new MalformedLaneFrame("not a data lane reply");
        }
        long exchange = body.getLong();
        byte status = body.get();
        if (status < REPLIED || status > NOT_HANDLED) {
            throw new MalformedLaneFrame("not a data lane reply (status " + status + ")");
        }
        byte[] payload = new byte[body.remaining()];
        body.get(payload);
        return new Reply(exchange, status, payload);
    }

    /** {@code plain} as a frame: sealed bound to {@code link}'s next written frame (null: the hello), or plain. */
    private void writeBody(DataOutputStream out, byte[] plain, LaneLink link) throws IOException {
        byte[] body = sealer == null ? plain : link == null ? sealer.seal(plain) : sealer.seal(plain, link.nextWritten());
        out.writeInt(body.length);
        out.write(body);
        out.flush();
    }

    private byte[] readBody(DataInputStream in, int maxPlain, LaneLink link) throws IOException, MalformedLaneFrame {
        int length = readLength(in, maxPlain + (sealer == null ? 0 : SealedBytes.OVERHEAD));
        byte[] body = new byte[length];
        in.readFully(body);
        if (sealer == null) {
            return body;
        }
        try {
            return sealer.open(body, link == null ? null : link.nextRead());
        } catch (SealedBytes.Refused e) {
            throw new MalformedLaneFrame("refused by cluster-key (not sealed for this connection, direction, pair of"
                    + " nodes and place in it, or not at all): " + e.getMessage());
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
