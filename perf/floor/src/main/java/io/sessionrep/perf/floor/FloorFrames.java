package io.sessionrep.perf.floor;

import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The floor's frames on the socket, each a kind byte and then:
 * <pre>
 * SET      id (UTF), name (UTF), BYTES + length (int) + the bytes | INT + the value (int)
 * REMOVE   id (UTF), name (UTF)
 * DESTROY  id (UTF)
 * END      nothing: a sync request's changes are all written; the peer answers one ACK byte once it has
 *          stored them
 * </pre>
 * Strings are written as {@link DataInputStream#readUTF} reads them (a 2-byte length, then modified UTF-8). A byte
 * array goes into the outgoing buffer as it is: one copy, no serializer.
 */
final class FloorFrames {

    static final int SET = 1;
    static final int REMOVE = 2;
    static final int DESTROY = 3;
    static final int END = 4;
    static final int ACK = 0x2A;
    static final int BYTES = 0;
    static final int INT = 1;
    /** The longest value a peer may announce (a bound, not a design: the floor runs on loopback only). */
    static final int MAX_VALUE = 64 * 1024 * 1024;

    private FloorFrames() {
    }

    /**
     * Writes {@code change} into {@code out}, which has room for {@link #maxLength} bytes; returns the value bytes
     * written (0 for anything but a SET of a byte array).
     *
     * @return -1 when the value is of a type the floor does not copy (it writes nothing then)
     */
    static long write(ByteBuffer out, Change change) {
        if (change instanceof Change.Set set) {
            if (set.value() instanceof byte[] bytes) {
                utf(header(out, SET, set.id()), set.name());
                out.put((byte) BYTES);
                out.putInt(bytes.length);
                out.put(bytes);
                return bytes.length;
            }
            if (set.value() instanceof Integer i) {
                utf(header(out, SET, set.id()), set.name());
                out.put((byte) INT);
                out.putInt(i);
                return 0;
            }
            return -1;
        }
        if (change instanceof Change.Remove remove) {
            utf(header(out, REMOVE, remove.id()), remove.name());
        } else {
            header(out, DESTROY, change.id());
        }
        return 0;
    }

    /** An upper bound of the bytes {@link #write} writes for {@code change}. */
    static int maxLength(Change change) {
        int strings = 2 + 3 * change.id().length();
        if (change instanceof Change.Set set) {
            strings += 2 + 3 * set.name().length();
            return 1 + strings + 1 + 4 + (set.value() instanceof byte[] bytes ? bytes.length : 0);
        }
        return 1 + strings + (change instanceof Change.Remove remove ? 2 + 3 * remove.name().length() : 0);
    }

    private static ByteBuffer header(ByteBuffer out, int kind, String id) {
        out.put((byte) kind);
        return utf(out, id);
    }

    /** {@code s} as {@link java.io.DataOutput#writeUTF} writes it (at most 65,535 encoded bytes). */
    private static ByteBuffer utf(ByteBuffer out, String s) {
        int lengthAt = out.position();
        out.putShort((short) 0);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x0001 && c <= 0x007F) {
                out.put((byte) c);
            } else if (c <= 0x07FF) {
                out.put((byte) (0xC0 | (c >> 6))).put((byte) (0x80 | (c & 0x3F)));
            } else {
                out.put((byte) (0xE0 | (c >> 12))).put((byte) (0x80 | ((c >> 6) & 0x3F))).put((byte) (0x80 | (c & 0x3F)));
            }
        }
        int length = out.position() - lengthAt - 2;
        if (length > 65_535) {
            throw new IllegalArgumentException("a string of " + length + " encoded bytes: longer than writeUTF allows");
        }
        out.putShort(lengthAt, (short) length);
        return out;
    }

    /** The value of a SET frame, after its id and name. */
    static Object readValue(DataInputStream in) throws IOException {
        int type = in.readUnsignedByte();
        if (type == INT) {
            return in.readInt();
        }
        if (type != BYTES) {
            throw new IOException("unknown value type " + type);
        }
        int length = in.readInt();
        if (length < 0 || length > MAX_VALUE) {
            throw new IOException("value length " + length + " outside 0.." + MAX_VALUE);
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }
}
