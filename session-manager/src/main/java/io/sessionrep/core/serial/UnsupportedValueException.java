package io.sessionrep.core.serial;

import java.io.NotSerializableException;

/**
 * The primary refuses to write a value because the backup could not rebuild it exactly: the class (or a
 * class inside the value) is not in the allowlist, is a JDK type without an exact serializer, or the
 * value's shape is outside the limits a receiver enforces. The message names the class and says what
 * to store instead; {@link #className()} is what warnings are deduplicated on.
 */
public class UnsupportedValueException extends NotSerializableException {
    private final String className;

    public UnsupportedValueException(String className, String reason) {
        super(className + ": " + reason);
        this.className = className;
    }

    /** The class that was refused (possibly nested inside the attribute's value). */
    public String className() {
        return className;
    }
}
