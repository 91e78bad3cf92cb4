package io.sessionrep.testservlet;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One validated request to the test servlet: {@code mode}, and for {@code initialize} how many attributes
 * ({@code number}, 1..100) of how many KiB ({@code size}, 1..1024). {@code number} and {@code size} are
 * ignored by the other modes.
 *
 * <p>{@code process} takes an optional {@code from}: the version the client last saw (0 or more). When the
 * session is already at {@code from + 1}, this request has been processed before: the HTTP client sent it
 * again on its own after the first answer was lost (the JDK client retries a GET once when the pooled
 * connection it used fails before any answer came back). The servlet then answers that state unchanged,
 * marked {@code "replayed":true}, instead of processing it twice. Any other version is processed as
 * without {@code from}.
 *
 * @param from for {@code process}: the version the client last saw, or null
 */
public record WorkloadRequest(Mode mode, int number, int sizeKiB, Integer from) {

    /** A request without {@code from}. */
    public WorkloadRequest(Mode mode, int number, int sizeKiB) {
        this(mode, number, sizeKiB, null);
    }

    public static final int MAX_NUMBER = 100;
    public static final int MAX_SIZE_KIB = 1024;

    /** What the request does to the session. */
    public enum Mode {
        /** Creates the session if there is none and (re)sets {@code number} attributes of {@code size} KiB. */
        INITIALIZE,
        /** Rewrites every attribute and increments {@code version}. */
        PROCESS,
        /** Invalidates the session. */
        DESTROY,
        /** Reports the session's state without changing it. */
        VERIFY;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        static String allowed() {
            return Arrays.stream(values()).map(Mode::label).collect(Collectors.joining(", "));
        }
    }

    /** A parameter is missing or invalid; the message names it, the bad value and what is allowed. */
    public static final class Invalid extends Exception {
        public Invalid(String message) {
            super(message);
        }
    }

    /** Reads and validates the request's parameters ({@code parameters} returns null for a missing one). */
    public static WorkloadRequest parse(Function<String, String> parameters) throws Invalid {
        Mode mode = parseMode(parameters.apply("mode"));
        if (mode == Mode.PROCESS) {
            String from = parameters.apply("from");
            return new WorkloadRequest(mode, 0, 0, from == null ? null : parseFrom(from));
        }
        if (mode != Mode.INITIALIZE) {
            return new WorkloadRequest(mode, 0, 0);
        }
        int number = parseInt("number", parameters.apply("number"), MAX_NUMBER);
        int size = parseInt("size", parameters.apply("size"), MAX_SIZE_KIB);
        return new WorkloadRequest(mode, number, size);
    }

    private static Mode parseMode(String value) throws Invalid {
        if (value == null || value.isBlank()) {
            throw new Invalid("missing parameter mode; expected one of " + Mode.allowed());
        }
        for (Mode m : Mode.values()) {
            if (m.label().equals(value.trim())) {
                return m;
            }
        }
        throw new Invalid("mode: '" + value + "' is not allowed; expected one of " + Mode.allowed());
    }

    private static int parseFrom(String value) throws Invalid {
        try {
            int parsed = Integer.parseInt(value.trim());
            if (parsed >= 0) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new Invalid("from: '" + value + "' is not allowed; expected the version last seen, an integer from 0");
    }

    private static int parseInt(String name, String value, int max) throws Invalid {
        String expected = "expected an integer from 1 to " + max;
        if (value == null || value.isBlank()) {
            throw new Invalid("missing parameter " + name + "; " + expected);
        }
        int parsed;
        try {
            parsed = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new Invalid(name + ": '" + value + "' is not allowed; " + expected);
        }
        if (parsed < 1 || parsed > max) {
            throw new Invalid(name + ": " + parsed + " is not allowed; " + expected);
        }
        return parsed;
    }
}
