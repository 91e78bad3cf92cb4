package io.sessionrep.core;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.testsupport.ClassVersions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session written by one build of an application and taken over by a node running another build (a rolling
 * deploy): every attribute the new build can take arrives with its value, one it cannot is restored missing, counted
 * by class, and reported once per class naming the member and the reason; the take-over itself succeeds.
 */
class ClassEvolutionReplicationTest extends SessionReplicatorContract {
    @TempDir
    Path dir;

    private final List<LogRecord> warnings = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
                synchronized (warnings) {
                    warnings.add(record);
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger replicatorLog = Logger.getLogger(SessionReplicator.class.getName());

    ClassEvolutionReplicationTest() {
        super(ContractNetwork.inMemory());
    }

    @BeforeEach
    void captureWarnings() {
        replicatorLog.addHandler(capture);
    }

    @AfterEach
    void stopCapturing() {
        replicatorLog.removeHandler(capture);
    }

    private static final UnaryOperator<ReplicationConfig.Builder> SHOP =
            b -> b.serializationAllowlist(List.of("com.example.shop."));

    private static final String USER = "public class User implements java.io.Serializable { String login; }";
    private static final String SIZE_V1 = "public enum Size { S, M, L }";
    private static final String CART_V1 = """
            public class Cart implements java.io.Serializable {
                java.util.List<String> items;
            }""";
    private static final String CART_V2 = """
            public class Cart implements java.io.Serializable {
                java.util.List<String> items;
                String coupon;
            }""";
    private static final String CART_V3 = """
            public class Cart implements java.io.Serializable {
                java.util.ArrayList<Item> items;
            }""";

    private ClassLoader build(String... classes) {
        Map<String, String> sources = new java.util.LinkedHashMap<>();
        for (int i = 0; i < classes.length; i += 2) {
            sources.put("com.example.shop." + classes[i], "package com.example.shop;\n" + classes[i + 1]);
        }
        return ClassVersions.compile(dir, sources);
    }

    private static Object make(ClassLoader build, String className, Object... fields) throws Exception {
        return ClassVersions.make(build, "com.example.shop." + className, fields);
    }

    private static Object field(Object object, String name) throws Exception {
        return ClassVersions.field(object, name);
    }

    private TestSession shopSession(ClassLoader build) throws Exception {
        return shopSession(build, "s1");
    }

    private TestSession shopSession(ClassLoader build, String id) throws Exception {
        return newSession(id)
                .set("cart", make(build, "Cart", "items", new ArrayList<>(List.of("book"))))
                .set("user", make(build, "User", "login", "ann"))
                .set("size", build.loadClass("com.example.shop.Size").getMethod("valueOf", String.class).invoke(null, "M"))
                .set("visits", 3);
    }

    @Test
    void aFieldAddedOnTheNewBuildKeepsEveryAttributeInBothDirections() throws Exception {
        ClassLoader v1 = build("Cart", CART_V1, "User", USER, "Size", SIZE_V1);
        ClassLoader v2 = build("Cart", CART_V2, "User", USER, "Size", "public enum Size { XS, S, M, L }");
        SessionReplicator old = node("a", SHOP, v1);
        SessionReplicator next = node("b", SHOP, v2);

        TestSession s = shopSession(v1);
        old.requestEnd(s, s.tracker);
        settle(old);
        RestoredSession onNew = next.takeOver("s1").orElseThrow();
        assertEquals(List.of("book"), field(onNew.attributes().get("cart"), "items"));
        assertNull(field(onNew.attributes().get("cart"), "coupon"));
        assertEquals(v2, onNew.attributes().get("cart").getClass().getClassLoader());
        assertEquals("ann", field(onNew.attributes().get("user"), "login"));
        assertEquals("M", ((Enum<?>) onNew.attributes().get("size")).name());
        assertEquals(3, onNew.attributes().get("visits"));

        TestSession back = new TestSession("s1", clock.millis()); // the session as the new build's request left it
        onNew.attributes().forEach(back::set);
        back.set("cart", make(v2, "Cart", "items", new ArrayList<>(List.of("book", "pen")), "coupon", "WINTER"));
        next.requestEnd(back, back.tracker);
        settle(next);
        RestoredSession onOld = old.takeOver("s1").orElseThrow();
        assertEquals(List.of("book", "pen"), field(onOld.attributes().get("cart"), "items"));
        assertEquals("ann", field(onOld.attributes().get("user"), "login"));
        assertEquals(0.0, counter(ReplicationMetrics.INCOMPATIBLE, "a") + counter(ReplicationMetrics.INCOMPATIBLE, "b"));
        synchronized (warnings) {
            assertEquals(List.of(), warnings.stream().map(LogRecord::getMessage).filter(m -> m.contains("attribute")).toList());
        }
    }

    @Test
    void anIncompatibleAttributeIsRestoredMissingCountedAndReportedOnceAndTheRestArrives() throws Exception {
        ClassLoader v1 = build("Cart", CART_V1, "User", USER, "Size", SIZE_V1);
        ClassLoader v3 = build("Item", "public class Item implements java.io.Serializable { String sku; }",
                "Cart", CART_V3, "User", USER, "Size", SIZE_V1);
        SessionReplicator old = node("a", SHOP, v1);
        SessionReplicator next = node("b", SHOP, v3);

        for (String id : List.of("s1", "s2")) {
            TestSession s = shopSession(v1, id);
            old.requestEnd(s, s.tracker);
        }
        settle(old);
        assertTrue(next.hasBackup("s1") && next.hasBackup("s2"), "the backup keeps what it cannot restore itself");

        RestoredSession restored = next.takeOver("s1").orElseThrow();
        assertFalse(restored.attributes().containsKey("cart"), "missing, as if never set");
        assertEquals("ann", field(restored.attributes().get("user"), "login"));
        assertEquals("M", ((Enum<?>) restored.attributes().get("size")).name());
        assertEquals(3, restored.attributes().get("visits"));
        next.takeOver("s2").orElseThrow();

        assertEquals(2.0, meters.find(ReplicationMetrics.INCOMPATIBLE).tag("node", "b")
                .tag("class", "com.example.shop.Cart").counter().count());
        List<String> reported;
        synchronized (warnings) {
            reported = warnings.stream().map(LogRecord::getMessage).filter(m -> m.contains("is not restored")).toList();
        }
        assertEquals(1, reported.size(), "once per class: " + reported);
        assertTrue(reported.get(0).contains("com.example.shop.Cart"), reported.get(0));
        assertTrue(reported.get(0).contains("items: its declared type changed (here java.util.ArrayList<com.example.shop.Item>)"),
                reported.get(0));
        assertFalse(reported.get(0).contains("s1"), "no session id in the log");
    }
}
