package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.io.Output;

import java.io.IOException;
import java.io.NotSerializableException;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Session values as Kryo bytes, in either {@link ValueFormat}, through one pool ({@link StripedPool}) of
 * {@link SessionKryo}s per format (see there for the hardening: no references, a depth limit, sizes bounded by the
 * bytes present, allowlisted class names on both sides, one serializer per JDK type known to round-trip exactly
 * and a refusal for the others). Values are written in the format the caller names and read in the format their
 * first byte says.
 *
 * <p>A {@link ValueFormat#NAMED_FIELDS} value is its marker byte, its class table ({@link ClassTableResolver}:
 * a count and the names) and the Kryo value, whose classes refer to the table by index.
 *
 * <p>Failure contract: any {@link Throwable} while writing (including {@link StackOverflowError}) is a
 * {@link NotSerializableException} (an {@link UnsupportedValueException} when a class or shape is
 * refused); any {@code Throwable} while reading is a {@link ClassNotAllowedException}, an
 * {@link IncompatibleValueException} (well-formed, but written by another version of a class in it) or an
 * {@link IOException}, and so are bytes left over after the value (a primary writes exactly one value). After a
 * failure the {@code Kryo} (and the {@code Output}) used is discarded, never returned to the pool: Kryo leaves
 * per-call state behind (Kryo issue #1281), and the next value it decoded could come out wrong without any error.
 *
 * <p>{@link #decodesToValue} recognizes a value that is a whole {@code byte[]} (its class header, its length,
 * exactly that many bytes) without copying the bytes into a new array; any other value is decoded in full.
 */
public final class KryoSessionSerializer implements SessionSerializer {
    private static final int MAX_BUFFER = 256 * 1024 * 1024;
    private static final int POOLED_BUFFER_LIMIT = 1024 * 1024;

    /** A Kryo with its output buffers: pooled together, so a value costs one pool round trip. */
    private static final class Tools {
        final SessionKryo kryo;
        final Output output = new Output(4096, MAX_BUFFER);
        /** The marker and class table of a named-fields value. */
        final Output table = new Output(256, MAX_BUFFER);

        Tools(SessionKryo kryo) {
            this.kryo = kryo;
        }
    }

    private final Map<ValueFormat, StripedPool<Tools>> pools = new EnumMap<>(ValueFormat.class);
    /** What every value that is a {@code byte[]} starts with, per format: its class, as that Kryo writes it. */
    private final Map<ValueFormat, byte[]> byteArrayHeaders = new EnumMap<>(ValueFormat.class);

    public KryoSessionSerializer(ClassAllowlist allowlist, ClassLoader classLoader) {
        for (ValueFormat format : ValueFormat.values()) {
            pools.put(format, new StripedPool<>(32, () -> new Tools(new SessionKryo(allowlist, classLoader, format))));
        }
        for (ValueFormat format : ValueFormat.values()) {
            byteArrayHeaders.put(format, byteArrayHeader(format));
        }
    }

    /** An empty {@code byte[]} is its class header followed by its length + 1 (1, one varint byte). */
    private byte[] byteArrayHeader(ValueFormat format) {
        byte[] empty;
        try {
            empty = writeThroughKryo(new byte[0], format);
        } catch (NotSerializableException e) {
            throw new IllegalStateException("an empty byte[] cannot be written", e);
        }
        if (empty.length < 2 || empty[empty.length - 1] != 1) {
            throw new IllegalStateException("unexpected Kryo encoding of an empty byte[]: " + Arrays.toString(empty));
        }
        return Arrays.copyOf(empty, empty.length - 1);
    }

    /** {@link #serialize(Object, ValueFormat)} in {@link ValueFormat#NAMED_FIELDS}. */
    @Override
    public byte[] serialize(Object value) throws NotSerializableException {
        return serialize(value, ValueFormat.NAMED_FIELDS);
    }

    @Override
    public byte[] serialize(Object value, ValueFormat format) throws NotSerializableException {
        if (value instanceof byte[] array && array.length <= MAX_BUFFER - 64) {
            return wholeByteArray(array, format);
        }
        return writeThroughKryo(value, format);
    }

    /** The value as the pooled Kryo of {@code format} writes it (also what {@link #wholeByteArray} must equal). */
    byte[] writeThroughKryo(Object value, ValueFormat format) throws NotSerializableException {
        StripedPool<Tools> pool = pools.get(format);
        Tools tools = pool.obtain();
        Output output = tools.output;
        byte[] bytes;
        try {
            output.reset();
            tools.kryo.writeClassAndObject(output, value);
            bytes = format == ValueFormat.NAMED_FIELDS ? withClassTable(tools) : output.toBytes();
        } catch (Throwable t) { // the Kryo and the Output are dropped, not freed
            throw notSerializable(t, value);
        }
        if (output.getBuffer().length > POOLED_BUFFER_LIMIT) {
            output.setBuffer(new byte[4096], MAX_BUFFER); // do not pin large buffers in the pool
        }
        pool.free(tools); // the field-order Kryo resets itself after each top-level write or read (autoReset)
        return bytes;
    }

    /** The marker, the class table and the value written to {@code tools.output}, in one array; resets the Kryo. */
    private static byte[] withClassTable(Tools tools) {
        List<String> names = tools.kryo.classTable().writtenNames();
        Output table = tools.table;
        table.reset();
        table.writeByte(ValueFormat.NAMED_FIELDS_MARKER);
        table.writeVarInt(names.size(), true);
        for (String name : names) {
            table.writeString(name);
        }
        tools.kryo.reset();
        byte[] bytes = new byte[table.position() + tools.output.position()];
        System.arraycopy(table.getBuffer(), 0, bytes, 0, table.position());
        System.arraycopy(tools.output.getBuffer(), 0, bytes, table.position(), tools.output.position());
        return bytes;
    }

    /**
     * A {@code byte[]} value exactly as the format writes it (its class header, its length + 1 as Kryo's varint,
     * the bytes), written by Kryo's {@link Output} straight into an array of its final size: no pooled Kryo, and
     * the bytes are copied once instead of twice (into the pooled buffer, then out of it).
     */
    byte[] wholeByteArray(byte[] array, ValueFormat format) {
        byte[] header = byteArrayHeaders.get(format);
        int lengthPlusOne = array.length + 1;
        byte[] out = new byte[header.length + Output.varIntLength(lengthPlusOne, true) + array.length];
        Output output = new Output(out); // writes into out itself, which it cannot outgrow
        output.writeBytes(header);
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
        ValueFormat format = ValueFormat.of(bytes);
        StripedPool<Tools> pool = pools.get(format);
        Tools tools = pool.obtain();
        Object value;
        int leftOver;
        try {
            BoundedInput input = new BoundedInput(bytes);
            if (format == ValueFormat.NAMED_FIELDS) {
                input.setPosition(1);
                tools.kryo.classTable().readTable(input);
            }
            value = tools.kryo.readClassAndObject(input);
            leftOver = input.remaining();
            if (format == ValueFormat.NAMED_FIELDS) {
                tools.kryo.reset();
            }
        } catch (Throwable t) { // the Kryo is dropped, not freed
            for (Throwable c = t; c != null; c = c.getCause()) {
                if (c instanceof ClassNotAllowedException rejected) {
                    throw rejected;
                }
                if (c instanceof IncompatibleValueException incompatible) {
                    throw incompatible;
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

    @Override
    public byte[] transcode(byte[] bytes, ValueFormat format) throws ClassNotAllowedException, IOException {
        if (ValueFormat.of(bytes) == format) {
            return bytes;
        }
        return serialize(deserialize(bytes), format);
    }

    /**
     * Whether {@code bytes} are exactly one {@code byte[]} value: the class header of their format, then its
     * length + 1 as a varint (Kryo's array encoding, 1 to 5 bytes, 7 bits each, low bits first), then exactly that
     * many bytes. {@link #deserialize} would return such an array, with nothing left over. False means "decode
     * it to know", not "invalid".
     */
    boolean isWholeByteArray(byte[] bytes) {
        byte[] byteArrayHeader = byteArrayHeaders.get(ValueFormat.of(bytes));
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
