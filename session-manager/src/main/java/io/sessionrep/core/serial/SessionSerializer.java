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
}
