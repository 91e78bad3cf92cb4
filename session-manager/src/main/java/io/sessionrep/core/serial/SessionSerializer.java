package io.sessionrep.core.serial;

import java.io.NotSerializableException;

/** Turns attribute values into bytes and back. Implementations are thread-safe. */
public interface SessionSerializer {

    /** @throws NotSerializableException when the value (or something it references) cannot be written */
    byte[] serialize(Object value) throws NotSerializableException;

    /**
     * @throws ClassNotAllowedException when the bytes name a class outside the allowlist
     * @throws java.io.IOException      when the bytes are not a valid encoding
     */
    Object deserialize(byte[] bytes) throws ClassNotAllowedException, java.io.IOException;

    /**
     * Whether {@code bytes} decode to a non-null value, with the verdict (and the exceptions) of
     * {@link #deserialize}, without necessarily building the value: a backup checks every value it stores
     * but rebuilds values only when it takes a session over.
     */
    default boolean decodesToValue(byte[] bytes) throws ClassNotAllowedException, java.io.IOException {
        return deserialize(bytes) != null;
    }
}
