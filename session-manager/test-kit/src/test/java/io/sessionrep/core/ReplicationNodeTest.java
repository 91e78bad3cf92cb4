package io.sessionrep.core;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.testing.JmxMeters;
import io.sessionrep.core.testing.RecordingEvents;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.ForwardingTransport;
import io.sessionrep.core.transport.MessageReceiver;
import io.sessionrep.core.transport.TransportException;
import io.sessionrep.core.transport.TransportProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The node lifecycle the integrations share: ordered clean-up, failed start, single-flight, the id rules. */
class ReplicationNodeTest {
    private final InMemoryNetwork network = new InMemoryNetwork();
    private final List<String> stopped = new CopyOnWriteArrayList<>();
    private final List<ReplicationNode> nodes = new ArrayList<>();

    @AfterEach
    void stopAll() {
        nodes.forEach(ReplicationNode::stop);
    }

    private static ReplicationConfig config(String name) {
        return ReplicationConfig.builder().clusterName("node-test").nodeName(name).machineId(name).build();
    }

    /** The in-memory transport, recording its close. */
    private TransportProvider inMemory() {
        return config -> new ForwardingTransport(network.transport(config.nodeName(), config.machineId())) {
            private boolean closed;

            @Override
            public synchronized void close() {
                if (!closed) { // closed by the replicator, then by the node's own step (a no-op)
                    closed = true;
                    stopped.add("transport");
                }
                super.close();
            }
        };
    }

    private ReplicationNode node(String name, TransportProvider transports) {
        ReplicationNode node = new ReplicationNode(config(name), transports);
        nodes.add(node);
        return node;
    }

