package io.sessionrep.core.serial;

import java.io.IOException;

/**
 * Well-formed bytes that this node's classes cannot take without guessing: the value was written by another
 * version of a class in it, and the change is not one the format can follow (a field whose declared type changed,
 * a class or enum constant that does not exist here, a changed {@code serialVersionUID}, a record whose
 * constructor refuses the values). The attribute is restored missing, never with a wrong value.
 */
public class IncompatibleValueException extends IOException {
    private final String className;
    private final String member;
    private final String reason;

    /**
     * @param className the class that differs (possibly nested inside the attribute's value)
     * @param member    the field, record component or enum constant concerned; null when the class as a whole
     * @param reason    what differs, in words
     */
    public IncompatibleValueException(String className, String member, String reason) {
        super(className + (member == null ? "" : "." + member) + ": " + reason);
        this.className = className;
        this.member = member;
        this.reason = reason;
    }

    /** The class that differs; what the warning is deduplicated on and the meter is tagged with. */
    public String className() {
        return className;
    }

    /** The field, record component or enum constant concerned, or null. */
    public String member() {
        return member;
    }

    public String reason() {
        return reason;
    }
}
