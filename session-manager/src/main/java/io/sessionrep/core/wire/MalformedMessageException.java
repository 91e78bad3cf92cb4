package io.sessionrep.core.wire;

/** Bytes that are not a valid replication message of a version we understand. Counted, never fatal. */
public class MalformedMessageException extends Exception {
    public MalformedMessageException(String message) {
        super(message);
    }
}
