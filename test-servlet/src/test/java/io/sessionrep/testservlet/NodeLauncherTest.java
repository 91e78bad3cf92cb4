package io.sessionrep.testservlet;

import io.sessionrep.core.config.ConfigException;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NodeLauncherTest {

    @Test
    void findsTheConfigurationErrorBehindWrappers() {
        ConfigException config = new ConfigException("write-quota", "-1 is not allowed");
        assertSame(config, NodeLauncher.configurationError(config));
        assertSame(config, NodeLauncher.configurationError(
                new RuntimeException(new InvocationTargetException(config))));
        Exception withSuppressed = new Exception("start failed");
        withSuppressed.addSuppressed(config);
        assertSame(config, NodeLauncher.configurationError(withSuppressed));
        assertNull(NodeLauncher.configurationError(new IllegalStateException("port in use")));
    }

    @Test
    void readyIsAwaitedAndWhatItWaitsForIsReported() throws Exception {
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        boolean ready = NodeLauncher.awaitReady("node-x", () -> asked.incrementAndGet() < 6
                        ? io.sessionrep.core.Readiness.notReady("restoring write-quota 1 after the last view change")
                        : io.sessionrep.core.Readiness.READY,
                java.time.Duration.ofSeconds(10), java.time.Duration.ofMillis(100), new java.io.PrintStream(log, true));
        assertTrue(ready);
        assertEquals(6, asked.get(), "asked until ready");
        String said = log.toString();
        assertTrue(said.contains("node-x: not ready yet after 0 s: not ready: restoring write-quota 1 after the last"
                + " view change"), said);
        assertTrue(said.contains("node-x: ready after "), said);
    }

    @Test
    void afterTheBoundTheNodeGoesOnWithAWarning() throws Exception {
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        boolean ready = NodeLauncher.awaitReady("node-x", () -> io.sessionrep.core.Readiness.notReady("stopped"),
                java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(5), new java.io.PrintStream(log, true));
        assertFalse(ready);
        assertTrue(log.toString().startsWith("WARNING node-x: not ready after 1 s (not ready: stopped); printing READY"
                + " all the same"), log.toString());
    }
}
