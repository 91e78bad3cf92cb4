package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.DefaultSerializers;

import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * Which serializer a class gets: the one rule that decides whether a value round-trips exactly or is
 * refused on the primary. Consulted by {@link SessionKryo#getDefaultSerializer} before Kryo's own table.
 * <ul>
 *   <li>JDK classes (loaded by the boot or platform loader) replicate only when listed here with a
 *       serializer known to rebuild an equal value of the same class: the {@link CollectionShape}s and
 *       {@link MapShape}s, Kryo's own serializers for the value types it handles exactly (dates,
 *       {@code java.time}, {@code Optional}, {@code UUID}, ...), and Kryo's {@code Timestamp} and atomic
 *       {@code UUID}, {@code URI} serializers, which Kryo 5.6 does not register itself. Every other JDK class is refused with a
 *       {@link RefusingSerializer} that names it and says what to store instead (for example
 *       {@code Collections.synchronizedList}, {@code java.net.URL}, whose {@code equals} resolves host
 *       names).</li>
 *   <li>Arrays: Kryo's array serializers behind a {@link LengthCheckedArraySerializer}.</li>
 *   <li>Enums: Kryo's enum serializer.</li>
 *   <li>Application classes: refused unless {@link Serializable} (as a servlet container would);
 *       collections and maps through the bounded serializers; the rest as Kryo decides (fields, records,
 *       or {@link FilteredJavaSerializer} for classes with Java serialization hooks).</li>
 * </ul>
 * Whether the class may be named on the wire at all is the {@link ClassAllowlist}'s decision, enforced
 * on both sides by {@link AllowlistClassResolver}.
 */
final class ValueTypes {
    private static final Map<Class<?>, Supplier<Serializer<?>>> JDK_SERIALIZERS = new HashMap<>();
    /** JDK classes for which Kryo's own default serializer is exact. */
    private static final Set<Class<?>> KRYO_EXACT = Set.of(
            java.math.BigDecimal.class, java.math.BigInteger.class, java.util.Locale.class, java.util.Currency.class,
            java.util.Date.class, java.sql.Date.class, java.sql.Time.class,
            java.util.Optional.class, java.util.OptionalInt.class, java.util.OptionalLong.class,
            java.util.OptionalDouble.class,
            java.time.Duration.class, java.time.Instant.class, java.time.LocalDate.class, java.time.LocalTime.class,
            java.time.LocalDateTime.class, java.time.ZoneOffset.class, java.time.OffsetTime.class,
            java.time.OffsetDateTime.class, java.time.ZonedDateTime.class, java.time.Year.class,
            java.time.YearMonth.class, java.time.MonthDay.class, java.time.Period.class,
            Collections.emptyList().getClass(), Collections.emptySet().getClass(), Collections.emptyMap().getClass(),
            Collections.singletonList(1).getClass(), Collections.singleton(1).getClass(),
            Collections.singletonMap(1, 1).getClass());

    static {
        collection(CollectionShape.PLAIN, ArrayList.class, LinkedList.class, ArrayDeque.class, CopyOnWriteArrayList.class);
        collection(CollectionShape.HASHED, HashSet.class, LinkedHashSet.class);
        collection(CollectionShape.TREE_SET, TreeSet.class);
        collection(CollectionShape.UNMODIFIABLE_COLLECTION, Collections.unmodifiableCollection(List.of()).getClass());
        collection(CollectionShape.UNMODIFIABLE_LIST, Collections.unmodifiableList(new LinkedList<>()).getClass());
        collection(CollectionShape.UNMODIFIABLE_RANDOM_ACCESS_LIST,
                Collections.unmodifiableList(new ArrayList<>()).getClass());
        collection(CollectionShape.UNMODIFIABLE_SET, Collections.unmodifiableSet(Set.of()).getClass());
        collection(CollectionShape.UNMODIFIABLE_SORTED_SET, Collections.unmodifiableSortedSet(new TreeSet<>()).getClass());
        collection(CollectionShape.UNMODIFIABLE_NAVIGABLE_SET,
                Collections.unmodifiableNavigableSet(new TreeSet<>()).getClass());
        collection(CollectionShape.EMPTY_NAVIGABLE_SET, Collections.emptyNavigableSet().getClass());
        collection(CollectionShape.ARRAYS_AS_LIST, Arrays.asList().getClass());
        collection(CollectionShape.IMMUTABLE_LIST, List.of().getClass(), List.of(1).getClass());
        collection(CollectionShape.IMMUTABLE_SET, Set.of().getClass(), Set.of(1).getClass());
        map(MapShape.HASHED, HashMap.class, LinkedHashMap.class, ConcurrentHashMap.class);
        map(MapShape.TREE_MAP, TreeMap.class);
        map(MapShape.ENUM_MAP, EnumMap.class);
        map(MapShape.UNMODIFIABLE_MAP, Collections.unmodifiableMap(Map.of()).getClass());
        map(MapShape.UNMODIFIABLE_SORTED_MAP, Collections.unmodifiableSortedMap(new TreeMap<>()).getClass());
        map(MapShape.UNMODIFIABLE_NAVIGABLE_MAP, Collections.unmodifiableNavigableMap(new TreeMap<>()).getClass());
        map(MapShape.EMPTY_NAVIGABLE_MAP, Collections.emptyNavigableMap().getClass());
        map(MapShape.IMMUTABLE_MAP, Map.of().getClass(), Map.of(1, 1).getClass());
        JDK_SERIALIZERS.put(java.util.UUID.class, DefaultSerializers.UUIDSerializer::new);
        JDK_SERIALIZERS.put(java.net.URI.class, DefaultSerializers.URISerializer::new);
        JDK_SERIALIZERS.put(java.sql.Timestamp.class, DefaultSerializers.TimestampSerializer::new);
        JDK_SERIALIZERS.put(java.util.concurrent.atomic.AtomicBoolean.class, DefaultSerializers.AtomicBooleanSerializer::new);
        JDK_SERIALIZERS.put(java.util.concurrent.atomic.AtomicInteger.class, DefaultSerializers.AtomicIntegerSerializer::new);
        JDK_SERIALIZERS.put(java.util.concurrent.atomic.AtomicLong.class, DefaultSerializers.AtomicLongSerializer::new);
    }

