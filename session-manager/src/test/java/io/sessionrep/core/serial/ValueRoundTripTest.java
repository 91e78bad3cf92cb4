package io.sessionrep.core.serial;

import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Currency;
import java.util.Date;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One round trip per common JDK value type: what the primary writes, the backup reads back as an equal
 * value of the same class (iteration order included where the type has one). Types whose {@code equals}
 * is identity (atomics, {@code ArrayDeque}, {@code Collections.unmodifiableCollection}) are compared by
 * content. Values the backup could not rebuild exactly are refused on write, naming the class.
 */
class ValueRoundTripTest {
    private static final KryoSessionSerializer SERIALIZER = new KryoSessionSerializer(
            ClassAllowlist.of(List.of("io.sessionrep.core.serial.")), ValueRoundTripTest.class.getClassLoader());

    enum Color { RED, GREEN, BLUE }

    record ByLength() implements Comparator<String>, Serializable {
        @Override
        public int compare(String a, String b) {
            return a.length() != b.length() ? Integer.compare(a.length(), b.length()) : a.compareTo(b);
        }
    }

    static Stream<Arguments> values() {
        java.sql.Timestamp timestamp = new java.sql.Timestamp(1_700_000_000_123L);
        timestamp.setNanos(123_456_789);
        TreeMap<String, Integer> byLength = new TreeMap<>(new ByLength());
        byLength.putAll(Map.of("ccc", 3, "a", 1, "bb", 2));
        TreeSet<String> setByLength = new TreeSet<>(new ByLength());
        setByLength.addAll(List.of("ccc", "a", "bb"));
        LinkedHashMap<String, Integer> ordered = new LinkedHashMap<>();
        for (String k : List.of("z", "a", "m", "b")) {
            ordered.put(k, k.hashCode());
        }
        EnumMap<Color, String> enumMap = new EnumMap<>(Color.class);
        enumMap.put(Color.BLUE, "b");
        enumMap.put(Color.RED, "r");
        return Stream.of(
                        named("String", "héllo wörld"), named("Integer", 42), named("Long", -7L),
                        named("Double", 2.5d), named("Character", 'x'), named("Boolean", true),
                        named("BigDecimal", new BigDecimal("12345678901234567890.000123")),
                        named("BigInteger", new BigInteger("-98765432109876543210")),
                        named("UUID", UUID.fromString("123e4567-e89b-12d3-a456-426614174000")),
                        named("Locale", Locale.forLanguageTag("de-CH")), named("Currency", Currency.getInstance("CHF")),
                        named("URI", URI.create("https://example.com/a?b=c#d")),
                        named("java.util.Date", new Date(1_700_000_000_123L)),
                        named("java.sql.Timestamp with nanos", timestamp),
                        named("java.sql.Date", new java.sql.Date(1_700_000_000_000L)),
                        named("java.sql.Time", new java.sql.Time(45_296_000L)),
                        named("Instant", Instant.ofEpochSecond(1_700_000_000L, 123_456_789)),
                        named("Duration", Duration.ofMillis(123_456)), named("Period", Period.of(1, 2, 3)),
                        named("LocalDate", LocalDate.of(2026, 2, 28)), named("LocalTime", LocalTime.of(23, 59, 1, 5)),
                        named("LocalDateTime", LocalDateTime.of(2026, 2, 28, 23, 59, 1, 5)),
                        named("ZonedDateTime", ZonedDateTime.of(2026, 3, 29, 2, 30, 0, 0, ZoneId.of("Europe/Zurich"))),
                        named("OffsetDateTime", OffsetDateTime.of(2026, 1, 2, 3, 4, 5, 6, ZoneOffset.ofHours(-5))),
                        named("OffsetTime", OffsetTime.of(3, 4, 5, 6, ZoneOffset.ofHours(9))),
                        named("ZoneId", ZoneId.of("America/New_York")), named("ZoneOffset", ZoneOffset.ofHoursMinutes(5, 30)),
                        named("Year", Year.of(2026)), named("YearMonth", YearMonth.of(2026, 2)),
                        named("MonthDay", MonthDay.of(2, 29)), named("DayOfWeek enum", DayOfWeek.FRIDAY),
                        named("application enum", Color.GREEN),
                        named("Optional", Optional.of("x")), named("Optional.empty", Optional.empty()),
                        named("Optional of list", Optional.of(new ArrayList<>(List.of(1, 2)))),
                        named("OptionalInt", OptionalInt.of(7)), named("OptionalLong", OptionalLong.of(8L)),
                        named("OptionalDouble", OptionalDouble.of(9.5)), named("OptionalInt.empty", OptionalInt.empty()),
                        named("AtomicLong", new AtomicLong(Long.MIN_VALUE)), named("AtomicInteger", new AtomicInteger(3)),
                        named("AtomicBoolean", new AtomicBoolean(true)),
                        named("ArrayList with null", new ArrayList<>(Arrays.asList("a", null, 3))),
                        named("LinkedList", new LinkedList<>(List.of(1, 2, 3))),
                        named("ArrayDeque", new ArrayDeque<>(List.of("x", "y"))),
                        named("CopyOnWriteArrayList", new CopyOnWriteArrayList<>(List.of("x", "y"))),
                        named("HashSet", new HashSet<>(Set.of("a", "b", "c"))),
                        named("LinkedHashSet order", new LinkedHashSet<>(List.of("z", "a", "m"))),
                        named("TreeSet natural", new TreeSet<>(List.of("b", "a"))),
                        named("TreeSet with comparator", setByLength),
                        named("HashMap", new HashMap<>(Map.of("a", 1, "b", List.of(2)))),
                        named("LinkedHashMap order", ordered),
                        named("TreeMap natural", new TreeMap<>(Map.of("b", 2, "a", 1))),
                        named("TreeMap with comparator", byLength),
                        named("ConcurrentHashMap", new ConcurrentHashMap<>(Map.of("k", "v"))),
                        named("EnumMap", enumMap), named("EnumSet", EnumSet.of(Color.RED, Color.BLUE)),
                        named("EnumSet empty", EnumSet.noneOf(Color.class)),
                        named("unmodifiableList(ArrayList)", Collections.unmodifiableList(new ArrayList<>(List.of(1, 2)))),
                        named("unmodifiableList(LinkedList)", Collections.unmodifiableList(new LinkedList<>(List.of(1, 2)))),
                        named("unmodifiableSet", Collections.unmodifiableSet(new LinkedHashSet<>(List.of("b", "a")))),
                        named("unmodifiableMap", Collections.unmodifiableMap(new LinkedHashMap<>(ordered))),
                        named("unmodifiableSortedSet", Collections.unmodifiableSortedSet(setByLength)),
                        named("unmodifiableNavigableSet", Collections.unmodifiableNavigableSet(new TreeSet<>(List.of(3, 1)))),
                        named("unmodifiableSortedMap", Collections.unmodifiableSortedMap(byLength)),
                        named("unmodifiableNavigableMap", Collections.unmodifiableNavigableMap(new TreeMap<>(Map.of(1, 2)))),
                        named("unmodifiableCollection", Collections.unmodifiableCollection(new ArrayList<>(List.of(1, 2)))),
                        named("emptyList", Collections.emptyList()), named("emptySet", Collections.emptySet()),
                        named("emptyMap", Collections.emptyMap()), named("emptySortedSet", Collections.emptySortedSet()),
                        named("emptyNavigableMap", Collections.emptyNavigableMap()),
                        named("singletonList", Collections.singletonList("x")), named("singleton", Collections.singleton(1)),
                        named("singletonMap", Collections.singletonMap("k", 2)),
                        named("List.of()", List.of()), named("List.of(1)", List.of(1)), named("List.of(1, 2, 3)", List.of(1, 2, 3)),
                        named("Stream.toList with null", Stream.of("a", null).toList()),
                        named("Set.of()", Set.of()), named("Set.of(1)", Set.of(1)), named("Set.of(1, 2, 3)", Set.of(1, 2, 3)),
                        named("Map.of()", Map.of()), named("Map.of(1)", Map.of("a", 1)), named("Map.of(3)", Map.of("a", 1, "b", 2, "c", 3)),
                        named("Arrays.asList", Arrays.asList("a", "b")),
                        named("int[]", new int[] {1, -2, 3}), named("long[]", new long[] {Long.MAX_VALUE}),
                        named("byte[]", new byte[] {1, 2, 3}), named("boolean[]", new boolean[] {true, false}),
                        named("double[]", new double[] {1.5}), named("char[]", new char[] {'a', 'é'}),
                        named("String[] with null", new String[] {"a", null}), named("Object[]", new Object[] {1, "a", null}),
                        named("Integer[][]", new Integer[][] {{1}, {2, 3}}),
                        named("nested", new HashMap<>(Map.of("list", new ArrayList<>(List.of(Map.of("k", Set.of(1)))),
                                "opt", Optional.of(LocalDate.of(2026, 1, 1))))))
                .map(Arguments::of);
    }

