package io.sessionrep.core;

/**
 * A request needed a session that another live node owns, and that node did not hand it over within
 * {@code ownership-timeout} (its own requests on the session ran longer, or it did not answer). The
 * integrations answer such a request with {@code 503 Service Unavailable} and a {@code Retry-After}
 * header, without running the application: nothing of the session was read or changed here, so retrying
 * the request is safe. Counted in {@code sessionrep.ownership.timeouts} and logged once per session.
 */
public final class OwnershipTimeoutException extends RuntimeException {
    /** The response status the integrations send. */
    public static final int STATUS = 503;
    /** The header that marks the refusal as sessionrep's, with the value {@link #REASON}. */
    public static final String HEADER = "X-Sessionrep-Refused";
    public static final String REASON = "ownership-timeout";

    public OwnershipTimeoutException(String message) {
        super(message, null, false, false);
    }
}
