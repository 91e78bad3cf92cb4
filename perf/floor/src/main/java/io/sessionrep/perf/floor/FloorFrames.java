package io.sessionrep.perf.floor;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * The floor's frames on the socket, each a kind byte and then:
 * <pre>
 * SET      id (UTF), name (UTF), BYTES + length (int) + the bytes | INT + the value (int)
 * REMOVE   id (UTF), name (UTF)
 * DESTROY  id (UTF)
 * END      nothing: a sync request's changes are all written; the peer answers one ACK byte once it has
 *          stored them
 * </pre>
 * A byte array goes onto the socket as it is, from the application's own array: no copy, no serializer.
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
     * Writes {@code change}; returns the value bytes written (0 for anything but a SET of a byte array).
     *
     * @return -1 when the value is of a type the floor does not copy (it writes nothing then)
     */
    static long write(DataOutputStream out, Change change) throws IOException {
        if (change instanceof Change.Set set) {
            if (set.value() instanceof byte[] bytes) {
                header(out, SET, set.id()).writeUTF(set.name());
                out.writeByte(BYTES);
                out.writeInt(bytes.length);
                out.write(bytes);
                return bytes.length;
            }
            if (set.value() instanceof Integer i) {
                header(out, SET, set.id()).writeUTF(set.name());
                out.writeByte(INT);
                out.writeInt(i);
                return 0;
            }
            return -1;
        }
        if (change instanceof Change.Remove remove) {
            header(out, REMOVE, remove.id()).writeUTF(remove.name());
        } else {
            header(out, DESTROY, change.id());
        }
        return 0;
    }

    private static DataOutputStream header(DataOutputStream out, int kind, String id) throws IOException {
        out.writeByte(kind);
        out.writeUTF(id);
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
