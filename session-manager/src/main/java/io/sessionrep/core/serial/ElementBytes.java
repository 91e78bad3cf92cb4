package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.IntArray;

/**
 * The writer's half of the size rule of {@link BoundedInput#requireElements}: a receiver refuses a
 * container that declares more elements than bytes remain, so the primary refuses, at write time, a
 * container whose elements took fewer bytes than their count (a list of only nulls, or of field-less
 * objects written without a marker). What encodes therefore always decodes.
 *
 * <p>One instance per serializer instance (a {@code Kryo} and its serializers are used by one thread at
 * a time); {@link #mark} and {@link #check} nest like the containers being written.
 */
final class ElementBytes {
    private final IntArray starts = new IntArray();

    /** Call where the container's elements begin. */
    void mark(Output output) {
        starts.add((int) output.total());
    }

    /** Call after the container was written; pairs with the latest {@link #mark}. */
    void check(Output output, Object container, int elements) {
        long written = output.total() - starts.pop();
        if (written < elements) {
            throw new KryoException(new UnsupportedValueException(container.getClass().getName(),
                    elements + " elements written in " + written + " bytes (e.g. only nulls); a receiver refuses "
                            + "containers declaring more elements than bytes, so this value is not replicated: "
                            + "drop the null or empty elements"));
        }
    }
}
