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

    public static boolean isKnownImmutable(Object value) {
        if (value == null) {
            return true;
        }
        Class<?> type = value.getClass();
        if (IMMUTABLE.contains(type) || type.isEnum() || value instanceof Enum<?>) {
            return true;
        }
        Package pkg = type.getPackage();
        if (pkg != null && pkg.getName().startsWith("java.time")) {
            // java.time value types are immutable by contract (Clock subclasses aside, which are not values)
            return true;
        }
        if (type.isRecord()) {
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
        return false;
    }
}