    private ValueTypes() {
    }

    private static void collection(CollectionShape shape, Class<?>... types) {
        for (Class<?> type : types) {
            JDK_SERIALIZERS.put(type, () -> new BoundedCollectionSerializer(shape));
        }
    }

    private static void map(MapShape shape, Class<?>... types) {
        for (Class<?> type : types) {
            JDK_SERIALIZERS.put(type, () -> new BoundedMapSerializer(shape));
        }
    }

    /**
     * The serializer for {@code type}, or null when Kryo's own choice ({@code kryoDefault}) is the right
     * one.
     */
    static Serializer<?> serializerFor(Class<?> type, Supplier<Serializer<?>> kryoDefault) {
        if (type.isArray()) {
            return new LengthCheckedArraySerializer(kryoDefault.get());
        }
        if (Enum.class.isAssignableFrom(type)) {
            return null;
        }
        if (isJdk(type)) {
            Supplier<Serializer<?>> serializer = JDK_SERIALIZERS.get(type);
            if (serializer != null) {
                return serializer.get();
            }
            if (KRYO_EXACT.contains(type) || java.time.ZoneId.class.isAssignableFrom(type)
                    || java.util.EnumSet.class.isAssignableFrom(type)) {
                return null;
            }
            return new RefusingSerializer(type, adviceFor(type));
        }
        if (!Serializable.class.isAssignableFrom(type)) {
            return new RefusingSerializer(type, "not java.io.Serializable: implement Serializable, or keep it out of "
                    + "the session");
        }
        if (TreeSet.class.isAssignableFrom(type)) {
            return new BoundedCollectionSerializer(CollectionShape.TREE_SET);
        }
        if (HashSet.class.isAssignableFrom(type)) {
            return new BoundedCollectionSerializer(CollectionShape.HASHED);
        }
        if (Collection.class.isAssignableFrom(type)) {
            return new BoundedCollectionSerializer(CollectionShape.PLAIN);
        }
        if (TreeMap.class.isAssignableFrom(type)) {
            return new BoundedMapSerializer(MapShape.TREE_MAP);
        }
        if (Map.class.isAssignableFrom(type)) {
            return new BoundedMapSerializer(MapShape.HASHED);
        }
        return null;
    }

    /** Loaded by the boot or platform loader: a JDK class. */
    static boolean isJdk(Class<?> type) {
        ClassLoader loader = type.getClassLoader();
        return loader == null || loader == ClassLoader.getPlatformClassLoader();
    }

    /** Why a JDK class is not replicated and what to store instead. */
    static String adviceFor(Class<?> type) {
        if (type == java.net.URL.class) {
            return "not replicated (URL.equals and hashCode resolve host names): store a java.net.URI or the String";
        }
        if (Collection.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type)) {
            return "this JDK collection is not replicated exactly: store an ArrayList, LinkedHashSet, HashMap, "
                    + "TreeMap, List.of, Collections.unmodifiable* or similar";
        }
        return "this JDK type is not replicated exactly: store a String, number, java.time value or your own "
                + "Serializable class (in serialization-allowlist)";
    }

    /**
     * Refuses a class on write, naming it and saying what to do; and on read, should the bytes name it (a
     * primary never writes it, so only hostile or foreign bytes do).
     */
    static final class RefusingSerializer extends Serializer<Object> {
        private final Class<?> type;
        private final String advice;

        RefusingSerializer(Class<?> type, String advice) {
            this.type = type;
            this.advice = advice;
        }

        @Override
        public void write(Kryo kryo, Output output, Object object) {
            throw new KryoException(new UnsupportedValueException(type.getName(), advice));
        }

        @Override
        public Object read(Kryo kryo, Input input, Class<?> t) {
            throw new KryoException("values of " + type.getName() + " are never written by a primary");
        }
    }
}