    @Test
    void stopRunsTheCleanUpInReverseOrderAndGoesOnPastAFailingStep() {
        ReplicationNode node = node("a", inMemory());
        node.onStop("registered before start", () -> stopped.add("before"));
        assertThrows(IllegalStateException.class, node::replicator);
        SessionReplicator replicator = node.start("/app", null, getClass().getClassLoader(), new RecordingEvents());
        assertSame(replicator, node.replicator());
        try (JmxMeters jmx = new JmxMeters("node-test", "a")) {
            assertFalse(jmx.names().isEmpty(), "metrics=jmx: exported while started");
            node.onStop("valve", () -> stopped.add("valve"));
            node.onStop("failing", () -> {
                stopped.add("failing");
                throw new IllegalStateException("clean-up failure (expected by the test)");
            });
            node.onStop("sweeper", () -> stopped.add("sweeper"));

            node.stop();

            assertEquals(List.of("sweeper", "failing", "valve", "transport", "before"), stopped,
                    "the last registered first; the replicator (with its transport) before the meters and the"
                            + " steps registered before the start; a failing step does not stop the others");
            assertTrue(replicator.isClosed());
            assertTrue(jmx.names().isEmpty(), "the meters were closed");
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        IllegalStateException notStarted = assertThrows(IllegalStateException.class, node::replicator);
        assertEquals("Not started: the replicator runs while the context runs", notStarted.getMessage());
        assertNull(node.replicatorIfRunning());
        assertNull(node.meterRegistry());
        node.stop(); // idempotent
        assertEquals(5, stopped.size());
        assertThrows(IllegalStateException.class,
                () -> node.start("/app", null, getClass().getClassLoader(), new RecordingEvents()),
                "a node starts once");
    }

    @Test
    void aFailedStartCleansUpWhatStartedAndRethrows() {
        SimpleMeterRegistry application = new SimpleMeterRegistry();
        TransportException refused = new TransportException("cannot bind (expected by the test)");
        ReplicationNode node = node("a", config -> new ForwardingTransport(network.transport("a", "a")) {
            @Override
            public void start(MessageReceiver receiver) {
                throw refused;
            }

            @Override
            public void close() {
                stopped.add("transport");
            }
        });
        node.onStop("registered before start", () -> stopped.add("before"));
        try (JmxMeters jmx = new JmxMeters("node-test", "a")) {
            RuntimeException thrown = assertThrows(RuntimeException.class,
                    () -> node.start("/app", application, getClass().getClassLoader(), new RecordingEvents()));
            assertSame(refused, thrown);
            assertEquals(List.of("transport", "before"), stopped, "the steps registered so far ran, in reverse");
            assertTrue(jmx.names().isEmpty(), "the meters opened before the transport failed were closed");
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        assertThrows(IllegalStateException.class, node::replicator);
        assertNull(node.meterRegistry());
        node.stop();
        assertEquals(List.of("transport", "before"), stopped, "nothing runs twice");

        ReplicationNode noTransport = node("b", config -> {
            throw new IllegalStateException("no transport (expected by the test)");
        });
        noTransport.onStop("registered before start", () -> stopped.add("before b"));
        assertThrows(IllegalStateException.class,
                () -> noTransport.start("/app", null, getClass().getClassLoader(), new RecordingEvents()));
        assertEquals(List.of("transport", "before", "before b"), stopped, "no transport made: none closed");
    }

    @Test
    void concurrentRequestsBringASessionHereOnceAndShareIt() throws Exception {
        ReplicationNode a = node("a", inMemory());
        ReplicationNode b = node("b", inMemory());
        SessionReplicator engineA = a.start("/app", null, getClass().getClassLoader(), new RecordingEvents());
        SessionReplicator engineB = b.start("/app", null, getClass().getClassLoader(), new RecordingEvents());
        TestSession created = new TestSession("s1", System.currentTimeMillis()).set("user", "ada");
        engineA.requestEnd(created, created.tracker);
        engineA.flush(java.time.Duration.ofSeconds(5));

        Map<String, Object> live = new ConcurrentHashMap<>();
        AtomicInteger adopted = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        int requests = 4;
        ExecutorService pool = Executors.newFixedThreadPool(requests);
        try {
            List<Future<Object>> results = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                results.add(pool.submit(() -> {
                    go.await();
                    return b.acquire("s1", () -> {
                        Object session = live.get("s1");
                        return session != null && engineB.enter("s1") == SessionAccess.OWNED ? session : null;
                    }, restored -> {
                        adopted.incrementAndGet();
                        Object session = new Object();
                        live.put(restored.id(), session);
                        return session;
                    });
                }));
            }
            go.countDown();
            Object first = results.get(0).get(20, TimeUnit.SECONDS);
            for (Future<Object> result : results) {
                assertSame(first, result.get(20, TimeUnit.SECONDS), "one live copy for every request");
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, adopted.get(), "brought here once");
        assertTrue(engineB.isPrimary("s1"));
        for (int i = 0; i < requests; i++) {
            engineB.exit("s1");
        }

        assertNull(b.acquire("unknown", () -> null, restored -> {
            throw new AssertionError("nothing to adopt");
        }), "an id no node knows");
    }

    @Test
    void theClusterIdIsWhatPrecedesTheFirstDot() {
        assertEquals("3F2A9C", ReplicationNode.clusterId("3F2A9C.node-a"), "Tomcat's <hex>.<jvmRoute>");
        assertEquals("3F2A9C", ReplicationNode.clusterId("3F2A9C"), "no route");
        assertEquals("3F2A9C", ReplicationNode.clusterId("3F2A9C.node-a.lb1"), "a suffix a balancer appended");
        assertEquals(".node-a", ReplicationNode.clusterId(".node-a"), "nothing before the dot: kept whole");
        assertNull(ReplicationNode.clusterId(null));
        assertEquals("3F2A9C.node-b", ReplicationNode.withRoute("3F2A9C", "node-b"));
        assertEquals("3F2A9C", ReplicationNode.clusterId(ReplicationNode.withRoute("3F2A9C", "node-b")));
    }

    @Test
    void aRequestedIdThatIsTheLocalOneAlreadyIsUsedAsIs() {
        String requested = new String("3F2A9C.node-a");
        assertSame(requested, ReplicationNode.withRoute(requested, "3F2A9C", "node-a"), "the node's own route");
        assertEquals("3F2A9C.node-a", ReplicationNode.withRoute("3F2A9C.node-b", "3F2A9C", "node-a"), "another node's route");
        assertEquals("3F2A9C.node-a", ReplicationNode.withRoute("3F2A9C", "3F2A9C", "node-a"), "no route");
        assertEquals("3F2A9C.node-a", ReplicationNode.withRoute("3F2A9C.node-a.lb1", "3F2A9C", "node-a"),
                "a suffix a balancer appended");
        assertEquals("3F2A9C.node-a", ReplicationNode.withRoute("3F2A9C.xnode-a", "3F2A9C", "node-a"),
                "a route that only ends like this node's");
        assertEquals("3F2A9C.node-a", ReplicationNode.withRoute("3F2A9Cxnode-a", "3F2A9C", "node-a"),
                "no dot where the route begins");
    }

    @Test
    void nodeNameAndTheContainersRouteMustAgree() {
        assertEquals("a", ReplicationNode.nodeName(null, "a", ReplicationNodeTest::mismatch), "route only");
        assertEquals("a", ReplicationNode.nodeName(" a ", null, ReplicationNodeTest::mismatch), "node-name only");
        assertEquals("a", ReplicationNode.nodeName("a", " ", ReplicationNodeTest::mismatch), "blank route");
        assertEquals("a", ReplicationNode.nodeName("a", "a", ReplicationNodeTest::mismatch), "both, equal");
        assertNull(ReplicationNode.nodeName("  ", null, ReplicationNodeTest::mismatch), "neither");
        IllegalArgumentException differ = assertThrows(IllegalArgumentException.class,
                () -> ReplicationNode.nodeName("a", "b", ReplicationNodeTest::mismatch));
        assertEquals("a/b", differ.getMessage());

        assertNull(ReplicationNode.blankToNull(null));
        assertNull(ReplicationNode.blankToNull(" \t"));
        assertEquals("x y", ReplicationNode.blankToNull(" x y\n"));
    }

    private static IllegalArgumentException mismatch(String nodeName, String route) {
        return new IllegalArgumentException(nodeName + "/" + route);
    }

    @Test
    void readinessIsNotStartedThenTheReplicatorsThenStoppedAndThePublishedReasonsFollow() {
        ReplicationNode node = node("a", inMemory());
        java.util.function.Supplier<List<String>> published = node.readinessReasons();
        assertEquals(Readiness.notReady("not started"), node.readiness());
        assertEquals(List.of("not started"), published.get());

        node.start("/app", null, getClass().getClassLoader(), new RecordingEvents());
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> node.readiness().ready());
        assertEquals(List.of(), published.get());

        node.stop();
        assertEquals(Readiness.notReady("stopped"), node.readiness());
        assertEquals(List.of("stopped"), published.get());
    }
}
