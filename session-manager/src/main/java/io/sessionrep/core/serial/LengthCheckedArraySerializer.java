package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;

/**
 * Wraps one of Kryo's array serializers (which all start with the length + 1 as a varint, 0 for null)
 * and checks that length against the bytes left before the wrapped serializer allocates the array:
 * Kryo's {@code Object[]}, {@code String[]} and {@code boolean[]} serializers allocate first, so a
 * 10-byte value could otherwise declare a 2 GB array (Kryo issue #1282). On write, an array whose
 * elements took fewer bytes than their count is refused, as for collections ({@link ElementBytes}).
 */
@SuppressWarnings({"rawtypes", "unchecked"})
final class LengthCheckedArraySerializer extends Serializer<Object> {
    private final Serializer delegate;

    LengthCheckedArraySerializer(Serializer<?> delegate) {
        super(true, false); // Kryo's array serializers accept null and are not immutable
        this.delegate = delegate;
    }

    @Override
    public void write(Kryo kryo, Output output, Object array) {
        long start = output.total();
        delegate.write(kryo, output, array);
        if (array != null) {
            int length = java.lang.reflect.Array.getLength(array);
            long elementBytes = output.total() - start - Output.varIntLength(length + 1, true);
            if (elementBytes < length) {
                throw new com.esotericsoftware.kryo.KryoException(new UnsupportedValueException(
                        array.getClass().getName(), length + " elements written in " + elementBytes
                        + " bytes; a receiver refuses arrays declaring more elements than bytes"));
            }
        }
    }

    @Override
    public Object read(Kryo kryo, Input input, Class type) {
        int start = input.position();
        int lengthPlusOne = input.readVarInt(true);
        if (lengthPlusOne != 0) { // 0: null
            BoundedInput.requireElements(input, lengthPlusOne - 1L, type.getName());
        }
        input.setPosition(start);
        return delegate.read(kryo, input, type);
    }
}
