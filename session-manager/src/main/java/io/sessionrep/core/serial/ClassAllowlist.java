package io.sessionrep.core.serial;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Which classes may be deserialized from the network. Built-in: the JDK value and collection types a
 * session commonly holds; added by configuration ({@code serialization-allowlist}): application package
 * prefixes ({@code com.example.}) and class names. Arrays are allowed when their component type is.
 * The same list is checked on write, so a value naming a class outside it is refused on the primary.
 * A JDK class listed here still needs an exact serializer to replicate ({@code ValueTypes}).
 */
public final class ClassAllowlist {

    private static final Set<String> JDK_CLASSES = Set.of(
            "java.lang.String", "java.lang.Boolean", "java.lang.Byte", "java.lang.Character",
            "java.lang.Short", "java.lang.Integer", "java.lang.Long", "java.lang.Float", "java.lang.Double",
            "java.lang.Number", "java.lang.Enum", "java.lang.Object",
            "java.math.BigDecimal", "java.math.BigInteger",
            "java.util.ArrayList", "java.util.LinkedList", "java.util.ArrayDeque",
            "java.util.HashMap", "java.util.LinkedHashMap", "java.util.TreeMap", "java.util.EnumMap",
            "java.util.HashSet", "java.util.LinkedHashSet", "java.util.TreeSet", "java.util.EnumSet",
            "java.util.RegularEnumSet", "java.util.JumboEnumSet",
            "java.util.concurrent.ConcurrentHashMap", "java.util.concurrent.CopyOnWriteArrayList",
            "java.util.Collections$EmptyList", "java.util.Collections$EmptyMap", "java.util.Collections$EmptySet",
            "java.util.Collections$SingletonList", "java.util.Collections$SingletonMap",
            "java.util.Collections$SingletonSet", "java.util.Collections$UnmodifiableRandomAccessList",
            "java.util.Collections$UnmodifiableList", "java.util.Collections$UnmodifiableMap",
            "java.util.Collections$UnmodifiableSet", "java.util.Collections$UnmodifiableCollection",
            "java.util.Collections$UnmodifiableSortedSet", "java.util.Collections$UnmodifiableNavigableSet",
            "java.util.Collections$UnmodifiableNavigableSet$EmptyNavigableSet",
            "java.util.Collections$UnmodifiableSortedMap", "java.util.Collections$UnmodifiableNavigableMap",
            "java.util.Collections$UnmodifiableNavigableMap$EmptyNavigableMap", "java.util.Arrays$ArrayList",
            "java.util.ImmutableCollections$List12", "java.util.ImmutableCollections$ListN",
            "java.util.ImmutableCollections$Set12", "java.util.ImmutableCollections$SetN",
            "java.util.ImmutableCollections$Map1", "java.util.ImmutableCollections$MapN",
            "java.util.Date", "java.util.UUID", "java.util.Locale", "java.util.Currency",
            "java.util.concurrent.atomic.AtomicInteger", "java.util.concurrent.atomic.AtomicLong",
            "java.util.concurrent.atomic.AtomicBoolean",
            "java.util.Optional", "java.util.OptionalInt", "java.util.OptionalLong", "java.util.OptionalDouble",
            "java.sql.Date", "java.sql.Time", "java.sql.Timestamp", "java.net.URI");
    private static final List<String> JDK_PACKAGES = List.of("java.time.");

    private final List<String> packagePrefixes;
    private final Set<String> classNames;

    private ClassAllowlist(List<String> packagePrefixes, Set<String> classNames) {
        this.packagePrefixes = packagePrefixes;
        this.classNames = classNames;
    }

    /**
     * @param entries configured entries: {@code com.example.} or {@code com.example.*} (package and
     *                sub-packages) or a fully qualified class name
     */
    public static ClassAllowlist of(List<String> entries) {
        List<String> prefixes = new ArrayList<>(JDK_PACKAGES);
        java.util.HashSet<String> names = new java.util.HashSet<>(JDK_CLASSES);
        for (String entry : entries) {
            String e = entry.trim();
            if (e.endsWith(".*")) {
                prefixes.add(e.substring(0, e.length() - 1));
            } else if (e.endsWith(".")) {
                prefixes.add(e);
            } else if (!e.isEmpty()) {
                names.add(e);
            }
        }
        return new ClassAllowlist(List.copyOf(prefixes), Set.copyOf(names));
    }

    /** True when a class with this binary name (as {@code Class.getName()} spells it) may be loaded. */
    public boolean allows(String className) {
        String name = className;
        while (name.startsWith("[")) {
            name = name.substring(1);
        }
        if (name.length() == 1) {
            return "ZBCSIJFD".contains(name); // primitive array component
        }
        if (name.startsWith("L") && name.endsWith(";")) {
            name = name.substring(1, name.length() - 1);
        }
        if (classNames.contains(name)) {
            return true;
        }
        for (String prefix : packagePrefixes) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