    private static Named<Object> named(String name, Object value) {
        return Named.of(name, value);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("values")
    void roundTripsToAnEqualValueOfTheSameClass(Object value) throws Exception {
        Object back = SERIALIZER.deserialize(SERIALIZER.serialize(value));
        assertSame(value.getClass(), back.getClass(), "class");
        assertEqualContent(value, back);
    }

    static void assertEqualContent(Object expected, Object actual) {
        if (expected.getClass().isArray()) {
            assertArrayEquals(new Object[] {expected}, new Object[] {actual});
        } else if (expected instanceof java.sql.Timestamp t) {
            assertEquals(t, actual);
            assertEquals(t.getNanos(), ((java.sql.Timestamp) actual).getNanos());
        } else if (expected instanceof AtomicLong || expected instanceof AtomicInteger || expected instanceof AtomicBoolean) {
            assertEquals(expected.toString(), actual.toString()); // equals is identity
        } else if (expected instanceof ArrayDeque<?> || expected.getClass().getName().endsWith("UnmodifiableCollection")) {
            assertEquals(new ArrayList<>((Collection<?>) expected), new ArrayList<>((Collection<?>) actual)); // identity equals
        } else {
            assertEquals(expected, actual);
            assertEquals(expected.hashCode(), actual.hashCode());
        }
        if (expected instanceof Collection<?> c && !(expected instanceof HashSet<?> && !(expected instanceof LinkedHashSet<?>))
                && !expected.getClass().getName().contains("ImmutableCollections$Set")) {
            assertEquals(new ArrayList<>(c), new ArrayList<>((Collection<?>) actual), "iteration order");
        }
        if (expected instanceof java.util.SortedMap<?, ?> m) {
            assertEquals(new ArrayList<>(m.keySet()), new ArrayList<>(((Map<?, ?>) actual).keySet()), "sorted order");
            assertEquals(m.comparator() == null, ((java.util.SortedMap<?, ?>) actual).comparator() == null, "comparator");
        }
        if (expected instanceof LinkedHashMap<?, ?> m) {
            assertEquals(new ArrayList<>(m.keySet()), new ArrayList<>(((Map<?, ?>) actual).keySet()), "insertion order");
        }
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of(Named.of("synchronizedList", Collections.synchronizedList(new ArrayList<>(List.of(1)))),
                        "java.util.Collections$SynchronizedRandomAccessList"),
                Arguments.of(Named.of("checkedList", Collections.checkedList(new ArrayList<>(List.of(1)), Integer.class)),
                        "java.util.Collections$CheckedRandomAccessList"),
                Arguments.of(Named.of("URL", newUrl()), "java.net.URL"),
                Arguments.of(Named.of("PriorityQueue", new java.util.PriorityQueue<>(List.of(1))), "java.util.PriorityQueue"),
                Arguments.of(Named.of("empty EnumMap", new EnumMap<>(Color.class)), "java.util.EnumMap"),
                Arguments.of(Named.of("StringBuilder", new StringBuilder("x")), "java.lang.StringBuilder"),
                Arguments.of(Named.of("AtomicReference", new java.util.concurrent.atomic.AtomicReference<>("x")),
                        "java.util.concurrent.atomic.AtomicReference"),
                Arguments.of(Named.of("TreeSet with a lambda comparator", treeSetWithLambda()),
                        "io.sessionrep.core.serial.ValueRoundTripTest"),
                Arguments.of(Named.of("list of nulls only", new ArrayList<>(Arrays.asList(null, null, null))),
                        "java.util.ArrayList"),
                Arguments.of(Named.of("a synchronizedSet nested inside allowed collections",
                        new ArrayList<>(List.of(new HashMap<>(Map.of("k", Collections.synchronizedSet(new HashSet<>())))))),
                        "java.util.Collections$SynchronizedSet"));
    }

    private static java.net.URL newUrl() {
        try {
            return new java.net.URL("https://example.com/");
        } catch (java.net.MalformedURLException e) {
            throw new AssertionError(e);
        }
    }

    private static TreeSet<String> treeSetWithLambda() {
        TreeSet<String> set = new TreeSet<>((a, b) -> b.compareTo(a));
        set.add("x");
        return set;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void valuesThatWouldNotRoundTripAreRefusedOnWriteNamingTheClass(Object value, String refusedClass) {
        UnsupportedValueException e = assertThrows(UnsupportedValueException.class, () -> SERIALIZER.serialize(value));
        assertTrue(e.className().startsWith(refusedClass), e.className() + " for " + refusedClass);
        assertTrue(e.getMessage().length() > e.className().length() + 20, "says what to do: " + e.getMessage());
        assertInstanceOf(java.io.NotSerializableException.class, e);
    }
}
