package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.SerializerFactory;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import org.objenesis.strategy.StdInstantiatorStrategy;

import java.io.Externalizable;

/**
 * The Kryo configuration for session values, hardened against hostile bytes.
 *
 * <p><b>No references.</b> Kryo's reference tracking is off: a value is written and read as a tree.
 * With references on, a few hundred bytes can describe a graph whose tree is exponentially large (the
 * "SerialDOS" shape: nested {@code HashSet}s sharing their children), and hashing it while the sets are
 * rebuilt never finishes; a back-reference can also put a list inside itself, so that hashing it
 * overflows the stack. Without references the decoded value is a tree no bigger than its bytes, so the
 * work spent hashing while reading is bounded by depth &times; size. The price: shared objects inside
 * one attribute value arrive as equal copies rather than one instance, and a cyclic value is refused on
 * the primary (it exceeds the depth limit while being written). Refusing back-references only into
 * hash-based collections would not be enough: a list or an {@code Optional} can carry the sharing below
 * one set, and {@code hashCode} follows it.
 *
 * <p><b>Depth.</b> {@link #MAX_DEPTH} nested objects, on write (refused on the primary) and on read
 * (rejected on the backup), well before a thread's stack is exhausted.
 *
 * <p><b>Sizes</b> are checked by {@link BoundedInput} and the serializers {@link ValueTypes} chooses.
 *
 * <p><b>Format.</b> {@link ValueFormat#FIELD_ORDER}: application classes by Kryo's {@code FieldSerializer}, records by
 * its {@code RecordSerializer}, enums by ordinal. {@link ValueFormat#NAMED_FIELDS}: application classes and
 * records by {@link NamedFieldSerializer}, every enum by name ({@link EnumByNameSerializer}), class names in one
 * table per value ({@link ClassTableResolver}). Everything else (JDK values, collections, arrays, the Java
 * serialization fallback) is the same in both.
 *
 * <p>Class names are checked against the allowlist on both sides ({@link AllowlistClassResolver}).
 * A {@code SessionKryo} is used by one thread at a time and is thrown away after any failure: Kryo keeps
 * per-call state (depth, generics, class-name table) that a failed call leaves inconsistent (Kryo issue
 * #1281).
 */
final class SessionKryo extends Kryo {
    /** Nesting levels a value may have; each object, collection element or field value is one level. */
    static final int MAX_DEPTH = 100;

    private final ValueFormat format;

    SessionKryo(ClassAllowlist allowlist, ClassLoader classLoader, ValueFormat format) {
        super(format == ValueFormat.NAMED_FIELDS ? new ClassTableResolver(allowlist) : new AllowlistClassResolver(allowlist),
                null);
        this.format = format;
        setReferences(false);
        setRegistrationRequired(false);
        setMaxDepth(MAX_DEPTH);
        setClassLoader(classLoader);
        setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        if (format == ValueFormat.NAMED_FIELDS) {
            setAutoReset(false); // the class table is read off the resolver after the value: reset by the caller
        }
        SerializerFactory.FieldSerializerFactory fields = new SerializerFactory.FieldSerializerFactory();
        setDefaultSerializer(new SerializerFactory<Serializer<?>>() {
            @Override
            public Serializer<?> newSerializer(Kryo kryo, Class type) {
                if (needsJavaSerialization(type)) {
                    return new FilteredJavaSerializer(allowlist, classLoader);
                }
                return format == ValueFormat.NAMED_FIELDS ? new NamedFieldSerializer(type) : fields.newSerializer(kryo, type);
            }

            @Override
            public boolean isSupported(Class type) {
                return true;
            }
        });
    }

    ValueFormat format() {
        return format;
    }

    /** The class table of a {@link ValueFormat#NAMED_FIELDS} Kryo. */
    ClassTableResolver classTable() {
        return (ClassTableResolver) getClassResolver();
    }

    /**
     * {@link ValueTypes} first; then, in the named-fields format, enums by name and application records by name
     * (Kryo's own record serializer writes components by position); Kryo's own table for the rest.
     */
    @Override
    @SuppressWarnings("rawtypes")
    public Serializer getDefaultSerializer(Class type) {
        if (format == ValueFormat.NAMED_FIELDS) {
            if (Enum.class.isAssignableFrom(type) && type != Enum.class) {
                return new EnumByNameSerializer(type);
            }
            if (type.isRecord() && !ValueTypes.isJdk(type) && !needsJavaSerialization(type)
                    && java.io.Serializable.class.isAssignableFrom(type)) {
                return new NamedFieldSerializer(type);
            }
        }
        Serializer<?> chosen = ValueTypes.serializerFor(type, () -> super.getDefaultSerializer(type));
        return chosen != null ? chosen : super.getDefaultSerializer(type);
    }

    private static boolean needsJavaSerialization(Class<?> type) {
        if (Externalizable.class.isAssignableFrom(type)) {
            return true;
        }
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (var m : c.getDeclaredMethods()) {
                switch (m.getName()) {
                    case "writeObject", "readObject", "writeReplace", "readResolve" -> {
                        return true;
                    }
                    default -> {
                    }
                }
            }
        }
        return false;
    }
}
