package io.sessionrep.core.transport;

/** The transport could not start or lost its channel. The message says what and, where known, why. */
public class TransportException extends RuntimeException {
    public TransportException(String message, Throwable cause) {
        super(message, cause);
    }

    public TransportException(String message) {
        super(message);
    }
}
