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
            for (var component : type.getRecordComponents()) {
                try {
                    component.getAccessor().setAccessible(true);
                    if (!isKnownImmutable(component.getAccessor().invoke(value))) {
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
