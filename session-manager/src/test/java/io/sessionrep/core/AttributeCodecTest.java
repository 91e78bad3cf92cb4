package io.sessionrep.core;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.serial.ClassAllowlist;
import io.sessionrep.core.serial.ClassNotAllowedException;
import io.sessionrep.core.serial.HostileValues;
import io.sessionrep.core.serial.KryoSessionSerializer;
import io.sessionrep.core.serial.SessionSerializer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The codec's contract: refusals counted, warned about once per class with what to do, never thrown. */
class AttributeCodecTest {
    private final ReplicationMetrics metrics = new ReplicationMetrics(new SimpleMeterRegistry(), "n");
    private final AttributeCodec codec = new AttributeCodec(
            new KryoSessionSerializer(ClassAllowlist.of(List.of()), getClass().getClassLoader()), metrics);

    @Test
    void aValueTheBackupCouldNotRebuildIsRefusedOnWriteCountedAndWarnedAboutOncePerClass() {
        List<String> warnings = captureWarnings(() -> {
            assertNull(codec.write("s1", "a", new AtomicReference<>("x")));
            assertNull(codec.write("s1", "b", new ArrayList<>(List.of(new AtomicReference<>("y")))));
            assertNull(codec.write("s2", "c", Collections.synchronizedList(new ArrayList<>())));
            assertNotNull(codec.write("s2", "d", Collections.unmodifiableList(new ArrayList<>(List.of(1)))));
        });
        assertEquals(3, metrics.notSerializable.count());
        assertEquals(2, warnings.size(), "once per refused class: " + warnings);
        assertTrue(warnings.get(0).contains("java.util.concurrent.atomic.AtomicReference")
                && warnings.get(0).contains("store"), warnings.get(0));
    }

    @Test
    void anyThrowableWhileReadingIsARejectionCountedAndNeverThrown() {
        AttributeCodec overflowing = new AttributeCodec(new SessionSerializer() {
            @Override
            public byte[] serialize(Object value) {
                throw new StackOverflowError();
            }

            @Override
            public Object deserialize(byte[] bytes) throws ClassNotAllowedException {
                throw new StackOverflowError();
            }
        }, metrics);
        assertNull(overflowing.read("s", "a", new byte[] {1}, "peer"));
        assertNull(overflowing.write("s", "a", "value"));
        assertNull(codec.read("s", "a", HostileValues.serialDos(100), "peer"));
        assertNull(codec.read("s", "a", HostileValues.hugeNullList(1 << 29), "peer"));
        assertEquals(3, metrics.rejectedUndecodable.count());
        assertEquals(1, metrics.notSerializable.count());
        assertEquals(List.of(1), codec.read("s", "a", codec.write("s", "a", List.of(1)), "peer"));
    }

    @Test
    void aRefusedNameThatIsNoClassHereIsNotReportedAsAnAllowlistProblem() {
        byte[] queue = HostileValues.plainKryoBytes(new java.util.PriorityQueue<>(List.of("x")));
        byte[] list = HostileValues.plainKryoBytes(new ArrayList<>(List.of(1)));
        byte[] misread = java.util.Arrays.copyOf(list, list.length); // a class name read out of step
        misread[new String(list, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf("java.util.Arr")] = 'x';
        List<String> warnings = captureWarnings(() -> {
            assertNull(codec.read("s", "a", queue, "peer"));
            assertNull(codec.read("s", "b", misread, "peer"));
        });
        assertEquals(2, metrics.rejectedClass.count());
        assertEquals(2, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("class java.util.PriorityQueue is not in serialization-allowlist"), warnings.get(0));
        assertTrue(warnings.get(1).contains("'xava.util.ArrayList', which is neither in serialization-allowlist nor a class"
                + " on this node"), warnings.get(1));
        assertTrue(!warnings.get(1).contains("add its package"), warnings.get(1));
    }

    private static List<String> captureWarnings(Runnable action) {
        Logger logger = Logger.getLogger(SessionReplicator.class.getName());
        List<String> warnings = new ArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel() == java.util.logging.Level.WARNING) {
                    warnings.add(record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
        try {
            action.run();
        } finally {
            logger.removeHandler(handler);
        }
        return warnings;
    }
}
