package io.sessionrep.jetty;

import io.sessionrep.core.OwnershipTimeoutException;

/**
 * Carries an {@link OwnershipTimeoutException} out of Jetty's session resolution. Jetty turns any
 * {@link Exception} thrown while it loads a session into "no session" (the request would then run without
 * its session, and a new one could replace it: a silent loss), so this is an {@link Error}: it ends the
 * request before the application runs. {@link OwnershipTimeoutHandler} turns it into
 * {@code 503 Service Unavailable}; without that handler Jetty answers 500.
 */
final class HandOverTimeout extends Error {
    HandOverTimeout(OwnershipTimeoutException cause) {
        super(cause.getMessage(), cause, false, false);
    }
}
