package io.sessionrep.core.delta;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Set;
import java.util.UUID;

/**
 * Values that cannot change in place, so reading them never makes a session dirty. Everything else
 * read through {@code getAttribute} is assumed to be mutated by the caller and is replicated at
 * request end (SPEC section 3, "Mutable attributes").
 */
public final class ImmutableTypes {
    private static final Set<Class<?>> IMMUTABLE = Set.of(
            String.class, Boolean.class, Byte.class, Character.class, Short.class, Integer.class,
            Long.class, Float.class, Double.class, BigDecimal.class, BigInteger.class, UUID.class,
            java.util.Locale.class, java.util.Currency.class, java.net.URI.class, Class.class);

    /** Record accessors, looked up and made accessible once per record class (getAttribute is on the request path). */
    private static final ClassValue<java.lang.reflect.Method[]> RECORD_ACCESSORS = new ClassValue<>() {
        @Override
        protected java.lang.reflect.Method[] computeValue(Class<?> type) {
            var components = type.getRecordComponents();
            java.lang.reflect.Method[] accessors = new java.lang.reflect.Method[components.length];
            for (int i = 0; i < components.length; i++) {
                accessors[i] = components[i].getAccessor();
                try {
                    accessors[i].setAccessible(true);
                } catch (RuntimeException e) {
                    return null; // not accessible: treated as mutable below
                }
            }
            return accessors;
        }
    };

    private ImmutableTypes() {
    }

    /**
     * Whether instances of a class (not a record) are immutable, worked out once per class: getAttribute asks
     * on every call. The values are the JDK's own {@code Boolean}s, so that a JDK class (String, byte[]) that
     * holds one does not keep this web application's class loader alive.
     */
    private static final ClassValue<Boolean> IMMUTABLE_TYPE = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            if (IMMUTABLE.contains(type) || Enum.class.isAssignableFrom(type)) { // an enum, or a constant with a body
                return Boolean.TRUE;
            }
            Package pkg = type.getPackage();
            // java.time value types are immutable by contract (Clock subclasses aside, which are not values)
            return pkg != null && pkg.getName().startsWith("java.time");
        }
    };

    public static boolean isKnownImmutable(Object value) {
        if (value == null) {
            return true;
        }
        Class<?> type = value.getClass();
        if (!type.isRecord()) {
            return IMMUTABLE_TYPE.get(type);
        }
        java.lang.reflect.Method[] accessors = RECORD_ACCESSORS.get(type);
        if (accessors == null) {
            return false;
        }
        for (java.lang.reflect.Method accessor : accessors) {
            try {
                if (!isKnownImmutable(accessor.invoke(value))) {
                    return false;
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                return false;
            }
        }
        return true;
    }
}
