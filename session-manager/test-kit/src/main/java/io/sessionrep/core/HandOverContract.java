package io.sessionrep.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.ReplicationTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ownership protocol: a session is held live by at most one node, and every request sees its newest
 * state wherever it lands. Each node here plays a container: it keeps live sessions in a map, drops them
 * when the core says so ({@link SessionEvents#ownershipLost}), and brackets every request with
 * enter/acquire ... requestEnd, exit, as the integrations do. Run over the in-memory network
 * ({@code InMemoryReplicatorTest}) and real JGroups channels ({@code JGroupsReplicatorTest}).
 */
@Timeout(90)
public abstract class HandOverContract {
    protected final MeterRegistry meters = new SimpleMeterRegistry();
    private final List<Node> started = new ArrayList<>();

    private final ContractNetwork network;

    protected HandOverContract(ContractNetwork network) {
        this.network = network;
    }

    private ReplicationConfig.Builder networkOptions(String name, ReplicationConfig.Builder options) {
        return network.nodeOptions(name, options);
    }

    private ReplicationTransport newTransport(ReplicationConfig config) {
        return network.transport(config);
    }

    /** One node and its "container": the sessions it holds live. */
    protected final class Node implements SessionEvents {
        final Map<String, TestSession> live = new ConcurrentHashMap<>();
        SessionReplicator engine;

        @Override
        public void ownershipLost(String sessionId) {
            live.remove(sessionId);
        }

        @Override
        public void invalidatedElsewhere(String sessionId) {
            live.remove(sessionId);
        }

        /** A new session with counter 0, created by a request here. */
        void create(String id) {
            TestSession s = new TestSession(id, System.currentTimeMillis()).set("count", 0).set("pad", new byte[2048]);
            live.put(id, s);
            engine.requestEnd(s, s.tracker);
        }

        /**
         * A request that reads the counter and writes counter + 1, as the container would run it.
         * {@code during} runs while the request holds the session (after it read the counter).
         */
        int increment(String id, Runnable during) {
            TestSession s = begin(id);
            try {
                int seen = (Integer) s.get("count");
                during.run();
                s.set("count", seen + 1);
                engine.requestEnd(s, s.tracker);
                return seen + 1;
            } finally {
                engine.exit(id);
            }
        }

        int increment(String id) {
            return increment(id, () -> { });
        }

        /** The counter as a read-only request here sees it. */
        int read(String id) {
            TestSession s = begin(id);
            try {
                return (Integer) s.get("count");
            } finally {
                engine.requestEnd(s, s.tracker);
                engine.exit(id);
            }
        }

        private TestSession begin(String id) {
            TestSession held = live.get(id);
            if (held != null && engine.enter(id) == SessionAccess.OWNED) {
                return held;
            }
            live.remove(id);
            RestoredSession restored = engine.acquire(id).orElseThrow(() -> new AssertionError("no session " + id));
            TestSession s = new TestSession(id, restored.creationTime());
            restored.attributes().forEach((k, v) -> s.set(k, v));
            s.tracker.drain(); // restored, not changed
            live.put(id, s);
            return s;
        }
    }

    @AfterEach
    void stopAll() {
        for (Node n : started) {
            n.engine.close();
        }
    }

    protected Node node(String name, UnaryOperator<ReplicationConfig.Builder> options) {
        ReplicationConfig config = options.apply(
                networkOptions(name, ReplicationConfig.builder().nodeName(name).machineId(name))).build();
        Node node = new Node();
        node.engine = SessionReplicator.start(config, newTransport(config), getClass().getClassLoader(), meters, node);
        started.add(node);
        List<Node> running = started.stream().filter(n -> !n.engine.isClosed()).toList();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> running.stream().allMatch(n -> n.engine.members().size() == running.size()));
        return node;
    }

    private double count(String meter, String... tags) {
        return meters.find(meter).tags(tags).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    @ParameterizedTest
    @EnumSource(ReplicationMode.class)
    void roundRobinRequestsSeeEveryWriteAndOneNodeHoldsTheSession(ReplicationMode mode) {
        Node a = node("a", b -> b.replicationMode(mode));
        Node b = node("b", x -> x.replicationMode(mode));
        Node c = node("c", x -> x.replicationMode(mode));
        List<Node> ring = List.of(a, b, c);
        a.create("s1");
        for (int i = 1; i <= 30; i++) {
            Node here = ring.get(i % 3);
            assertEquals(i, here.increment("s1"), "request " + i + " sees every earlier write");
            long holders = ring.stream().filter(n -> n.live.containsKey("s1")).count();
            assertEquals(1, holders, "one node holds the session live after request " + i);
            assertTrue(here.engine.isPrimary("s1"));
        }
        assertEquals(30, b.read("s1"));
        assertEquals(0, count(ReplicationMetrics.OWNERSHIP_CONFLICTS), "no request ran on a copy it did not own");
        assertTrue(count(ReplicationMetrics.HANDOVERS, "direction", "granted") >= 29);
    }

    @Test
    void theOwnersRunningRequestFinishesBeforeTheSessionMoves() throws Exception {
        Node a = node("a", b -> b);
        Node b = node("b", b2 -> b2);
        a.create("s1");
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Integer> onA = pool.submit(() -> a.increment("s1", () -> {
                inside.countDown();
                waitFor(release);
            }));
            assertTrue(inside.await(10, TimeUnit.SECONDS));
            Future<Integer> onB = pool.submit(() -> b.increment("s1"));
            Thread.sleep(300);
            assertFalse(onB.isDone(), "b waits while a's request runs");
            release.countDown();
            assertEquals(1, onA.get(10, TimeUnit.SECONDS));
            assertEquals(2, onB.get(10, TimeUnit.SECONDS), "b ran after a, on a's newest state");
            assertFalse(a.live.containsKey("s1"));
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The client can hold a new session's cookie long before the request that created it ends (its response
     * was committed early), and send its next request to the same node. That request enters a session the
     * core does not know yet; it must count all the same, so that a hand-over asked for once the first
     * replication made the session known waits for it.
     */
    @ParameterizedTest
    @EnumSource(ReplicationMode.class)
    void aRequestThatEnteredANewSessionBeforeItsFirstReplicationIsWaitedFor(ReplicationMode mode) throws Exception {
        Node a = node("a", x -> x.replicationMode(mode));
        Node b = node("b", x -> x.replicationMode(mode));
        TestSession created = new TestSession("s1", System.currentTimeMillis()).set("count", 0);
        a.live.put("s1", created); // created by a request still running, not replicated yet
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Integer> second = pool.submit(() -> a.increment("s1", () -> {
                inside.countDown();
                waitFor(release);
            }));
            assertTrue(inside.await(10, TimeUnit.SECONDS));
            a.engine.requestEnd(created, created.tracker); // the creating request ends: first replication
            Future<Integer> onB = pool.submit(() -> b.increment("s1"));
            Thread.sleep(300);
            assertFalse(onB.isDone(), "b waits: the second request still runs on a");
            release.countDown();
            assertEquals(1, second.get(10, TimeUnit.SECONDS));
            assertEquals(2, onB.get(10, TimeUnit.SECONDS), "b ran after the second request, with its change");
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
        assertEquals(0, count(ReplicationMetrics.OWNERSHIP_CONFLICTS), "no change was dropped");
    }

    /**
     * A session still in use by the request that created it, before its first replication, is this node's:
     * another node asked for it waits for that request and gets its state, instead of finding no session.
     */
    @ParameterizedTest
    @EnumSource(ReplicationMode.class)
    void aNewSessionAskedForBeforeItsFirstReplicationComesWithTheCreatorsState(ReplicationMode mode) throws Exception {
        Node a = node("a", x -> x.replicationMode(mode));
        Node b = node("b", x -> x.replicationMode(mode));
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> creating = pool.submit(() -> {
                TestSession s = new TestSession("s1", System.currentTimeMillis()).set("count", 0);
                a.live.put("s1", s);
                assertEquals(SessionAccess.OWNED, a.engine.enter("s1"), "the creating request enters its session");
                try {
                    inside.countDown();
                    waitFor(release);
                    s.set("count", 5);
                    a.engine.requestEnd(s, s.tracker);
                } finally {
                    a.engine.exit("s1");
                }
                return null;
            });
            assertTrue(inside.await(10, TimeUnit.SECONDS));
            Future<Integer> onB = pool.submit(() -> b.increment("s1"));
            Thread.sleep(300);
            assertFalse(onB.isDone(), "b waits for the creating request on a");
            release.countDown();
            creating.get(10, TimeUnit.SECONDS);
            assertEquals(6, onB.get(10, TimeUnit.SECONDS), "b got the session with the creating request's state");
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
        assertFalse(a.live.containsKey("s1"));
    }

    @ParameterizedTest
    @EnumSource(ReplicationMode.class)
    void concurrentRequestsOnThreeNodesLoseNoUpdate(ReplicationMode mode) throws Exception {
        Node a = node("a", x -> x.replicationMode(mode));
        Node b = node("b", x -> x.replicationMode(mode));
        Node c = node("c", x -> x.replicationMode(mode));
        a.create("s1");
        int perNode = 15;
        ExecutorService pool = Executors.newFixedThreadPool(3);
        AtomicInteger succeeded = new AtomicInteger();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (Node n : List.of(a, b, c)) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < perNode; i++) {
                        n.increment("s1");
                        succeeded.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(3 * perNode, succeeded.get());
        assertEquals(3 * perNode, c.read("s1"), "every successful increment is in the final state");
        assertEquals(0, count(ReplicationMetrics.OWNERSHIP_CONFLICTS));
    }

    @Test
    void aHandOverThatDoesNotComeInTimeIsRefusedAndTheSessionStaysIntact() throws Exception {
        Node a = node("a", x -> x.ownershipTimeout(Duration.ofMillis(300)));
        Node b = node("b", x -> x.ownershipTimeout(Duration.ofMillis(300)));
        a.create("s1");
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> onA = pool.submit(() -> a.increment("s1", () -> {
                inside.countDown();
                waitFor(release);
            }));
            assertTrue(inside.await(10, TimeUnit.SECONDS));
            assertThrows(OwnershipTimeoutException.class, () -> b.increment("s1"));
            assertEquals(1, count(ReplicationMetrics.OWNERSHIP_TIMEOUTS, "node", "b"));
            release.countDown();
            assertEquals(1, onA.get(10, TimeUnit.SECONDS));
        } finally {
            pool.shutdownNow();
        }
        assertEquals(2, b.increment("s1"), "the refused request changed nothing; the next one sees a's write");
        assertEquals(3, a.increment("s1"));
    }

    @Test
    void theOwnerDyingBeforeItHandsOverFailsOverToTheNewestBackup() throws Exception {
        Node a = node("a", x -> x.replicationMode(ReplicationMode.SYNC));
        Node b = node("b", x -> x.replicationMode(ReplicationMode.SYNC));
        Node c = node("c", x -> x.replicationMode(ReplicationMode.SYNC));
        a.create("s1");
        assertEquals(1, a.increment("s1"));
        CountDownLatch inside = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            pool.submit(() -> a.increment("s1", () -> {
                inside.countDown();
                waitFor(new CountDownLatch(1)); // never finishes: its owner dies under it
            }));
            assertTrue(inside.await(10, TimeUnit.SECONDS));
            Future<Integer> onB = pool.submit(() -> b.increment("s1"));
            Thread.sleep(200);
            assertFalse(onB.isDone());
            a.engine.close(); // the owner leaves before it could hand over
            assertEquals(2, onB.get(30, TimeUnit.SECONDS), "b continues from the last acknowledged write");
        } finally {
            pool.shutdownNow();
        }
        assertEquals(3, c.increment("s1"));
    }

    @Test
    void theNewOwnerDyingRightAfterTheHandOverLosesNothingItGot() {
        Node a = node("a", x -> x.replicationMode(ReplicationMode.SYNC));
        Node b = node("b", x -> x.replicationMode(ReplicationMode.SYNC));
        Node c = node("c", x -> x.replicationMode(ReplicationMode.SYNC));
        a.create("s1");
        assertEquals(1, a.increment("s1"));
        assertEquals(2, a.increment("s1"));
        assertEquals(2, b.read("s1")); // handed over to b; b dies before any write of its own
        b.engine.close();
        await().atMost(Duration.ofSeconds(30)).until(() -> c.engine.members().size() == 2);
        assertEquals(3, c.increment("s1"), "the state b got lives on in the old owner's and backups' copies");
        assertEquals(4, a.increment("s1"));
    }

    @Test
    void theOldOwnerDyingRightAfterItHandedOverChangesNothingForTheNewOne() {
        Node a = node("a", x -> x);
        Node b = node("b", x -> x);
        node("c", x -> x);
        a.create("s1");
        assertEquals(1, a.increment("s1"));
        assertEquals(2, b.increment("s1"));
        a.engine.close();
        assertEquals(3, b.increment("s1"));
        assertTrue(b.engine.isPrimary("s1"));
    }

    @Test
    void aHandOverBetweenAPrimaryAndItsBackupSendsOnlyTheChangedAttributeToTheBackup() {
        Node a = node("a", x -> x.replicationMode(ReplicationMode.SYNC));
        Node b = node("b", x -> x.replicationMode(ReplicationMode.SYNC)); // a's only backup, and then b's
        a.create("s1"); // count + a 2 KiB pad
        assertEquals(1, a.increment("s1"));
        double before = count(ReplicationMetrics.VALUE_BYTES_SENT, "node", "b");
        assertEquals(2, b.increment("s1")); // handed over a -> b, then one change on b
        double sent = count(ReplicationMetrics.VALUE_BYTES_SENT, "node", "b") - before;
        assertTrue(sent > 0 && sent < 1024, "b sent its backup (a) only the changed counter, not the pad: " + sent);
        assertEquals(2, a.read("s1"), "and a's copy, now a backup, was at the right base");
    }

    @Test
    void stickyRequestsSendNoOwnershipMessages() {
        Node a = node("a", x -> x);
        node("b", x -> x);
        a.create("s1");
        for (int i = 1; i <= 20; i++) {
            assertEquals(i, a.increment("s1"));
        }
        assertEquals(0, count(ReplicationMetrics.HANDOVERS));
        assertEquals(0, count(ReplicationMetrics.TAKEOVERS));
    }

    @Test
    void anUnknownSessionIsNotFoundAndNotCreated() {
        Node a = node("a", x -> x);
        node("b", x -> x);
        assertEquals(Optional.empty(), a.engine.acquire("nobody-knows"));
        assertFalse(a.engine.isPrimary("nobody-knows"));
    }

    private static void waitFor(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
