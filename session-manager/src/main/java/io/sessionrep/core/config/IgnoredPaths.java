package io.sessionrep.core.config;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The value of {@code ignored-paths}: which requests take no part in session ownership, by their path inside
 * the context (the request URI without the context path, decoded, as the container maps it). The expression is
 * compiled once, when the configuration is built; a request costs one {@link java.util.regex.Matcher#matches}.
 * {@link #NONE} ignores no request.
 */
public final class IgnoredPaths {
    /** The expression of the default: the usual static resources, by their file extension. */
    public static final String DEFAULT_EXPRESSION =
            ".*\\.(css|js|mjs|map|png|gif|jpe?g|svg|ico|webp|avif|woff2?|ttf|otf|eot)";
    /** The spelling that turns the filter off (a blank value means "not set", as for every option). */
    public static final String OFF = "none";
    /** The spelling of the default, {@link #DEFAULT_EXPRESSION}. */
    public static final String STATIC_FILES = "static-files";
    /** Ignores no request. */
    public static final IgnoredPaths NONE = new IgnoredPaths(null);
    /** The default, spelled {@code static-files}: {@link #DEFAULT_EXPRESSION}. */
    public static final IgnoredPaths DEFAULT = new IgnoredPaths(Pattern.compile(DEFAULT_EXPRESSION));

    private final Pattern pattern;

    private IgnoredPaths(Pattern pattern) {
        this.pattern = pattern;
    }

    /**
     * {@code expression} compiled; {@link #NONE} for {@code none}, {@link #DEFAULT} for {@code static-files} (any
     * case).
     *
     * @throws PatternSyntaxException when it is not a Java regular expression
     */
    public static IgnoredPaths of(String expression) {
        if (expression.strip().equalsIgnoreCase(OFF)) {
            return NONE;
        }
        if (expression.strip().equalsIgnoreCase(STATIC_FILES) || expression.equals(DEFAULT_EXPRESSION)) {
            return DEFAULT;
        }
        return new IgnoredPaths(Pattern.compile(expression));
    }

    /** Whether a request whose path inside the context is {@code path} is ignored (null: never). */
    public boolean matches(String path) {
        return pattern != null && path != null && pattern.matcher(path).matches();
    }

    /** Whether some request is ignored (false for {@link #NONE}). */
    public boolean any() {
        return pattern != null;
    }

    /** {@code static-files}, {@code none} or the expression: the text that parses back to this value. */
    @Override
    public String toString() {
        return pattern == null ? OFF : this == DEFAULT ? STATIC_FILES : pattern.pattern();
    }

    /** The regular expression matched, or null for {@link #NONE}. */
    public String expression() {
        return pattern == null ? null : pattern.pattern();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof IgnoredPaths that && String.valueOf(expression()).equals(String.valueOf(that.expression()));
    }

    @Override
    public int hashCode() {
        return String.valueOf(expression()).hashCode();
    }
}
