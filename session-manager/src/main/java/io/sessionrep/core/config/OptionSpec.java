package io.sessionrep.core.config;

import static io.sessionrep.core.config.OptionParsers.formatDuration;
import static io.sessionrep.core.config.OptionParsers.formatSize;
import static io.sessionrep.core.config.OptionParsers.notAllowed;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The typed half of one row of the {@link ConfigOption} table: how the option's text is parsed, how a typed
 * value is checked (and normalized), its default, and how it is written back (start-up description,
 * messages). Immutable: the modifiers ({@link #byDefault(Object)}, {@link #checkedBy}, ...) return modified copies, so a row reads
 * {@code OptionSpec.integer(0, 64).byDefault(1)}.
 *
 * @param <T> the type of the value ({@code Integer}, {@code Duration}, {@code List<HostPort>}, ...)
 */
final class OptionSpec<T> {

    /** Text (trimmed, never blank) to a typed value; failures are {@link ConfigException}s naming the option. */
    @FunctionalInterface
    interface Parser<T> {
        T parse(ConfigOption option, String text);
    }

    /**
     * Checks a typed value (possibly null) and returns it as held (normalized: brackets removed, lower case,
     * a secret read from its file); null means "not set". Failures name the option and what is allowed.
     */
    @FunctionalInterface
    interface Check<T> {
        T check(ConfigOption option, T value);
    }

    private String metavar;
    private Parser<T> parser;
    private Check<T> check;
    private Supplier<T> defaultValue;
    private String defaultDoc;
    private String values;
    private Function<T, String> format;
    private Function<T, String> shown;
    private boolean secret;

    private OptionSpec(String metavar, Parser<T> parser, Check<T> check, Supplier<T> defaultValue,
                       String defaultDoc, String values, Function<T, String> format, Function<T, String> shown) {
        this.metavar = metavar;
        this.parser = parser;
        this.check = check;
        this.defaultValue = defaultValue;
        this.defaultDoc = defaultDoc;
        this.values = values;
        this.format = format;
        this.shown = shown;
    }

    // ------------------------------------------------------------------ kinds of option

    /** Integers from {@code min} to {@code max}. */
    static OptionSpec<Integer> integer(int min, int max) {
        return new OptionSpec<Integer>("N", (o, v) -> OptionParsers.integer(o, v, min, max),
                (o, v) -> OptionParsers.checkRange(o, nonNull(o, v, "an integer"), min, max), () -> null, "none",
                max == Integer.MAX_VALUE ? "≥ " + min : min + ".." + max, String::valueOf, null);
    }

    /** {@code true} or {@code false}. */
    static OptionSpec<Boolean> bool() {
        return new OptionSpec<Boolean>("true|false", OptionParsers::bool, (o, v) -> nonNull(o, v, "true or false"),
                () -> null, "none", "true, false", String::valueOf, null);
    }

    /** A duration greater than 0 and at most {@code maxSeconds}; {@code example} is shown in the message. */
    static OptionSpec<Duration> duration(int maxSeconds, String example) {
        return durationUpTo(false, Duration.ofSeconds(maxSeconds), "a duration greater than 0 and at most "
                + maxSeconds + "s, such as " + example, "duration, > 0, ≤ " + maxSeconds + "s");
    }

    /** A duration from 0 to {@code maxMillis} milliseconds (0 allowed); {@code example} is shown in the message. */
    static OptionSpec<Duration> shortDuration(int maxMillis, String example) {
        return durationUpTo(true, Duration.ofMillis(maxMillis), "a duration from 0 to " + maxMillis + "ms, such as "
                + example, "duration, 0.." + maxMillis + "ms");
    }

    private static OptionSpec<Duration> durationUpTo(boolean zeroAllowed, Duration max, String expected, String values) {
        return new OptionSpec<Duration>("DURATION", OptionParsers::duration, (o, v) -> {
            if (nonNull(o, v, expected).isNegative() || (v.isZero() && !zeroAllowed) || v.compareTo(max) > 0) {
                throw notAllowed(o, formatDuration(v), expected);
            }
            return v;
        }, () -> null, "none", values, OptionParsers::formatDuration, null);
    }

    /** A size in bytes from {@code min} to {@code max}; {@code expected} is the message's wording. */
    static OptionSpec<Long> size(long min, long max, String expected, String values) {
        return new OptionSpec<Long>("SIZE", OptionParsers::size, (o, v) -> {
            if (nonNull(o, v, expected) < min || v > max) {
                throw notAllowed(o, formatSize(v), expected);
            }
            return v;
        }, () -> null, "none", values, OptionParsers::formatSize, null);
    }

    /** One of the constants of an enum, by its option spelling (any case). */
    static <E extends Enum<E>> OptionSpec<E> choice(E[] constants, Function<E, String> spelling) {
        List<String> names = Arrays.stream(constants).map(spelling).toList();
        String expected = String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
        return new OptionSpec<E>(String.join("|", names), (o, v) -> OptionParsers.choice(o, v, constants, spelling),
                (o, v) -> nonNull(o, v, expected), () -> null, "none", String.join(", ", names), spelling, null);
    }

    /** Text of the option's own rules ({@code check}), held as given or as {@code check} normalizes it. */
    static OptionSpec<String> text(String metavar, String values, Check<String> check) {
        return new OptionSpec<String>(metavar, (o, v) -> v, check, () -> null, "none", values, v -> v, null);
    }

    /** A Java regular expression matched against request paths, {@code static-files} or {@code none}. */
    static OptionSpec<IgnoredPaths> ignoredPaths() {
        String expected = "a Java regular expression matched against the path inside the context, such as"
                + " .*\\.(css|js|png), static-files or none";
        return new OptionSpec<IgnoredPaths>("REGEX", (o, v) -> {
            try {
                return IgnoredPaths.of(v);
            } catch (java.util.regex.PatternSyntaxException e) {
                throw notAllowed(o, OptionParsers.quote(v), expected + " (" + e.getDescription() + " at index " + e.getIndex() + ")");
            }
        }, (o, v) -> nonNull(o, v, expected), () -> null, "none", "static-files, none, or a Java regular expression",
                IgnoredPaths::toString, null);
    }

    /** A list (items separated by commas and/or whitespace), each item parsed and checked by {@code item}. */
    static <E> OptionSpec<List<E>> list(String metavar, String values, Parser<E> item, Check<List<E>> check) {
        return new OptionSpec<List<E>>(metavar, (o, v) -> OptionParsers.list(v).stream()
                .map(i -> item.parse(o, i)).toList(), check, List::of, "empty", values,
                l -> l.stream().map(String::valueOf).collect(Collectors.joining(",")), l -> l.isEmpty() ? "(none)" : null);
    }

    /** The value must not be null: {@code null is not allowed; expected <expected>}. */
    static <V> V nonNull(ConfigOption option, V value, String expected) {
        if (value == null) {
            throw notAllowed(option, "null", expected);
        }
        return value;
    }

    // ------------------------------------------------------------------ modifiers

    /** A fixed default, documented as it is written back ({@code 500ms}, {@code 1MiB}). */
    OptionSpec<T> byDefault(T value) {
        Objects.requireNonNull(value);
        return byDefault(() -> value, format.apply(value));
    }

    /** A default computed per builder (host name, heap size), documented as {@code doc}. */
    OptionSpec<T> byDefault(Supplier<T> value, String doc) {
        OptionSpec<T> copy = copy();
        copy.defaultValue = value;
        copy.defaultDoc = doc;
        return copy;
    }

    /** The default as documented, when it is not the value's text ({@code 0 (auto: first free from 7800)}). */
    OptionSpec<T> documentedDefault(String doc) {
        OptionSpec<T> copy = copy();
        copy.defaultDoc = doc;
        return copy;
    }

    /** How the start-up description shows a value when not as its text ({@code 0 (auto)}); null: as text. */
    OptionSpec<T> shownAs(Function<T, String> shownAs) {
        OptionSpec<T> copy = copy();
        copy.shown = shownAs;
        return copy;
    }

    /** The text parser, when it differs from the kind's (e.g. other bounds in its message). */
    OptionSpec<T> parsedBy(Parser<T> parsedBy) {
        OptionSpec<T> copy = copy();
        copy.parser = parsedBy;
        return copy;
    }

    /** The check, when it differs from the kind's. */
    OptionSpec<T> checkedBy(Check<T> checkedBy) {
        OptionSpec<T> copy = copy();
        copy.check = checkedBy;
        return copy;
    }

    /** The allowed values as documented (README's "values" column), when not the kind's. */
    OptionSpec<T> values(String documented) {
        OptionSpec<T> copy = copy();
        copy.values = documented;
        return copy;
    }

    /** A secret: never echoed in messages, masked ({@code ****}) in the start-up description. */
    OptionSpec<T> secret() {
        OptionSpec<T> copy = copy();
        copy.secret = true;
        return copy;
    }

    private OptionSpec<T> copy() {
        OptionSpec<T> copy = new OptionSpec<>(metavar, parser, check, defaultValue, defaultDoc, values, format, shown);
        copy.secret = secret;
        return copy;
    }

    // ------------------------------------------------------------------ use

    T parse(ConfigOption option, String text) {
        return parser.parse(option, text);
    }

    T check(ConfigOption option, T value) {
        return check.check(option, value);
    }

    T defaultValue() {
        return defaultValue.get();
    }

    String defaultDoc() {
        return defaultDoc;
    }

    String values() {
        return values;
    }

    String metavar() {
        return metavar;
    }

    boolean isSecret() {
        return secret;
    }

    /** The value as text that parses back to it; {@code null} for no value. */
    String format(Object value) {
        return value == null ? "null" : format.apply(cast(value));
    }

    /** The value for the start-up description (secrets are masked by the caller). */
    String show(Object value) {
        if (value == null) {
            return "(not set)";
        }
        if (secret) {
            return "****";
        }
        String special = shown == null ? null : shown.apply(cast(value));
        return special != null ? special : format.apply(cast(value));
    }

    @SuppressWarnings("unchecked")
    private T cast(Object value) {
        return (T) value;
    }
}
