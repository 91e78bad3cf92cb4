package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.ObjectMap;
import io.sessionrep.core.serial.ClassLayout.Kind;
import io.sessionrep.core.serial.ClassLayout.Slot;

import java.lang.reflect.InvocationTargetException;

/**
 * An application class (or record) in the {@link ValueFormat#NAMED_FIELDS} format: a schema the first time the
 * class occurs in a value, then the fields.
 * <pre>
 * schema : count (varint) | (name (string) | kind (1) | declared-type fingerprint (4)) * count
 *          | uid flag (1) [| serialVersionUID (8)]
 * fields : in the schema's order; a primitive in its own encoding (int and long as zig-zag varints), any other
 *          value as its length (varint) and a Kryo class-and-object
 * </pre>
 * Reading matches the writer's fields to this node's by name ({@link ClassLayout}): a field this class lacks is
 * skipped (its length says how far, so its class need not exist here), a field the writer lacked keeps its
 * default (a record component: null, zero or false), the order is the writer's. A field whose kind or declared
 * type differs, a value that is not of the field's type, differing declared {@code serialVersionUID}s, or a record
 * constructor that refuses the values make the whole value incompatible ({@link IncompatibleValueException}):
 * nothing is guessed. Bytes that contradict themselves (a value longer or shorter than its frame) are malformed.
 *
 * <p>Objects of other classes are created as Kryo creates them: with the no-argument constructor if there is one
 * (so a field the writer lacked keeps its initializer's value), else without a constructor (then at its JVM
 * default, as Java serialization leaves it).
 */
final class NamedFieldSerializer extends Serializer<Object> {
    /** Bytes a schema entry takes at least: a one-byte name, its kind, its fingerprint. */
    private static final int MIN_SCHEMA_ENTRY = 1 + 1 + 4;
    private static final byte[] ZEROS = new byte[5];

    private final ClassLayout layout;
    /** The schema exactly as this node writes it: what a writer of the same class version wrote, byte for byte. */
    private final byte[] ownSchema;
    /** How this node reads its own schema: every field to its own slot. */
    private final Resolved ownResolved;

    NamedFieldSerializer(Class<?> type) {
        this.layout = ClassLayout.of(type);
        Output schema = new Output(64, -1);
        writeSchema(layout, schema);
        this.ownSchema = schema.toBytes();
        Kind[] kinds = new Kind[layout.slots.length];
        int[] local = new int[layout.slots.length];
        for (int i = 0; i < local.length; i++) {
            kinds[i] = layout.slots[i].kind();
            local[i] = i;
        }
        this.ownResolved = new Resolved(kinds, local);
    }

    /** The writer's schema as this node reads it: for each written field, this class's slot or -1. */
    private record Resolved(Kind[] kinds, int[] local) {
    }

    @Override
    public void write(Kryo kryo, Output output, Object object) {
        if (layout.inaccessible != null) {
            throw new KryoException(new UnsupportedValueException(layout.type.getName(), layout.inaccessible));
        }
        ObjectMap<Object, Object> context = kryo.getGraphContext();
        if (!context.containsKey(this)) {
            context.put(this, null);
            output.writeBytes(ownSchema);
        }
        try {
            for (Slot slot : layout.slots) {
                writeSlot(kryo, output, slot, object);
            }
        } catch (IllegalAccessException e) {
            throw new KryoException("cannot read a field of " + layout.type.getName() + ": " + e, e);
        }
    }

    private static void writeSchema(ClassLayout layout, Output output) {
        output.writeVarInt(layout.slots.length, true);
        for (Slot slot : layout.slots) {
            output.writeString(slot.name());
            output.writeByte(slot.kind().ordinal());
            output.writeInt(slot.typeHash());
        }
        if (layout.serialVersionUid != null) {
            output.writeByte(1);
            output.writeLong(layout.serialVersionUid);
        } else {
            output.writeByte(0);
        }
    }

    private static void writeSlot(Kryo kryo, Output output, Slot slot, Object object) throws IllegalAccessException {
        var f = slot.field();
        switch (slot.kind()) {
            case BOOLEAN -> output.writeBoolean(f.getBoolean(object));
            case BYTE -> output.writeByte(f.getByte(object));
            case CHAR -> output.writeChar(f.getChar(object));
            case SHORT -> output.writeShort(f.getShort(object));
            case INT -> output.writeVarInt(f.getInt(object), false);
            case LONG -> output.writeVarLong(f.getLong(object), false);
            case FLOAT -> output.writeFloat(f.getFloat(object));
            case DOUBLE -> output.writeDouble(f.getDouble(object));
            case REFERENCE -> writeFramed(kryo, output, f.get(object));
        }
    }

    /**
     * The value behind its length. One byte is kept for the length, which nearly every field value fits; a longer
     * value is moved up by the bytes its length takes beyond that (the output is one array, never flushed).
     */
    private static void writeFramed(Kryo kryo, Output output, Object value) {
        int lengthAt = output.position();
        output.writeByte(0);
        kryo.writeClassAndObject(output, value);
        int length = output.position() - lengthAt - 1;
        int lengthBytes = Output.varIntLength(length, true);
        if (lengthBytes > 1) {
            output.writeBytes(ZEROS, 0, lengthBytes - 1);
            byte[] buffer = output.getBuffer();
            System.arraycopy(buffer, lengthAt + 1, buffer, lengthAt + lengthBytes, length);
        }
        int end = output.position();
        output.setPosition(lengthAt);
        output.writeVarInt(length, true);
        output.setPosition(end);
    }

