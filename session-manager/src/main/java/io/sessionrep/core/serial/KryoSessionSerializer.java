package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Output;

import java.io.IOException;
import java.io.NotSerializableException;
import java.util.Arrays;

/**
 * Session values as Kryo bytes, through a pool ({@link StripedPool}) of {@link SessionKryo}s (see there for the hardening:
 * no references, a depth limit, sizes bounded by the bytes present, allowlisted class names on both
 * sides, one serializer per JDK type known to round-trip exactly and a refusal for the others).
 *
 * <p>Failure contract: any {@link Throwable} while writing (including {@link StackOverflowError}) is a
 * {@link NotSerializableException} (an {@link UnsupportedValueException} when a class or shape is
 * refused); any {@code Throwable} while reading is a {@link ClassNotAllowedException} or an
 * {@link IOException}, and so are bytes left over after the value (a primary writes exactly one value). After a failure the {@code Kryo} (and the {@code Output}) used is discarded, never
 * returned to the pool: Kryo leaves per-call state behind (Kryo issue #1281), and the next value it
 * decoded could come out wrong without any error.
 *
 * <p>{@link #decodesToValue} recognizes a value that is a whole {@code byte[]} (its class header, its length,
 * exactly that many bytes) without copying the bytes into a new array; any other value is decoded in full.
 */
public final class KryoSessionSerializer implements SessionSerializer {
    private static final int MAX_BUFFER = 256 * 1024 * 1024;
    private static final int POOLED_BUFFER_LIMIT = 1024 * 1024;

    /** A Kryo with its output buffer: pooled together, so a value costs one pool round trip. */
    private static final class Tools {
        final Kryo kryo;
        final Output output = new Output(4096, MAX_BUFFER);

        Tools(Kryo kryo) {
            this.kryo = kryo;
        }
    }

    private final StripedPool<Tools> pool;
    /** What every value that is a {@code byte[]} starts with: its class, as this Kryo writes it. */
    private final byte[] byteArrayHeader;

    public KryoSessionSerializer(ClassAllowlist allowlist, ClassLoader classLoader) {
        this.pool = new StripedPool<>(32, () -> new Tools(new SessionKryo(allowlist, classLoader)));
        this.byteArrayHeader = byteArrayHeader(new SessionKryo(allowlist, classLoader));
    }

    /** An empty {@code byte[]} is its class header followed by its length + 1 (1, one varint byte). */
    private static byte[] byteArrayHeader(Kryo kryo) {
        Output output = new Output(64);
        kryo.writeClassAndObject(output, new byte[0]);
        byte[] empty = output.toBytes();
        if (empty.length < 2 || empty[empty.length - 1] != 1) {
            throw new IllegalStateException("unexpected Kryo encoding of an empty byte[]: " + Arrays.toString(empty));
        }
        return Arrays.copyOf(empty, empty.length - 1);
    }

    @Override
    public byte[] serialize(Object value) throws NotSerializableException {
        if (value instanceof byte[] array && array.length <= MAX_BUFFER - 16) {
            return wholeByteArray(array);
        }
        Tools tools = pool.obtain();
        Output output = tools.output;
        byte[] bytes;
        try {
            output.reset();
            tools.kryo.writeClassAndObject(output, value);
            bytes = output.toBytes();
        } catch (Throwable t) { // the Kryo and the Output are dropped, not freed
            throw notSerializable(t, value);
        }
        if (output.getBuffer().length > POOLED_BUFFER_LIMIT) {
            output.setBuffer(new byte[4096], MAX_BUFFER); // do not pin large buffers in the pool
        }
        pool.free(tools); // no reset here: Kryo resets itself after each top-level write or read (autoReset)
        return bytes;
    }

    /**
     * A {@code byte[]} value exactly as {@code writeClassAndObject} writes it (the class header, its length + 1
     * as Kryo's varint, the bytes), written by Kryo's {@link Output} straight into an array of its final size: no
     * pooled Kryo, and the bytes are copied once instead of twice (into the pooled buffer, then out of it).
     */
    byte[] wholeByteArray(byte[] array) {
        int lengthPlusOne = array.length + 1;
        byte[] out = new byte[byteArrayHeader.length + Output.varIntLength(lengthPlusOne, true) + array.length];
        Output output = new Output(out); // writes into out itself, which it cannot outgrow
        output.writeBytes(byteArrayHeader);
        output.writeVarInt(lengthPlusOne, true);
        output.writeBytes(array);
        return out;
    }

    private static NotSerializableException notSerializable(Throwable failure, Object value) {
        NotSerializableException result = null;
        for (Throwable t = failure; t != null && result == null; t = t.getCause()) {
            if (t instanceof NotSerializableException nse) {
                result = nse instanceof UnsupportedValueException u
                        ? new UnsupportedValueException(u.className(), reasonOf(u)) : new NotSerializableException(nse.getMessage());
            }
        }
        if (result == null) {
            String type = value == null ? "null" : value.getClass().getName();
            String reason = failure instanceof StackOverflowError || String.valueOf(failure.getMessage()).startsWith("Max depth")
                    ? "nested deeper than " + SessionKryo.MAX_DEPTH + " levels, or cyclic (references inside a value are "
                    + "not replicated): flatten it or break the cycle"
                    : failure.toString();
            result = new UnsupportedValueException(type, reason);
        }
        result.initCause(failure);
        return result;
    }

    private static String reasonOf(UnsupportedValueException e) {
        return e.getMessage().substring(e.className().length() + 2);
    }

    @Override
    public Object deserialize(byte[] bytes) throws ClassNotAllowedException, IOException {
        Tools tools = pool.obtain();
        Object value;
        int leftOver;
        try {
            BoundedInput input = new BoundedInput(bytes);
            value = tools.kryo.readClassAndObject(input);
            leftOver = input.remaining();
        } catch (Throwable t) { // the Kryo is dropped, not freed
            for (Throwable c = t; c != null; c = c.getCause()) {
                if (c instanceof ClassNotAllowedException rejected) {
                    throw rejected;
                }
            }
            throw new IOException(t.toString(), t);
        }
        pool.free(tools);
        if (leftOver != 0) {
            throw new IOException(leftOver + " bytes after the end of the value");
        }
        return value;
    }

    @Override
    public boolean decodesToValue(byte[] bytes) throws ClassNotAllowedException, IOException {
        return isWholeByteArray(bytes) || deserialize(bytes) != null;
    }

    /**
     * Whether {@code bytes} are exactly one {@code byte[]} value: the class header, then its length + 1 as a
     * varint (Kryo's array encoding, 1 to 5 bytes, 7 bits each, low bits first), then exactly that many
     * bytes. {@link #deserialize} would return such an array, with nothing left over. False means "decode
     * it to know", not "invalid".
     */
    boolean isWholeByteArray(byte[] bytes) {
        int header = byteArrayHeader.length;
        if (bytes.length <= header || !Arrays.equals(bytes, 0, header, byteArrayHeader, 0, header)) {
            return false;
        }
        long lengthPlusOne = 0;
        int position = header;
        for (int shift = 0; shift < 35 && position < bytes.length; shift += 7) {
            int b = bytes[position++];
            lengthPlusOne |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return lengthPlusOne >= 1 && lengthPlusOne - 1 == bytes.length - position;
            }
        }
        return false;
    }
}
