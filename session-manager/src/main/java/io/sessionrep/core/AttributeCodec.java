package io.sessionrep.core;

import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.serial.ClassNotAllowedException;
import io.sessionrep.core.serial.SessionSerializer;
import io.sessionrep.core.serial.UnsupportedValueException;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Serializes attribute values with the configured serializer and turns its failures into counted,
 * logged-once events. Writing: a value that cannot be written, or that the serializer refuses because a
 * backup could not rebuild it exactly, is not replicated, counted ({@code attributes.not.serializable})
 * and reported once per refused class, with the serializer's advice. Reading: a value naming a class
 * outside the allowlist is refused and reported once per class; any other failure, whatever
 * {@link Throwable} it is ({@link StackOverflowError} included), is counted as undecodable and logged
 * once at WARNING (then at DEBUG: hostile traffic must not flood the log). Neither method ever throws.
 */
final class AttributeCodec {
    private static final System.Logger LOG = System.getLogger(SessionReplicator.class.getName());

    private final SessionSerializer serializer;
    private final ReplicationMetrics metrics;
    private final Set<String> reportedUnserializable = ConcurrentHashMap.newKeySet();
    private final Set<String> reportedRejected = ConcurrentHashMap.newKeySet();
    /** Class names come from senders: the "reported once" sets stop growing here (later ones are counted only). */
    private static final int MAX_REPORTED = 1000;
    private final java.util.concurrent.atomic.AtomicBoolean reportedUndecodable = new java.util.concurrent.atomic.AtomicBoolean();

    AttributeCodec(SessionSerializer serializer, ReplicationMetrics metrics) {
        this.serializer = serializer;
        this.metrics = metrics;
    }

    /** The value's bytes, or null when it cannot be serialized (counted; reported once per refused class). */
    byte[] write(String sessionId, String name, Object value) {
        try {
            return serializer.serialize(value);
        } catch (Throwable e) {
            metrics.notSerializable.increment();
            String refused = e instanceof UnsupportedValueException u ? u.className() : value.getClass().getName();
            if (reportedUnserializable.add(refused)) {
                LOG.log(System.Logger.Level.WARNING, "session attribute '" + name + "' (" + value.getClass().getName()
                        + ") is not replicated: " + e.getMessage() + " (session " + LogIds.shortForm(sessionId)
                        + "; reported once per class)");
            }
            return null;
        }
    }

    /**
     * The value, or null when refused (class outside the allowlist) or undecodable; both are counted
     * as rejected.
     */
    Object read(String sessionId, String name, byte[] bytes, String from) {
        return decode(sessionId, name, bytes, from, serializer::deserialize);
    }

    /**
     * Whether the bytes decode to a value, with {@link #read}'s verdict, counting and reporting, but
     * without necessarily building the value (a backup checks what it stores; it rebuilds on take-over).
     */
    boolean readable(String sessionId, String name, byte[] bytes, String from) {
        return decode(sessionId, name, bytes, from, b -> serializer.decodesToValue(b) ? Boolean.TRUE : null) != null;
    }

    private interface Decoding {
        Object apply(byte[] bytes) throws Exception;
    }

    private Object decode(String sessionId, String name, byte[] bytes, String from, Decoding decoding) {
        try {
            return decoding.apply(bytes);
        } catch (ClassNotAllowedException e) {
            metrics.rejectedClass.increment();
            if (reportedRejected.size() < MAX_REPORTED && reportedRejected.add(e.className())) {
                LOG.log(System.Logger.Level.WARNING, "refused session attribute '" + name + "' from " + from
                        + ": class " + e.className() + " is not in serialization-allowlist (session " + LogIds.shortForm(sessionId)
                        + "; add its package to serialization-allowlist if it is yours; reported once per class)");
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
