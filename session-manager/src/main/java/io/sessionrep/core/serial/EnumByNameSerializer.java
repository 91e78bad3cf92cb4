package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.ImmutableSerializer;

/**
 * An enum constant by its name ({@link ValueFormat#NAMED_FIELDS}): constants added, removed or reordered in
 * another version of the enum leave the others readable. A name this enum does not have is an incompatible
 * value, not another constant.
 */
@SuppressWarnings({"rawtypes", "unchecked"})
final class EnumByNameSerializer extends ImmutableSerializer<Enum> {
    private final Class<? extends Enum> enumType;

    EnumByNameSerializer(Class<?> type) {
        Class<?> declaring = type;
        while (declaring != null && !declaring.isEnum()) { // a constant with a body is a subclass of its enum
            declaring = declaring.getSuperclass();
        }
        if (declaring == null) {
            throw new IllegalArgumentException("not an enum: " + type.getName());
        }
        this.enumType = (Class<? extends Enum>) declaring;
    }

    @Override
    public void write(Kryo kryo, Output output, Enum constant) {
        output.writeString(constant.name());
    }

    @Override
    public Enum read(Kryo kryo, Input input, Class type) {
        String name = input.readString();
        if (name == null) {
            throw new KryoException("enum constant of " + enumType.getName() + " without a name");
        }
        try {
            return Enum.valueOf(enumType, name);
        } catch (IllegalArgumentException e) {
            throw new KryoException(new IncompatibleValueException(enumType.getName(), name,
                    "no such constant in this version of the enum"));
        }
    }
}
