package io.sessionrep.core;

import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.serial.ClassNotAllowedException;
import io.sessionrep.core.serial.IncompatibleValueException;
import io.sessionrep.core.serial.SessionSerializer;
import io.sessionrep.core.serial.UnsupportedValueException;
import io.sessionrep.core.serial.ValueFormat;


/**
 * Serializes attribute values with the configured serializer and turns its failures into counted,
 * logged-once events. Writing: a value that cannot be written, or that the serializer refuses because a
 * backup could not rebuild it exactly, is not replicated, counted ({@code attributes.not.serializable})
 * and reported once per refused class, with the serializer's advice. Reading: a value naming a class
 * outside the allowlist is refused and reported once per class; a value written by a version of a class that this
 * node's version cannot take ({@link IncompatibleValueException}) is not restored, counted by class and reported
 * once per class with the member and the reason (a backup keeps such a value: a node of the writer's version
 * may take the session over); any other failure, whatever
 * {@link Throwable} it is ({@link StackOverflowError} included), is counted as undecodable and logged
 * once at WARNING (then at DEBUG: hostile traffic must not flood the log). Neither method ever throws.
 */
final class AttributeCodec {
    private static final System.Logger LOG = System.getLogger(SessionReplicator.class.getName());

    private final SessionSerializer serializer;
    private final ReplicationMetrics metrics;
    private final ReportOnce reportedUnserializable = ReportOnce.standard();
    private final ReportOnce reportedRejected = ReportOnce.standard();
    private final ReportOnce reportedIncompatible = ReportOnce.standard();
    private final java.util.concurrent.atomic.AtomicBoolean reportedUndecodable = new java.util.concurrent.atomic.AtomicBoolean();

    /** The format values are written in: what every member of the view reads ({@link ClusterProtocol}). */
    private volatile ValueFormat writeFormat = ValueFormat.NAMED_FIELDS;

    AttributeCodec(SessionSerializer serializer, ReplicationMetrics metrics) {
        this.serializer = serializer;
        this.metrics = metrics;
    }

    void writeIn(ValueFormat format) {
        writeFormat = format;
    }

    /** The value's bytes, or null when it cannot be serialized (counted; reported once per refused class). */
    byte[] write(String sessionId, String name, Object value) {
        try {
            return serializer.serialize(value, writeFormat);
        } catch (Throwable e) {
            metrics.notSerializable.increment();
            String refused = e instanceof UnsupportedValueException u ? u.className() : value.getClass().getName();
            if (reportedUnserializable.firstTime(refused)) {
                LOG.log(System.Logger.Level.WARNING, "session attribute '" + name + "' (" + value.getClass().getName()
                        + ") is not replicated: " + e.getMessage() + " (session " + LogIds.shortForm(sessionId)
                        + "; reported once per class)");
            }
            return null;
        }
    }

    /**
     * A value held as bytes (a backup, a copy not in use) in {@code format}, for a member that reads only that
     * format; null when it cannot be rewritten here (counted as not serializable; reported once per class).
     */
    byte[] rewrite(String sessionId, String name, byte[] bytes, ValueFormat format) {
        try {
            return serializer.transcode(bytes, format);
        } catch (Throwable e) {
            metrics.notSerializable.increment();
            String key = e instanceof IncompatibleValueException i ? i.className()
                    : e instanceof ClassNotAllowedException c ? c.className() : e.getClass().getName();
            if (reportedUnserializable.firstTime(key)) {
                LOG.log(System.Logger.Level.WARNING, "session attribute '" + name + "' (session " + LogIds.shortForm(sessionId)
                        + ") is left out of a copy for a member of wire protocol 2: it could not be rewritten in the field"
                        + " order that member reads (" + e.getMessage() + "; reported once per class)");
            }
            return null;
        }
    }

    /**
     * The value, or null when refused (class outside the allowlist) or undecodable; both are counted
     * as rejected.
     */
    Object read(String sessionId, String name, byte[] bytes, String from) {
        try {
            return decode(sessionId, name, bytes, from, serializer::deserialize);
        } catch (IncompatibleValueException e) {
            metrics.incompatible(e.className()).increment();
            if (reportedIncompatible.firstTime(e.className())) {
                LOG.log(System.Logger.Level.WARNING, "session attribute '" + name + "' is not restored (session "
                        + LogIds.shortForm(sessionId) + ", from " + from + "): it was written by another version of "
                        + e.className() + " that this one cannot take: " + (e.member() == null ? "" : e.member() + ": ")
                        + e.reason() + ". The application sees the attribute missing; the rest of the session is"
                        + " restored (counted in " + ReplicationMetrics.INCOMPATIBLE + "; reported once per class)");
            }
            return null;
        }
    }

    /**
     * Whether the bytes decode to a value, with {@link #read}'s verdict, counting and reporting, but
     * without necessarily building the value (a backup checks what it stores; it rebuilds on take-over).
     */
    boolean readable(String sessionId, String name, byte[] bytes, String from) {
        try {
            return decode(sessionId, name, bytes, from, b -> serializer.decodesToValue(b) ? Boolean.TRUE : null) != null;
        } catch (IncompatibleValueException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "backup of session " + LogIds.shortForm(sessionId) + ": attribute '"
                    + name + "' from " + from + " is kept though this node could not restore it (" + e.getMessage() + ")");
            return true;
        }
    }

    private interface Decoding {
        Object apply(byte[] bytes) throws Exception;
    }

    private Object decode(String sessionId, String name, byte[] bytes, String from, Decoding decoding)
            throws IncompatibleValueException {
        try {
            return decoding.apply(bytes);
        } catch (IncompatibleValueException e) {
            throw e;
        } catch (ClassNotAllowedException e) {
            metrics.rejectedClass.increment();
            if (reportedRejected.firstTime(e.className())) {
                LOG.log(System.Logger.Level.WARNING, "refused session attribute '" + name + "' from " + from + " (session "
                        + LogIds.shortForm(sessionId) + "): " + (e.isClassHere()
                        ? "class " + e.className() + " is not in serialization-allowlist (add its package to"
                                + " serialization-allowlist on every node if it is yours; reported once per class)"
                        : "its bytes name '" + e.className() + "', which is neither in serialization-allowlist nor a"
                                + " class on this node: most likely a value written by another version of a class it holds,"
                                + " read out of step, or bytes that are not a session value (not an allowlist problem;"
                                + " reported once per name)"));
            }
            return null;
        } catch (Throwable e) {
            metrics.rejectedUndecodable.increment();
            boolean first = reportedUndecodable.compareAndSet(false, true);
            LOG.log(first ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG, "undecodable session attribute '"
                    + name + "' from " + from + " (session " + LogIds.shortForm(sessionId) + "): " + e.getMessage()
                    + (first ? " (further ones are counted in " + ReplicationMetrics.REJECTED + " and logged at DEBUG)" : ""));
            return null;
        }
    }
}
