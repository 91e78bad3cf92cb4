package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;

/**
 * An {@link Input} over one complete value that refuses, before allocating, any bulk read (arrays,
 * byte runs, UTF-8 strings) declaring more elements than bytes remain. Every element of those reads
 * takes at least one byte, so a declared length above the remaining bytes can only be hostile: it is a
 * {@link KryoException}, never an allocation. Allocation is thus bounded by a small multiple of the
 * value's size (a {@code long[]} of n elements needs at least n bytes and takes 8n).
 */
final class BoundedInput extends Input {

    BoundedInput(byte[] value) {
        super(value);
    }

    /** Bytes left in the value after the current position. */
    int remaining() {
        return limit - position;
    }

    /** @throws KryoException when {@code count} elements of at least one byte each cannot fit in what remains */
    static void requireElements(Input input, long count, String what) {
        long remaining = input.limit() - input.position();
        if (count < 0 || count > remaining) {
            throw new KryoException(what + " declares " + count + " elements but only " + remaining
                    + " bytes remain in the value");
        }
    }

    @Override
    public byte[] readBytes(int length) {
        requireElements(this, length, "byte run");
        return super.readBytes(length);
    }

    @Override
    public int[] readInts(int length) {
        requireElements(this, length, "int array");
        return super.readInts(length);
    }

    @Override
    public int[] readInts(int length, boolean optimizePositive) {
        requireElements(this, length, "int array");
        return super.readInts(length, optimizePositive);
    }

    @Override
    public long[] readLongs(int length) {
        requireElements(this, length, "long array");
        return super.readLongs(length);
    }

    @Override
    public long[] readLongs(int length, boolean optimizePositive) {
        requireElements(this, length, "long array");
        return super.readLongs(length, optimizePositive);
    }

    @Override
    public float[] readFloats(int length) {
        requireElements(this, length, "float array");
        return super.readFloats(length);
    }

    @Override
    public double[] readDoubles(int length) {
        requireElements(this, length, "double array");
        return super.readDoubles(length);
    }

    @Override
    public short[] readShorts(int length) {
        requireElements(this, length, "short array");
        return super.readShorts(length);
    }

    @Override
    public char[] readChars(int length) {
        requireElements(this, length, "char array");
        return super.readChars(length);
    }

    @Override
    public boolean[] readBooleans(int length) {
        requireElements(this, length, "boolean array");
        return super.readBooleans(length);
    }

    /** A UTF-8 string declares its char count first; each char takes at least one byte. */
    @Override
    public String readString() {
        checkUtf8Length();
        return super.readString();
    }

    @Override
    public StringBuilder readStringBuilder() {
        checkUtf8Length();
        return super.readStringBuilder();
    }

    private void checkUtf8Length() {
        int start = position;
        if (readVarIntFlag()) { // UTF-8 with a length (ASCII strings are terminated, not counted)
            int charCount = readVarIntFlag(true); // 0: null, 1: empty, n: n - 1 chars
            if (charCount != 0) {
                requireElements(this, charCount - 1L, "string");
            }
            position = start;
        }
    }
}
