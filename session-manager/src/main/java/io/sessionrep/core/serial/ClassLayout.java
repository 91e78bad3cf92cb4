package io.sessionrep.core.serial;

import net.openhft.hashing.LongHashFunction;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What {@link NamedFieldSerializer} writes of one application class, as this node's version of the class
 * declares it: its fields (a record: its components), each with a name, a {@link Kind} and a fingerprint of its
 * declared type, and the class's own {@code serialVersionUID} when it declares one.
 *
 * <p>Fields are those Java serialization would write: every non-static, non-transient, non-synthetic field of
 * the class and of its superclasses. A field hidden by a subclass field of the same name is named
 * {@code Superclass.name}. The declared type is fingerprinted from its generic form ({@code java.util.List<
 * com.example.Item>}), so that a list of strings that became a list of items is a changed type, not a list whose
 * elements are of the wrong class.
 *
 * <p>Computed once per class ({@link #of}) and held by the class itself ({@link ClassValue}), so nothing pins an
 * undeployed application's classes.
 */
final class ClassLayout {

    /** How a field's value is written: a primitive in its own encoding, anything else as a framed Kryo value. */
    enum Kind {
        REFERENCE, BOOLEAN, BYTE, CHAR, SHORT, INT, LONG, FLOAT, DOUBLE;

        private static final Kind[] BY_CODE = values();

        static Kind ofCode(int code) {
            return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
        }

        static Kind of(Class<?> type) {
            if (!type.isPrimitive()) {
                return REFERENCE;
            }
            return switch (type.getName()) {
                case "boolean" -> BOOLEAN;
                case "byte" -> BYTE;
                case "char" -> CHAR;
                case "short" -> SHORT;
                case "int" -> INT;
                case "long" -> LONG;
                case "float" -> FLOAT;
                case "double" -> DOUBLE;
                default -> throw new IllegalArgumentException("not a field type: " + type);
            };
        }
    }

    /** One field or record component. {@code typeName} is what {@link #typeHash} fingerprints. */
    record Slot(String name, Kind kind, int typeHash, String typeName, Class<?> rawType, Field field) {
    }

    private static final LongHashFunction TYPE_HASH = LongHashFunction.xx3();
    private static final ClassValue<ClassLayout> LAYOUTS = new ClassValue<>() {
        @Override
        protected ClassLayout computeValue(Class<?> type) {
            return new ClassLayout(type);
        }
    };

    final Class<?> type;
    final Slot[] slots;
    /** The class's own declared {@code serialVersionUID}; null when it declares none, and for records. */
    final Long serialVersionUid;
    /** A record's canonical constructor; null for other classes. */
    final Constructor<?> canonical;
    private final Map<String, Integer> indexByName;
    /** Why the class's fields cannot be read or set here (a JDK superclass's fields are closed); null when they can. */
    final String inaccessible;

    static ClassLayout of(Class<?> type) {
        return LAYOUTS.get(type);
    }

    private ClassLayout(Class<?> type) {
        this.type = type;
        String problem = null;
        List<Slot> found = new ArrayList<>();
        Constructor<?> constructor = null;
        if (type.isRecord()) {
            RecordComponent[] components = type.getRecordComponents();
            Class<?>[] parameterTypes = new Class<?>[components.length];
            for (int i = 0; i < components.length; i++) {
                RecordComponent c = components[i];
                parameterTypes[i] = c.getType();
                try {
                    Field field = type.getDeclaredField(c.getName());
                    field.setAccessible(true);
                    found.add(slot(c.getName(), c.getGenericType(), c.getType(), field));
                } catch (NoSuchFieldException | RuntimeException e) {
                    problem = "record component " + c.getName() + " cannot be read: " + e;
                }
            }
            try {
                constructor = type.getDeclaredConstructor(parameterTypes);
                constructor.setAccessible(true);
            } catch (NoSuchMethodException | RuntimeException e) {
                problem = "the canonical constructor cannot be called: " + e;
            }
            this.serialVersionUid = null;
        } else {
            Set<String> taken = new HashSet<>();
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                Field[] declared = c.getDeclaredFields();
                Arrays.sort(declared, (a, b) -> a.getName().compareTo(b.getName()));
                for (Field field : declared) {
                    int modifiers = field.getModifiers();
                    if (Modifier.isStatic(modifiers) || Modifier.isTransient(modifiers) || field.isSynthetic()) {
                        continue;
                    }
                    try {
                        field.setAccessible(true);
                    } catch (RuntimeException e) { // InaccessibleObjectException: a JDK superclass's private field
                        problem = "field " + c.getName() + "." + field.getName() + " cannot be read or set ("
                                + e.getMessage() + "): do not extend this JDK class in a session value";
                        continue;
                    }
                    String name = taken.add(field.getName()) ? field.getName() : c.getSimpleName() + "." + field.getName();
                    found.add(slot(name, field.getGenericType(), field.getType(), field));
                }
            }
            this.serialVersionUid = declaredSerialVersionUid(type);
        }
        this.slots = found.toArray(new Slot[0]);
        this.canonical = constructor;
        this.inaccessible = problem;
        Map<String, Integer> byName = new HashMap<>();
        for (int i = 0; i < slots.length; i++) {
            byName.put(slots[i].name(), i);
        }
        this.indexByName = byName;
    }

    private static Slot slot(String name, Type genericType, Class<?> rawType, Field field) {
        String typeName = typeName(genericType);
        return new Slot(name, Kind.of(rawType), typeHash(typeName), typeName, rawType, field);
    }

    boolean isRecord() {
        return canonical != null;
    }

    /** This class's slot named {@code name}, or -1. */
    int indexOf(String name) {
        Integer index = indexByName.get(name);
        return index == null ? -1 : index;
    }

    /**
     * The declared type written out the same way by every JDK: class names as {@code Class.getName()} spells
     * them, type arguments in angle brackets, type variables by name, wildcards with their bounds.
     */
    static String typeName(Type type) {
        if (type instanceof Class<?> c) {
            return c.isArray() ? typeName(c.getComponentType()) + "[]" : c.getName();
        }
        if (type instanceof ParameterizedType p) {
            return typeName(p.getRawType()) + Arrays.stream(p.getActualTypeArguments()).map(ClassLayout::typeName)
                    .collect(Collectors.joining(",", "<", ">"));
        }
        if (type instanceof GenericArrayType a) {
            return typeName(a.getGenericComponentType()) + "[]";
        }
        if (type instanceof TypeVariable<?> v) {
            return v.getName();
        }
        if (type instanceof WildcardType w) {
            String lower = Arrays.stream(w.getLowerBounds()).map(ClassLayout::typeName).collect(Collectors.joining("&"));
            String upper = Arrays.stream(w.getUpperBounds()).map(ClassLayout::typeName).collect(Collectors.joining("&"));
            return lower.isEmpty() ? "?extends " + upper : "?super " + lower;
        }
        return type.getTypeName();
    }

    static int typeHash(String typeName) {
        long h = TYPE_HASH.hashChars(typeName);
        return (int) (h ^ (h >>> 32));
    }

    private static Long declaredSerialVersionUid(Class<?> type) {
        try {
            Field uid = type.getDeclaredField("serialVersionUID");
            int modifiers = uid.getModifiers();
            if (uid.getType() == long.class && Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers)) {
                uid.setAccessible(true);
                return uid.getLong(null);
            }
        } catch (NoSuchFieldException | IllegalAccessException | RuntimeException e) {
            // none declared, or not readable: not compared
        }
        return null;
    }
}
