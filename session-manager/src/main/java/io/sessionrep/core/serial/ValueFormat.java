package io.sessionrep.core.serial;

/**
 * How an attribute value's bytes describe the objects in it. Both formats are Kryo trees without references
 * under the same allowlist and limits; they differ in how an application class's fields are laid out, which is
 * what decides whether a value survives a change of its class.
 * <ul>
 *   <li>{@link #FIELD_ORDER}: fields one after the other, sorted by name, nothing else (Kryo's
 *       {@code FieldSerializer}). A reader whose class has a field more or less reads the wrong bytes. The only format of
 *       wire protocol 2; kept so that a node reads what protocol-2 nodes send and writes what they read while
 *       they are in its view.</li>
 *   <li>{@link #NAMED_FIELDS}: each value carries, once per class it holds, the names and declared types of
 *       that class's fields, and each field's value is framed by its length ({@link NamedFieldSerializer}).
 *       A reader matches fields by name: an added field takes its default, a removed one is skipped, order
 *       does not matter; a field whose declared type changed makes the value incompatible, never guessed.
 *       Enum constants travel by name. Its bytes start with {@link #NAMED_FIELDS_MARKER}, which no
 *       field-order value does (their first byte is a Kryo class id below 0x80).</li>
 * </ul>
 */
public enum ValueFormat {
    FIELD_ORDER,
    NAMED_FIELDS;

    /** The first byte of every {@link #NAMED_FIELDS} value. */
    static final byte NAMED_FIELDS_MARKER = (byte) 0xC3;

    /** The format {@code bytes} are in, from their first byte (an empty array counts as field order). */
    public static ValueFormat of(byte[] bytes) {
        return bytes.length > 0 && bytes[0] == NAMED_FIELDS_MARKER ? NAMED_FIELDS : FIELD_ORDER;
    }
}