    @Override
    public Object read(Kryo kryo, Input input, Class<?> type) {
        ObjectMap<Object, Object> context = kryo.getGraphContext();
        Resolved resolved = (Resolved) context.get(this);
        if (resolved == null) {
            resolved = isOwnSchemaNext(input) ? ownResolved : readSchema(input);
            context.put(this, resolved);
        }
        if (layout.isRecord()) {
            Object[] components = new Object[layout.slots.length];
            for (int i = 0; i < components.length; i++) {
                components[i] = defaultValue(layout.slots[i].rawType());
            }
            for (int i = 0; i < resolved.kinds.length; i++) {
                int local = resolved.local[i];
                Object value = readValue(kryo, input, resolved.kinds[i], local < 0 ? null : layout.slots[local]);
                if (local >= 0) {
                    components[local] = value;
                }
            }
            return construct(components);
        }
        if (layout.inaccessible != null) {
            throw incompatible(null, layout.inaccessible);
        }
        Object object = kryo.newInstance(type);
        try {
            for (int i = 0; i < resolved.kinds.length; i++) {
                int local = resolved.local[i];
                Slot slot = local < 0 ? null : layout.slots[local];
                Object value = readValue(kryo, input, resolved.kinds[i], slot);
                if (slot != null) {
                    slot.field().set(object, value);
                }
            }
        } catch (IllegalAccessException e) {
            throw new KryoException("cannot set a field of " + layout.type.getName() + ": " + e, e);
        }
        return object;
    }

    /**
     * Whether the input continues with this node's own schema (a writer of the same class version, the usual case);
     * if so, skips it: no names to read or look up.
     */
    private boolean isOwnSchemaNext(Input input) {
        int at = input.position();
        if (input.limit() - at < ownSchema.length
                || !java.util.Arrays.equals(input.getBuffer(), at, at + ownSchema.length, ownSchema, 0, ownSchema.length)) {
            return false;
        }
        input.setPosition(at + ownSchema.length);
        return true;
    }

    private Resolved readSchema(Input input) {
        int count = input.readVarInt(true);
        BoundedInput.requireElements(input, (long) count * MIN_SCHEMA_ENTRY, "schema of " + layout.type.getName());
        Kind[] kinds = new Kind[count];
        int[] local = new int[count];
        for (int i = 0; i < count; i++) {
            String name = input.readString();
            int code = input.readByte();
            Kind kind = Kind.ofCode(code);
            if (name == null || kind == null) {
                throw new KryoException("malformed schema of " + layout.type.getName() + ": field " + i);
            }
            int typeHash = input.readInt();
            kinds[i] = kind;
            local[i] = layout.indexOf(name);
            if (local[i] >= 0) {
                Slot slot = layout.slots[local[i]];
                if (slot.kind() != kind || slot.typeHash() != typeHash) {
                    throw incompatible(name, "its declared type changed (here " + slot.typeName() + ")");
                }
            }
        }
        int uidFlag = input.readByte();
        if (uidFlag == 1) {
            long written = input.readLong();
            if (layout.serialVersionUid != null && layout.serialVersionUid != written) {
                throw incompatible(null, "serialVersionUID changed (written " + written + ", here "
                        + layout.serialVersionUid + ")");
            }
        } else if (uidFlag != 0) {
            throw new KryoException("malformed schema of " + layout.type.getName() + ": uid flag " + uidFlag);
        }
        return new Resolved(kinds, local);
    }

    /** Reads one written field; {@code slot} null: a field this class lacks, skipped (returns null). */
    private Object readValue(Kryo kryo, Input input, Kind kind, Slot slot) {
        switch (kind) {
            case BOOLEAN:
                return input.readBoolean();
            case BYTE:
                return input.readByte();
            case CHAR:
                return input.readChar();
            case SHORT:
                return input.readShort();
            case INT:
                return input.readVarInt(false);
            case LONG:
                return input.readVarLong(false);
            case FLOAT:
                return input.readFloat();
            case DOUBLE:
                return input.readDouble();
            default:
                break;
        }
        int length = input.readVarInt(true);
        BoundedInput.requireElements(input, length, "field of " + layout.type.getName());
        int end = input.position() + length;
        if (slot == null) {
            input.setPosition(end);
            return null;
        }
        Object value = kryo.readClassAndObject(input);
        if (input.position() != end) {
            throw new KryoException("field " + slot.name() + " of " + layout.type.getName() + " took "
                    + (input.position() - end + length) + " bytes, its frame says " + length);
        }
        if (value != null && !slot.rawType().isInstance(value)) {
            throw incompatible(slot.name(), "holds a " + value.getClass().getName() + ", which is not a "
                    + slot.typeName());
        }
        return value;
    }

    private Object construct(Object[] components) {
        try {
            return layout.canonical.newInstance(components);
        } catch (InvocationTargetException e) {
            throw incompatible(null, "its constructor refused the values read (" + e.getCause() + ")");
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            throw incompatible(null, "its constructor cannot take the values read (" + e + ")");
        }
    }

    private KryoException incompatible(String member, String reason) {
        return new KryoException(new IncompatibleValueException(layout.type.getName(), member, reason));
    }

    private static Object defaultValue(Class<?> type) {
        if (!type.isPrimitive()) {
            return null;
        }
        return switch (type.getName()) {
            case "boolean" -> false;
            case "byte" -> (byte) 0;
            case "char" -> (char) 0;
            case "short" -> (short) 0;
            case "int" -> 0;
            case "long" -> 0L;
            case "float" -> 0f;
            case "double" -> 0d;
            default -> null;
        };
    }
}
