package io.sessionrep.core.config;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Parses and formats option values. Every failure is a {@link ConfigException} naming the option, the
 * rejected value and what is allowed. Text spellings:
 * <ul>
 *   <li>duration: {@code 500ms}, {@code 2s}, {@code 1m}, {@code 1h}; a plain number is milliseconds
 *       ({@code 1500}); or ISO-8601 ({@code PT0.5S}). Units are case-insensitive.</li>
 *   <li>size: a plain number is bytes; {@code KiB}, {@code MiB}, {@code GiB} are 1024-based and
 *       {@code KB}, {@code MB}, {@code GB} 1000-based (as on disk labels). Units are case-insensitive.</li>
 *   <li>boolean: {@code true} or {@code false}, case-insensitive; nothing else ({@code yes} is an error).</li>
 *   <li>choice: the option spelling of the enum constant ({@code on-request-end}), case-insensitive.</li>
 *   <li>host:port list: separated by commas and/or whitespace; IPv6 in brackets ({@code [::1]:7800}).</li>
 * </ul>
 */
final class OptionParsers {

    static final long KIB = 1024;
    static final long MIB = 1024 * KIB;
    static final long GIB = 1024 * MIB;

    private static final Pattern INTEGER = Pattern.compile("[-+]?\\d{1,18}");
    private static final Pattern DURATION = Pattern.compile("(\\d{1,15})\\s*(ms|s|m|h)?", Pattern.CASE_INSENSITIVE);
    private static final Pattern SIZE = Pattern.compile("(\\d{1,18})\\s*(b|kib|mib|gib|kb|mb|gb)?",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern HOST_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,253}");
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:.]+");
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern LIST_SEPARATOR = Pattern.compile("[,\\s]+");

    static final String DURATION_FORMS =
            "a duration such as 500ms, 2s, 1m (a plain number is milliseconds) or ISO-8601 such as PT0.5S";
    static final String SIZE_FORMS = "a size in bytes such as 1048576, or with a unit: KiB, MiB, GiB (1024-based)"
            + " or KB, MB, GB (1000-based), e.g. 512KiB";
    static final String HOST_PORT_FORMS = "host:port with a port from 1 to 65535, IPv6 in brackets as [::1]:7800,"
            + " several separated by commas or spaces";

    private OptionParsers() {
    }

    /** The standard failure: {@code <option>: <shown> is not allowed; expected <expected>}. */
    static ConfigException notAllowed(ConfigOption option, String shown, String expected) {
        return new ConfigException(option.key(), shown + " is not allowed; expected " + expected);
    }

    static int integer(ConfigOption option, String raw, int min, int max) {
        String v = raw.trim();
        boolean number = INTEGER.matcher(v).matches();
        if (number) {
            long n = Long.parseLong(v);
            if (n >= min && n <= max) {
                return (int) n;
            }
        }
        throw notAllowed(option, number ? v : quote(raw), integerRange(min, max));
    }

    static int checkRange(ConfigOption option, int value, int min, int max) {
        if (value < min || value > max) {
            throw notAllowed(option, String.valueOf(value), integerRange(min, max));
        }
        return value;
    }

    private static String integerRange(int min, int max) {
        return max == Integer.MAX_VALUE ? "an integer of at least " + min : "an integer from " + min + " to " + max;
    }

    static boolean bool(ConfigOption option, String raw) {
        String v = raw.trim();
        if (v.equalsIgnoreCase("true")) {
            return true;
        }
        if (v.equalsIgnoreCase("false")) {
            return false;
        }
        throw notAllowed(option, quote(raw), "true or false");
    }

    /** An enum constant by its option spelling ({@code spelling}), case-insensitively. */
    static <E extends Enum<E>> E choice(ConfigOption option, String raw, E[] values, Function<E, String> spelling) {
        String v = raw.trim();
        for (E e : values) {
            if (spelling.apply(e).equalsIgnoreCase(v)) {
                return e;
            }
        }
        throw notAllowed(option, quote(raw), "one of "
                + Arrays.stream(values).map(spelling).collect(Collectors.joining(", ")));
    }

    static Duration duration(ConfigOption option, String raw) {
        String v = raw.trim();
        try {
            if (v.length() > 1 && (v.charAt(0) == 'P' || v.charAt(0) == 'p')) {
                return Duration.parse(v);
            }
            Matcher m = DURATION.matcher(v);
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                String unit = m.group(2) == null ? "ms" : m.group(2).toLowerCase(Locale.ROOT);
                return switch (unit) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    default -> Duration.ofHours(n);
                };
            }
        } catch (DateTimeParseException | ArithmeticException e) {
            // reported below
        }
        throw notAllowed(option, quote(raw), DURATION_FORMS);
    }

    /** {@code 500ms}, {@code 2s}, {@code 1m}; what {@link #duration} reads back. */
    static String formatDuration(Duration d) {
        if (d.toNanosPart() % 1_000_000 != 0) {
            return d.toString();
        }
        long ms = d.toMillis();
        if (ms != 0 && ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms != 0 && ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms != 0 && ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }

    static long size(ConfigOption option, String raw) {
        Matcher m = SIZE.matcher(raw.trim());
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            long unit = switch (m.group(2) == null ? "b" : m.group(2).toLowerCase(Locale.ROOT)) {
                case "kib" -> KIB;
                case "mib" -> MIB;
                case "gib" -> GIB;
                case "kb" -> 1000L;
                case "mb" -> 1000_000L;
                case "gb" -> 1000_000_000L;
                default -> 1L;
            };
            try {
                return Math.multiplyExact(n, unit);
            } catch (ArithmeticException e) {
                // reported below
            }
        }
        throw notAllowed(option, quote(raw), SIZE_FORMS);
    }

    /** {@code 1MiB} for exact multiples of 1024, else plain bytes; what {@link #size} reads back. */
    static String formatSize(long bytes) {
        if (bytes != 0 && bytes % GIB == 0) {
            return bytes / GIB + "GiB";
        }
        if (bytes != 0 && bytes % MIB == 0) {
            return bytes / MIB + "MiB";
        }
        if (bytes != 0 && bytes % KIB == 0) {
            return bytes / KIB + "KiB";
        }
        return String.valueOf(bytes);
    }

    /** Items separated by commas and/or whitespace; empty items are skipped. */
    static List<String> list(String raw) {
        List<String> items = new ArrayList<>();
        for (String item : LIST_SEPARATOR.split(raw.trim())) {
            if (!item.isEmpty()) {
                items.add(item);
            }
        }
        return items;
    }

    static List<HostPort> hostPorts(ConfigOption option, String raw) {
        return list(raw).stream().map(item -> hostPort(option, item)).toList();
    }

    /** {@code host:port} or {@code [ipv6]:port}. */
    static HostPort hostPort(ConfigOption option, String item) {
        int colon = item.lastIndexOf(':');
        boolean bracketed = item.startsWith("[");
        if (colon < 0 || (bracketed ? colon != item.indexOf(']') + 1 : item.indexOf(':') != colon)) {
            throw notAllowed(option, quote(item), HOST_PORT_FORMS);
        }
        String host = hostOrNull(item.substring(0, colon));
        String port = item.substring(colon + 1);
        if (host == null) {
            throw notAllowed(option, quote(item), HOST_PORT_FORMS);
        }
        if (!port.matches("\\d{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
            throw notAllowed(option, "port " + quote(port) + " in " + quote(item), HOST_PORT_FORMS);
        }
        return new HostPort(host, Integer.parseInt(port));
    }

    /** A DNS name ({@code sessions.shop.svc.cluster.local}, a trailing dot allowed); never looked up here. */
    static String dnsName(ConfigOption option, String raw, String expected) {
        String v = raw == null ? "" : raw.trim();
        if (!HOST_NAME.matcher(v).matches() || v.startsWith(".") || v.contains("..") || v.startsWith("-")) {
            throw notAllowed(option, raw == null ? "null" : quote(raw), expected);
        }
        return v;
    }

    /**
     * A host name, IPv4 address or IPv6 literal (brackets optional, removed). Checks the shape only: names
     * are not resolved here, so validating a configuration never waits on DNS.
     */
    static String host(ConfigOption option, String raw, String expected) {
        String host = hostOrNull(raw);
        if (host == null) {
            throw notAllowed(option, quote(raw), expected);
        }
        return host;
    }

    private static String hostOrNull(String raw) {
        String v = raw.trim();
        if (v.startsWith("[") && v.endsWith("]")) {
            v = v.substring(1, v.length() - 1);
            return ipv6Literal(v) == null ? null : v;
        }
        if (v.contains(":") ? ipv6Literal(v) == null : !HOST_NAME.matcher(v).matches()) {
            return null;
        }
        return v;
    }

    /** True for an IP literal in 224.0.0.0/4 or ff00::/8. Host names are not multicast addresses. */
    static boolean isMulticastLiteral(String v) {
        Matcher m = IPV4.matcher(v);
        if (m.matches()) {
            for (int i = 1; i <= 4; i++) {
                if (Integer.parseInt(m.group(i)) > 255) {
                    return false;
                }
            }
            int first = Integer.parseInt(m.group(1));
            return first >= 224 && first <= 239;
        }
        InetAddress a = v.contains(":") ? ipv6Literal(v) : null;
        return a != null && a.isMulticastAddress();
    }

    /** The address of an IPv6 literal without scope, or null; never a DNS lookup. */
    private static InetAddress ipv6Literal(String v) {
        if (!IPV6_CHARS.matcher(v).matches()) {
            return null;
        }
        try {
            return InetAddress.getByName("[" + v + "]"); // brackets: a literal or an error, never a lookup
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** Free text (machine-id, cluster-name): not blank, at most 128 characters, no control characters. */
    static String text(ConfigOption option, String v) {
        if (v == null || v.isBlank() || v.length() > 128 || v.chars().anyMatch(Character::isISOControl)) {
            throw notAllowed(option, v == null ? "null" : quote(v),
                    "1 to 128 characters, not blank, without control characters");
        }
        return v;
    }

    private static final Pattern NODE_NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    /** {@code node-name}: the route suffix of session ids. */
    static String nodeName(ConfigOption option, String v) {
        if (v == null || !NODE_NAME.matcher(v).matches()) {
            throw notAllowed(option, v == null ? "null" : quote(v), "1 to 64 characters from A-Z, a-z,"
                    + " 0-9, '_' and '-' (the node name becomes the route suffix of session ids)");
        }
        return v;
    }

    /** An IPv4 or IPv6 multicast literal, brackets optional (removed). */
    static String multicastAddress(ConfigOption option, String v) {
        if (v == null) {
            throw notAllowed(option, "null", "a multicast address");
        }
        String address = v.strip();
        address = address.startsWith("[") && address.endsWith("]")
                ? address.substring(1, address.length() - 1) : address;
        if (!isMulticastLiteral(address)) {
            throw new ConfigException(option.key(), quote(v) + " is not a multicast address; expected"
                    + " an IPv4 multicast address in 224.0.0.0/4 (224.0.0.0 to 239.255.255.255) or an IPv6"
                    + " multicast address in ff00::/8, such as 228.8.8.8");
        }
        return address;
    }

    /** An absolute path (as given, not resolved): not blank, no control characters. */
    static String absolutePath(ConfigOption option, String v, String expected) {
        if (v == null || v.isBlank() || v.length() > 4096 || v.chars().anyMatch(Character::isISOControl)) {
            throw notAllowed(option, v == null ? "null" : quote(v), expected);
        }
        try {
            if (Path.of(v).isAbsolute()) {
                return v;
            }
        } catch (InvalidPathException e) {
            // reported below
        }
        throw notAllowed(option, quote(v), expected);
    }

    /** A path (not checked for existence here): not blank, no control characters. */
    static String path(ConfigOption option, String v, String expected) {
        if (v == null || v.isBlank() || v.length() > 4096 || v.chars().anyMatch(Character::isISOControl)) {
            throw notAllowed(option, v == null ? "null" : quote(v), expected);
        }
        try {
            Path.of(v);
        } catch (InvalidPathException e) {
            throw notAllowed(option, quote(v), expected);
        }
        return v;
    }

    /** A key store path; null or blank = not set. */
    static String storePath(ConfigOption option, String v) {
        return v == null || v.isBlank() ? null : path(option, v, "the path of a key store file");
    }

    /** A password, or {@code file:/path} (first line); null or empty = not set; never echoed. */
    static String storePassword(ConfigOption option, String v) {
        if (v == null || v.isEmpty()) {
            return null;
        }
        String password = v.startsWith("file:") ? readSecretFile(option, v.substring("file:".length())) : v;
        if (password.isEmpty()) {
            throw new ConfigException(option.key(), "the password is empty; expected the key store's password"
                    + " or file:/path/to/password");
        }
        return password;
    }

    /** {@code pkcs12} or {@code jks} (any case), held in lower case. */
    static String storeType(ConfigOption option, String v) {
        String type = v == null ? "" : v.strip().toLowerCase(Locale.ROOT);
        if (!type.equals("pkcs12") && !type.equals("jks")) {
            throw notAllowed(option, v == null ? "null" : quote(v), "pkcs12 or jks");
        }
        return type;
    }

    /** Shortest accepted {@code cluster-key} secret. */
    static final int MIN_CLUSTER_KEY_LENGTH = 16;

    /**
     * The shared secret: at least {@value #MIN_CLUSTER_KEY_LENGTH} characters, or {@code file:/path} (first
     * line). Null or blank = no key. Never echoed.
     */
    static String clusterKey(ConfigOption option, String v) {
        if (v == null || v.isBlank()) {
            return null;
        }
        String secret = v.startsWith("file:") ? readSecretFile(option, v.substring("file:".length())) : v;
        if (secret.length() < MIN_CLUSTER_KEY_LENGTH) {
            throw new ConfigException(option.key(), "the secret is " + secret.length()
                    + " characters long; expected at least " + MIN_CLUSTER_KEY_LENGTH
                    + " (a random secret, e.g. the output of 'openssl rand -base64 32'), or file:/path/to/secret");
        }
        return secret;
    }

    private static String readSecretFile(ConfigOption option, String path) {
        try {
            List<String> lines = Files.readAllLines(Path.of(path));
            return lines.isEmpty() ? "" : lines.get(0).strip();
        } catch (IOException | InvalidPathException e) {
            throw new ConfigException(option.key(), "file:" + path + " cannot be read ("
                    + e.getClass().getSimpleName() + "); expected a readable file whose first line is the secret");
        }
    }

    /** Packages whose wildcards would open deserialization to the JDK's own (gadget) classes. */
    private static final List<String> JDK_PACKAGES = List.of("java.", "javax.", "jdk.", "sun.", "com.sun.");

    /**
     * One {@code serialization-allowlist} entry: a package prefix ending in {@code .} or {@code .*}
     * (returned as the prefix ending in {@code .}) or a fully qualified class name (returned as is).
     */
    static String allowlistEntry(ConfigOption option, String raw) {
        String expected = "package prefixes ending in '.' or '.*' (com.example.) or fully qualified class names"
                + " (com.example.Cart)";
        String v = raw == null ? "" : raw.trim();
        boolean wildcard = v.endsWith(".") || v.endsWith(".*");
        String prefix = v.endsWith(".*") ? v.substring(0, v.length() - 1) : v;
        String name = wildcard ? prefix.substring(0, prefix.length() - 1) : v;
        if (v.equals("*") || v.equals(".*") || v.equals(".")) {
            throw notAllowed(option, quote(v), expected + "; a bare wildcard would allow every class on the"
                    + " class path, including gadget classes that run code when deserialized");
        }
        if (!javaName(name)) {
            throw notAllowed(option, raw == null ? "null" : quote(raw), expected);
        }
        if (wildcard && !name.contains(".")) {
            throw notAllowed(option, quote(v), expected + "; a one-segment wildcard (" + prefix + ") would allow"
                    + " every library under it, gadget classes included: name your own packages ("
                    + prefix + "example.)");
        }
        if (wildcard) {
            for (String jdk : JDK_PACKAGES) {
                if (jdk.startsWith(prefix) || prefix.startsWith(jdk)) {
                    throw notAllowed(option, quote(v), expected + "; a wildcard over the JDK packages "
                            + String.join(", ", JDK_PACKAGES) + " would allow gadget classes that run code when"
                            + " deserialized: name the exact classes instead (java.util.ArrayList)");
                }
            }
            return prefix;
        }
        return v;
    }

    /** Dotted Java identifiers ({@code com.example.Cart$Line}). */
    private static boolean javaName(String name) {
        if (name.isEmpty() || name.chars().anyMatch(Character::isIdentifierIgnorable)) {
            return false;
        }
        for (String part : name.split("\\.", -1)) {
            if (part.isEmpty() || !Character.isJavaIdentifierStart(part.charAt(0))
                    || !part.chars().skip(1).allMatch(Character::isJavaIdentifierPart)) {
                return false;
            }
        }
        return true;
    }

    /** A value as it appears in messages: quoted, control characters escaped, long values shortened. */
    static String quote(String raw) {
        StringBuilder sb = new StringBuilder("'");
        String v = raw.length() > 200 ? raw.substring(0, 200) : raw;
        for (char c : v.toCharArray()) {
            if (Character.isISOControl(c)) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append(raw.length() > 200 ? "...'" : "'").toString();
    }
}
