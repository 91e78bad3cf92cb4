package io.sessionrep.core.delta;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Set;
import java.util.UUID;

/**
 * Values that cannot change in place, so reading them never makes a session dirty. Everything else
 * read through {@code getAttribute} is assumed to be mutated by the caller and is replicated at
 * request end (docs/replication.md).
 */
public final class ImmutableTypes {
    private static final Set<Class<?>> IMMUTABLE = Set.of(
            String.class, Boolean.class, Byte.class, Character.class, Short.class, Integer.class,
            Long.class, Float.class, Double.class, BigDecimal.class, BigInteger.class, UUID.class,
            java.util.Locale.class, java.util.Currency.class, java.net.URI.class, Class.class);

    private ImmutableTypes() {
    }

    /**
     * What a class's instances are, worked out once per class and found by one lookup (getAttribute asks on
     * every call; a {@code Class.isRecord} call beside the lookup showed in profiles of the request path):
     * {@code Boolean.TRUE} (immutable), {@code Boolean.FALSE} (mutable, or a record whose accessors cannot be
     * called), or a record's accessors, made accessible, whose values decide. The booleans are the JDK's own, so that a JDK class (String, byte[]) that holds
     * one does not keep this web application's class loader alive.
     */
    private static final ClassValue<Object> KIND = new ClassValue<>() {
        @Override
        protected Object computeValue(Class<?> type) {
            if (type.isRecord()) {
                return recordAccessors(type);
            }
            if (IMMUTABLE.contains(type) || Enum.class.isAssignableFrom(type)) { // an enum, or a constant with a body
                return Boolean.TRUE;
            }
            Package pkg = type.getPackage();
            // java.time value types are immutable by contract (Clock subclasses aside, which are not values)
            return pkg != null && pkg.getName().startsWith("java.time");
        }
    };

    private static Object recordAccessors(Class<?> type) {
        var components = type.getRecordComponents();
        java.lang.reflect.Method[] accessors = new java.lang.reflect.Method[components.length];
        for (int i = 0; i < components.length; i++) {
            accessors[i] = components[i].getAccessor();
            try {
                accessors[i].setAccessible(true);
            } catch (RuntimeException e) {
                return Boolean.FALSE; // not accessible: treated as mutable
            }
        }
        return accessors;
    }

    public static boolean isKnownImmutable(Object value) {
        if (value == null) {
            return true;
        }
        Object kind = KIND.get(value.getClass());
        if (kind instanceof Boolean immutable) {
            return immutable;
        }
        for (java.lang.reflect.Method accessor : (java.lang.reflect.Method[]) kind) {
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
