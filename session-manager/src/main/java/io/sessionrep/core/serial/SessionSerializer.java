package io.sessionrep.core.serial;

import java.io.NotSerializableException;

/** Turns attribute values into bytes and back. Implementations are thread-safe. */
public interface SessionSerializer {

    /**
     * The value in the current format, {@link ValueFormat#NAMED_FIELDS}.
     *
     * @throws NotSerializableException when the value (or something it references) cannot be written
     */
    byte[] serialize(Object value) throws NotSerializableException;

    /**
     * The value in {@code format}: {@link ValueFormat#FIELD_ORDER} while a node that reads nothing else is a
     * member. A serializer with one format only ignores it.
     */
    default byte[] serialize(Object value, ValueFormat format) throws NotSerializableException {
        return serialize(value);
    }

    /**
     * @throws ClassNotAllowedException     when the bytes name a class outside the allowlist
     * @throws IncompatibleValueException when the bytes are well-formed but were written by a version of a class
     *                                    in them that this node's version cannot take without guessing
     * @throws java.io.IOException          when the bytes are not a valid encoding
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

    /**
     * The value {@code bytes} hold, in {@code format}: the same array when it is in that format already, else
     * decoded and written again (so the classes must be loadable here). A serializer with one format returns
     * {@code bytes}.
     */
    default byte[] transcode(byte[] bytes, ValueFormat format) throws ClassNotAllowedException, java.io.IOException {
        return bytes;
    }
}
