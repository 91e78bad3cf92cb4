package io.sessionrep.tomcat.it;

import io.sessionrep.testsupport.Browser;
import io.sessionrep.testsupport.FreePorts;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.Valve;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How the Manager element's attributes are checked when the context starts, and what start and stop do
 * to the context. One embedded Tomcat; attributes set the way Tomcat's Digester sets XML attributes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ManagerConfigurationTest {
    private final List<String> log = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            StringBuilder line = new StringBuilder(String.valueOf(record.getMessage()));
            for (Throwable t = record.getThrown(); t != null; t = t.getCause()) {
                line.append(" | ").append(t);
            }
            synchronized (log) {
                log.add(line.toString());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private TomcatNode node;

    @AfterEach
    void stop() throws Exception {
        Logger.getLogger("").removeHandler(capture);
        if (node != null) {
            node.stop();
        }
    }

    private TomcatNode start(boolean viaJvmRoute, Map<String, String> attributes) throws Exception {
        Logger.getLogger("").addHandler(capture);
        Map<String, String> all = new LinkedHashMap<>();
        all.put("clusterName", "config-" + System.nanoTime());
        all.put("bindPort", String.valueOf(FreePorts.onLoopback(1)[0]));
        all.putAll(attributes);
        node = TomcatNode.start("node-a", viaJvmRoute, all, null, UnaryOperator.identity());
        return node;
    }

    private String logged(String text) {
        synchronized (log) {
            return log.stream().filter(l -> l.contains(text)).findFirst().orElse(null);
        }
    }

    @Test
    void badAttributeValueStopsTheContextWithAMessageNamingTheAttribute() throws Exception {
        start(true, Map.of("writeQuota", "-1"));

        assertNotEquals(LifecycleState.STARTED, node.context().getState(), "the context did not start");
        String line = logged("Manager attribute writeQuota");
        assertTrue(line != null && line.contains("\"-1\"") && line.contains("write-quota")
                && line.contains("expected an integer from 0 to 64"), "logged: " + log);
    }

    @Test
    void unknownAttributeStopsTheContextNamingIt() throws Exception {
        start(true, Map.of("writeQouta", "2"));

        assertNotEquals(LifecycleState.STARTED, node.context().getState());
        assertTrue(logged("Manager attribute writeQouta=\"2\" is unknown") != null, "logged: " + log);
    }

    @Test
    void nodeNameMustBeTheEnginesJvmRouteWhenBothAreSet() throws Exception {
        start(true, Map.of("nodeName", "node-z"));

        assertNotEquals(LifecycleState.STARTED, node.context().getState());
        assertTrue(logged("nodeName=\"node-z\" differs from the Engine's jvmRoute=\"node-a\"") != null,
                "logged: " + log);
    }

    @Test
    void startAddsTheValveAndStopLeavesWithoutWritingOrDestroyingSessions() throws Exception {
        start(false, Map.of("writeQuota", "1"));
        assertEquals(LifecycleState.STARTED, node.context().getState());
        assertEquals("node-a", node.manager.getJvmRoute(), "node name from the nodeName attribute");
        assertEquals(1, valves().size(), "one valve added: " + valves());

        Browser user = new Browser();
        user.get(node, "op=set&name=color&value=blue");
        assertTrue(user.cookie().endsWith(".node-a"), user.cookie());
        Path work = Path.of(node.context().getCatalinaBase().getPath());

        node.context().stop();
        assertEquals(0, valves().size(), "valve removed with the manager");
        assertEquals(0, node.sessionEvents.count("destroyed", user.sessionId()), "no session destroyed by a stop");
        try (Stream<Path> files = Files.walk(work)) {
            assertFalse(files.anyMatch(p -> p.getFileName().toString().equals("SESSIONS.ser")),
                    "nothing persisted to SESSIONS.ser");
        }

        node.context().start();
        assertEquals(LifecycleState.STARTED, node.context().getState(), "restartable (reload)");
        assertEquals(1, valves().size(), "one valve again: " + valves());
    }

    private List<Valve> valves() {
        return Arrays.stream(node.context().getPipeline().getValves())
                .filter(v -> v.getClass().getName().equals("io.sessionrep.tomcat.ReplicationValve")).toList();
    }
}
