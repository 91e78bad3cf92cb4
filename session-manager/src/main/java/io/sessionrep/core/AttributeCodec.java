package io.sessionrep.core;

import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.serial.ClassNotAllowedException;
import io.sessionrep.core.serial.SessionSerializer;

import java.io.IOException;
import java.io.NotSerializableException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Serializes attribute values with the configured serializer and turns its failures into counted,
 * logged-once events: a value that cannot be written is reported by attribute name and class, once; a
 * received value naming a class outside the allowlist is refused and reported once per class.
 */
final class AttributeCodec {
    private static final System.Logger LOG = System.getLogger(SessionReplicator.class.getName());

    private final SessionSerializer serializer;
    private final ReplicationMetrics metrics;
    private final Set<String> reportedUnserializable = ConcurrentHashMap.newKeySet();
    private final Set<String> reportedRejected = ConcurrentHashMap.newKeySet();

    AttributeCodec(SessionSerializer serializer, ReplicationMetrics metrics) {
        this.serializer = serializer;
        this.metrics = metrics;
    }

    /** The value's bytes, or null when it cannot be serialized (reported once per attribute name/class). */
    byte[] write(String sessionId, String name, Object value) {
        try {
            return serializer.serialize(value);
        } catch (NotSerializableException | RuntimeException e) {
            metrics.notSerializable.increment();
            if (reportedUnserializable.add(name + "\u0000" + value.getClass().getName())) {
                LOG.log(System.Logger.Level.WARNING, "session attribute '" + name + "' (" + value.getClass().getName()
                        + ") cannot be serialized and is not replicated: " + e.getMessage()
                        + " (session " + sessionId + "; reported once per attribute and class)");
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
            return serializer.deserialize(bytes);
        } catch (ClassNotAllowedException e) {
            metrics.rejectedClass.increment();
            if (reportedRejected.add(e.className())) {
                LOG.log(System.Logger.Level.WARNING, "refused session attribute '" + name + "' from " + from
                        + ": class " + e.className() + " is not in serialization-allowlist (session " + sessionId
                        + "; add its package to serialization-allowlist if it is yours; reported once per class)");
            }
            return null;
        } catch (IOException | RuntimeException e) {
            metrics.rejectedUndecodable.increment();
            LOG.log(System.Logger.Level.WARNING, "undecodable session attribute '" + name + "' from " + from
                    + " (session " + sessionId + "): " + e.getMessage());
            return null;
        }
    }
}
