package io.sessionrep.transport.jgroups;

import io.sessionrep.transport.jgroups.lane.DataLane;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.Header;
import org.jgroups.Message;
import org.jgroups.conf.ClassConfigurator;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * How this transport frames the core's bytes: the payload of a JGroups message is the core's byte array
 * itself, and a small JGroups header ({@link FrameHeader}) says what it is:
 * <pre>
 * version    format version ({@value #VERSION})
 * kind       0 one-way, 1 request, 2 reply, 3 failure (the reply to a request that got none), 4 barrier (a
 *            request the receiving transport answers itself, once it has delivered everything sent before it)
 * id         correlation id (0 for one-way messages)
 * position   for one-way messages, requests and barriers: the message's {@link DataLane#position position} in its sender's
 *            stream to this node, set as it is handed to the channel (0 for replies)
 * </pre>
 * Neither side copies the payload to put a frame around it or to strip it: a sent array goes out as is, and
 * a received message's array is handed to the core when it is exactly the payload (as JGroups reads it).
 * With {@code cluster-key}, the sealing protocol seals the whole message, this header included.
 */
final class WireFormat {

    static final byte VERSION = 3;
    /** The header's key in a message, and its magic id for JGroups' serialization (custom ids start at 1024). */
    static final short HEADER_ID = 3712;

    static {
        ClassConfigurator.addIfAbsent(HEADER_ID, FrameHeader.class);
    }

    /**
     * Called before a channel starts: initializing this class registers the header (above), and a node that has
     * not sent anything yet must still read what others send it. Fails if another header class already holds
     * {@link #HEADER_ID} in this JGroups (then {@code addIfAbsent} registered nothing and no frame could be read).
     */
    static void registerHeader() {
        if (ClassConfigurator.getMagicNumber(FrameHeader.class) != HEADER_ID) {
            throw new IllegalStateException("JGroups magic id " + HEADER_ID + " is already taken by another header class"
                    + " (another copy of sessionrep, or another library, sharing this JGroups): the sessionrep frame"
                    + " header cannot be registered");
        }
    }

    enum Kind {
        ONE_WAY, REQUEST, REPLY, FAILURE, BARRIER;

        private static final Kind[] BY_CODE = values();
    }

    /** A decoded frame; {@code payload} is the receiver's to keep (nobody else holds it). */
    record Frame(Kind kind, long correlationId, long position, byte[] payload) {
        String payloadAsText() {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    /** A frame that cannot be read; the message says why. */
    static final class MalformedFrameException extends Exception {
        MalformedFrameException(String message) {
            super(message);
        }
    }

    private WireFormat() {
    }

    /** A message to {@code destination} carrying {@code payload} as is; the caller must not change the array. */
    static Message message(Address destination, Kind kind, long correlationId, byte[] payload) {
        return new BytesMessage(destination, payload).putHeader(HEADER_ID, new FrameHeader(VERSION, kind.ordinal(), correlationId));
    }

    /** Sets the {@link DataLane#position position} of a message made by {@link #message}, as it is handed to the channel. */
    static void placeAt(Message message, long position) {
        ((FrameHeader) message.getHeader(HEADER_ID)).position = position;
    }

    static Message failure(Address destination, long correlationId, String reason) {
        return message(destination, Kind.FAILURE, correlationId, reason.getBytes(StandardCharsets.UTF_8));
    }

    static Frame read(Message message) throws MalformedFrameException {
        if (!(message.getHeader(HEADER_ID) instanceof FrameHeader header)) {
            throw new MalformedFrameException("message without a sessionrep frame header (a node of an older release,"
                    + " or not one of ours)");
        }
        if (header.version != VERSION) {
            throw new MalformedFrameException("frame version " + header.version + " is not supported; this node "
                    + "speaks version " + VERSION + " (mixed releases in one cluster?)");
        }
        if (header.kind < 0 || header.kind >= Kind.BY_CODE.length) {
            throw new MalformedFrameException("frame kind " + header.kind + " is unknown");
        }
        if (!message.hasArray()) {
            throw new MalformedFrameException("message without a byte[] payload");
        }
        return new Frame(Kind.BY_CODE[header.kind], header.correlationId, header.position, payloadOf(message));
    }

    /** The message's array when it is exactly the payload (as received), otherwise a copy of the payload. */
    private static byte[] payloadOf(Message message) {
        byte[] array = message.getArray(); // not null: read() checked hasArray()
        int offset = message.getOffset();
        int length = message.getLength();
        return offset == 0 && length == array.length ? array : Arrays.copyOfRange(array, offset, offset + length);
    }

    /** The frame's header; public with a public no-argument constructor because JGroups creates it when reading. */
    public static final class FrameHeader extends Header {
        private byte version;
        private byte kind;
        private long correlationId;
        private long position;

        public FrameHeader() {
        }

        FrameHeader(byte version, int kind, long correlationId) {
            this.version = version;
            this.kind = (byte) kind;
            this.correlationId = correlationId;
        }

        /** A reply or a failure: the answer to a request of this node. */
        boolean isReply() {
            return kind == Kind.REPLY.ordinal() || kind == Kind.FAILURE.ordinal();
        }

        @Override
        public short getMagicId() {
            return HEADER_ID;
        }

        @Override
        public Supplier<? extends Header> create() {
            return FrameHeader::new;
        }

        @Override
        public int serializedSize() {
            return 2 + 2 * Long.BYTES;
        }

        @Override
        public void writeTo(DataOutput out) throws IOException {
            out.writeByte(version);
            out.writeByte(kind);
            out.writeLong(correlationId);
            out.writeLong(position);
        }

        @Override
        public void readFrom(DataInput in) throws IOException {
            version = in.readByte();
            kind = in.readByte();
            correlationId = in.readLong();
            position = in.readLong();
        }

        @Override
        public String toString() {
            return "sessionrep frame v" + version + " kind " + kind + " id " + correlationId + " at "
                    + DataLane.describe(position);
        }
    }
}
