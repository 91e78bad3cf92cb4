package io.sessionrep.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.config.ReplicationTrigger;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.DroppingTransport;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.core.testing.MutableClock;
import io.sessionrep.core.testing.RecordingEvents;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The core's replication semantics, run over two transports by subclasses: the in-memory network
 * ({@code InMemorySessionReplicatorTest}, fast, here) and real JGroups channels on 127.0.0.1
 * ({@code JGroupsSessionReplicatorTest} in replication-transport). Time is an injected clock.
 */
@Timeout(60)
public abstract class SessionReplicatorContract {
    protected final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    protected final MeterRegistry meters = new SimpleMeterRegistry();
    private final Map<String, DroppingTransport> transports = new HashMap<>();
    private final Map<String, RecordingEvents> events = new HashMap<>();
    private final Map<String, SessionReplicator> nodes = new HashMap<>();
    private final List<SessionReplicator> started = new ArrayList<>();

    /** Adds what the transport needs (ports, peers, cluster name) for the node called {@code name}. */
    protected abstract ReplicationConfig.Builder networkOptions(String name, ReplicationConfig.Builder options);

    /** A new, unstarted transport for {@code config}. */
    protected abstract ReplicationTransport newTransport(ReplicationConfig config);

    @AfterEach
    void stop() {
        started.forEach(SessionReplicator::close);
    }

    protected SessionReplicator node(String name) {
        return node(name, b -> b);
    }

    protected SessionReplicator node(String name, UnaryOperator<ReplicationConfig.Builder> options) {
        ReplicationConfig config = options.apply(
                networkOptions(name, ReplicationConfig.builder().nodeName(name).machineId(name))).build();
        DroppingTransport transport = new DroppingTransport(newTransport(config));
        RecordingEvents recorder = new RecordingEvents();
        SessionReplicator replicator = SessionReplicator.start(config, transport, getClass().getClassLoader(), meters,
                recorder, clock);
        transports.put(name, transport);
        events.put(name, recorder);
        nodes.put(name, replicator);
        started.add(replicator);
        awaitViews();
        return replicator;
    }

    /** Waits until every running node sees every running node. */
    protected void awaitViews() {
        List<SessionReplicator> running = started.stream().filter(r -> !r.isClosed()).toList();
        await().atMost(Duration.ofSeconds(30)).until(() -> running.stream().allMatch(r -> r.members().size() == running.size()));
    }

    /** Stops a node and waits until the others have noticed. */
    protected void stopNode(SessionReplicator node) {
        node.close();
        awaitViews();
    }

    /**
     * Waits until what {@code from} sent so far has been processed by every other node: flushes its
     * async queue, then makes one request to each member (per-sender FIFO: the reply comes after).
     */
    protected void settle(SessionReplicator... from) {
        for (SessionReplicator n : from) {
            if (n.isClosed()) {
                continue;
            }
            n.flush(Duration.ofSeconds(10));
            DroppingTransport t = transports.get(n.nodeName());
            for (Member m : n.members()) {
                if (!m.name().equals(n.nodeName())) {
                    t.delegate().request(m, WireCodec.encode(new Message.Fetch("barrier")), Duration.ofSeconds(10)).join();
                }
            }
        }
    }

    private static Member member(SessionReplicator seenBy, String name) {
        return seenBy.members().stream().filter(m -> m.name().equals(name)).findFirst().orElseThrow();
    }

    /** Bytes one settle() barrier adds to the receiver's count (a Fetch of "barrier"). */
    private static double barrierBytes() {
        return WireCodec.encode(new Message.Fetch("barrier")).length;
    }

    protected double counter(String name, String node) {
        return meters.find(name).tag("node", node).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private double valueBytesSent(String node) {
        return counter(ReplicationMetrics.VALUE_BYTES_SENT, node);
    }

    private TestSession newSession(String id) {
        return new TestSession(id, clock.millis());
    }

    @Test
    void firstCopyIsFullAndLaterCopiesCarryOnlyTheChangedAttribute() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        TestSession s = newSession("s1").set("one", new byte[10_000]).set("two", new byte[10_000]);

        a.requestEnd(s, s.tracker);
        settle(a);
        double first = valueBytesSent("a");
        assertTrue(first >= 20_000 && first < 20_200, "first copy carries both attributes: " + first);
        assertEquals(1, b.backupVersion("s1"));

        s.set("two", new byte[10_000]).get("one"); // byte[] read counts as possibly mutated, but bytes are equal
        ((byte[]) s.attribute("two"))[0] = 7;
        a.requestEnd(s, s.tracker);
        settle(a);
        double second = valueBytesSent("a") - first;
        assertTrue(second >= 10_000 && second < 10_100, "delta carries only the changed attribute: " + second);
        assertEquals(2, b.backupVersion("s1"));
    }

    @Test
    void readOnlyRequestSendsNothing() {
        SessionReplicator a = node("a");
        node("b");
        TestSession s = newSession("s1").set("name", "alice").set("cart", new ArrayList<>(List.of("x")));
        a.requestEnd(s, s.tracker);
        settle(a);
        double before = counter(ReplicationMetrics.BYTES_SENT, "a");

        s.get("name");
        s.get("cart"); // mutable, read but not changed: bytes compare equal, nothing sent
        a.requestEnd(s, s.tracker);
        settle(a);
        assertEquals(before, counter(ReplicationMetrics.BYTES_SENT, "a"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void mutableAttributeChangedInPlaceReplicatesWithoutSetAttribute() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        TestSession s = newSession("s1").set("cart", new ArrayList<>(List.of("book")));
        a.requestEnd(s, s.tracker);
        settle(a);

        ((List<String>) s.get("cart")).add("pen");
        a.requestEnd(s, s.tracker);
        settle(a);
        stopNode(a);

        RestoredSession restored = b.takeOver("s1").orElseThrow();
        assertEquals(List.of("book", "pen"), restored.attributes().get("cart"));
    }

    @Test
    void backupTakesOverWhenPrimaryIsGone() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        TestSession s = newSession("s1").set("user", "alice").set("n", 42);
        a.requestEnd(s, s.tracker);
        settle(a);
        stopNode(a);

        RestoredSession restored = b.takeOver("s1").orElseThrow();
        assertEquals("alice", restored.attributes().get("user"));
        assertEquals(42, restored.attributes().get("n"));
        assertTrue(b.isPrimary("s1"));
        assertEquals(1, counter(ReplicationMetrics.TAKEOVERS, "b") + counter(ReplicationMetrics.PROMOTIONS, "b"),
                "promoted when a left, or taken over at the request");
    }

    @Test
    void nodeWithoutCopyFetchesFromTheClusterAndOldPrimaryLetsGo() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        SessionReplicator c = node("c");
        TestSession s = newSession("s1").set("user", "alice");
        a.requestEnd(s, s.tracker);
        settle(a);
        SessionReplicator stranger = b.hasBackup("s1") ? c : b;
        assertFalse(stranger.hasLocalCopy("s1"));

        RestoredSession restored = stranger.takeOver("s1").orElseThrow();
        assertEquals("alice", restored.attributes().get("user"));
        assertEquals(2, restored.version());
        settle(a, b, c);
        assertTrue(stranger.isPrimary("s1"));
        assertFalse(a.isPrimary("s1"));
        assertEquals(List.of("s1"), events.get("a").ownershipLost);
    }

    @Test
    void unknownIdIsNotAdopted() {
        SessionReplicator a = node("a");
        node("b");
        assertEquals(Optional.empty(), a.takeOver("never-seen"));
        assertFalse(a.isPrimary("never-seen"));
        double sentBefore = counter(ReplicationMetrics.BYTES_RECEIVED, "b");
        assertEquals(Optional.empty(), a.takeOver("never-seen"));
        settle(a);
        assertEquals(sentBefore + 0, counter(ReplicationMetrics.BYTES_RECEIVED, "b") - barrierBytes(),
                "a stale id asked again within seconds is answered without asking the cluster");
    }

    @Test
    void invalidationRemovesEveryCopyAndLateUpdatesDoNotResurrect() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        SessionReplicator c = node("c");
        TestSession s = newSession("s1").set("user", "alice");
        a.requestEnd(s, s.tracker);
        settle(a);
        a.invalidate("s1");
        settle(a, b, c);
        for (SessionReplicator n : List.of(a, b, c)) {
            assertFalse(n.hasLocalCopy("s1"), n.nodeName());
            assertEquals(Optional.empty(), n.takeOver("s1"), n.nodeName());
        }
        // a late full copy (duplicated or reordered on the network) arrives after the invalidation
        byte[] late = WireCodec.encode(new Message.Update(new io.sessionrep.core.delta.SessionUpdate("s1", 0, 5, true,
                0, 0, 1800, Map.of("user", new byte[] {1}), java.util.Set.of()), false));
        transports.get("a").send(member(a, "b"), late);
        settle(a, b, c);
        assertFalse(b.hasLocalCopy("s1"));
    }

    @Test
    void invalidationOnAnotherNodeEvictsTheLiveCopy() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        TestSession s = newSession("s1").set("user", "alice");
        a.requestEnd(s, s.tracker);
        settle(a);
        b.takeOver("s1").orElseThrow();
        b.invalidate("s1");
        settle(a, b);
        assertFalse(a.hasLocalCopy("s1"));
    }

    @Test
    void backupThatMissedADeltaGetsAFullCopy() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        TestSession s = newSession("s1").set("x", 1);
        a.requestEnd(s, s.tracker);
        settle(a);
        AtomicBoolean dropOne = new AtomicBoolean(true);
        transports.get("a").dropWhen((target, bytes) -> target.name().equals("b") && dropOne.getAndSet(false));
        s.set("x", 2);
        a.requestEnd(s, s.tracker); // lost
        settle(a);
        assertEquals(1, b.backupVersion("s1"));
        s.set("y", 3);
        a.requestEnd(s, s.tracker); // gap: b asks for a full copy
        settle(a);
        settle(a);
        await().until(() -> b.backupVersion("s1") == 3);
        stopNode(a);
        RestoredSession restored = b.takeOver("s1").orElseThrow();
        assertEquals(2, restored.attributes().get("x"));
        assertEquals(3, restored.attributes().get("y"));
    }

    @Test
    void syncModeReturnsOnlyAfterTheBackupStoredTheUpdate() {
        SessionReplicator a = node("a", o -> o.replicationMode(ReplicationMode.SYNC));
        SessionReplicator b = node("b", o -> o.replicationMode(ReplicationMode.SYNC));
        TestSession s = newSession("s1");
        for (int i = 1; i <= 20; i++) {
            s.set("counter", i);
            a.requestEnd(s, s.tracker);
            assertEquals(i, b.backupVersion("s1")); // no waiting: it is there when requestEnd returns
        }
        assertEquals(0, counter(ReplicationMetrics.SYNC_TIMEOUTS, "a"));
    }

    @Test
    void syncModeProceedsAfterTimeoutWhenTheBackupDoesNotAnswer() {
        SessionReplicator a = node("a", o -> o.replicationMode(ReplicationMode.SYNC).syncTimeout(Duration.ofMillis(200)));
        node("b");
        transports.get("a").dropWhen((target, bytes) -> true);
        TestSession s = newSession("s1").set("x", 1);
        a.requestEnd(s, s.tracker);
        assertEquals(1, counter(ReplicationMetrics.SYNC_TIMEOUTS, "a"));
    }

    @Test
    void classOutsideTheAllowlistIsRefusedAndCountedAndTheRestArrives() {
        SessionReplicator a = node("a", o -> o.serializationAllowlist(List.of("io.sessionrep.")));
        SessionReplicator b = node("b"); // allows only the JDK types
        TestSession s = newSession("s1").set("user", "alice").set("gadget", new Gadget("x"));
        a.requestEnd(s, s.tracker);
        settle(a);
        assertEquals(1, counter(ReplicationMetrics.REJECTED, "b"));
        stopNode(a);
        RestoredSession restored = b.takeOver("s1").orElseThrow();
        assertEquals("alice", restored.attributes().get("user"));
        assertFalse(restored.attributes().containsKey("gadget"));
    }

    @Test
    void malformedMessagesAreCountedAndTheNodeKeepsWorking() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        transports.get("a").send(member(a, "b"), new byte[] {0x53, 2, 1, 0, 0, 0, 9});
        transports.get("a").send(member(a, "b"), new byte[] {1, 2, 3});
        settle(a, b);
        assertEquals(2, counter(ReplicationMetrics.REJECTED, "b"));
        TestSession s = newSession("s1").set("x", 1);
        a.requestEnd(s, s.tracker);
        settle(a);
        assertEquals(1, b.backupVersion("s1"));
    }

    @Test
    void sessionsOverMaxSizeAreNotReplicatedButTheRequestSucceeds() {
        SessionReplicator a = node("a", o -> o.maxSessionSize(4096));
        SessionReplicator b = node("b");
        TestSession s = newSession("s1").set("big", new byte[8192]);
        a.requestEnd(s, s.tracker);
        settle(a);
        assertEquals(1, counter(ReplicationMetrics.TOO_LARGE, "a"));
        assertFalse(b.hasBackup("s1"));
        s.set("big", new byte[100]);
        a.requestEnd(s, s.tracker);
        settle(a);
        assertTrue(b.hasBackup("s1"));
    }

    @Test
    void writeQuotaZeroReplicatesNothing() {
        SessionReplicator a = node("a", o -> o.writeQuota(0));
        SessionReplicator b = node("b");
        TestSession s = newSession("s1").set("x", 1);
        a.requestEnd(s, s.tracker);
        settle(a);
        assertFalse(b.hasBackup("s1"));
    }

    @Test
    void sessionsOrphanedByADepartedPrimaryExpireWithTheReplicatedLastAccessTime() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        TestSession s = newSession("s1").set("x", 1);
        s.setMaxInactiveSeconds(60);
        a.requestEnd(s, s.tracker);
        TestSession used = newSession("s2").set("x", 2);
        used.setMaxInactiveSeconds(60);
        a.requestEnd(used, used.tracker);
        settle(a);
        clock.advance(Duration.ofSeconds(59));
        b.runMaintenance();
        assertTrue(b.hasLocalCopy("s1"), "primary alive: the primary decides");
        stopNode(a);
        await().atMost(Duration.ofSeconds(10)).until(() -> b.isPrimary("s1") || b.hasBackup("s1"));
        b.runMaintenance();
        assertTrue(b.hasLocalCopy("s1"), "not expired yet");
        b.takeOver("s2").orElseThrow(); // s2 is used again here: the container holds it live from now on
        clock.advance(Duration.ofSeconds(2));
        b.runMaintenance();
        assertFalse(b.hasLocalCopy("s1"), "expired 60 s after its replicated last access");
        assertEquals(Optional.empty(), b.takeOver("s1"));
        assertTrue(b.isPrimary("s2"), "a session the container holds live is expired by the container, not here");
    }

    @Test
    void removedAttributeIsRemovedOnTheBackup() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        TestSession s = newSession("s1").set("x", 1).set("y", 2);
        a.requestEnd(s, s.tracker);
        s.remove("x");
        a.requestEnd(s, s.tracker);
        settle(a);
        stopNode(a);
        RestoredSession restored = b.takeOver("s1").orElseThrow();
        assertEquals(Map.of("y", 2), restored.attributes());
    }

    /** Serializable, but in a package the receiving node does not allow. */
    record Gadget(String payload) implements java.io.Serializable {
    }

    @Test
    void coalescedQueueSendsTheNewestState() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        TestSession s = newSession("s1");
        for (int i = 0; i < 200; i++) {
            s.set("counter", i).set("blob", new byte[] {(byte) i});
            a.requestEnd(s, s.tracker);
        }
        settle(a);
        await().until(() -> b.backupVersion("s1") == 200);
        stopNode(a);
        RestoredSession restored = b.takeOver("s1").orElseThrow();
        assertEquals(199, restored.attributes().get("counter"));
        assertArrayEquals(new byte[] {(byte) 199}, (byte[]) restored.attributes().get("blob"));
    }

    // ------------------------------------------------------------------ issue 3: membership, ownership, triggers

    @Test
    void readOnlyRequestsTellBackupsTheLastAccessTimeWithoutAttributeData() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        TestSession s = newSession("s1").set("user", "alice");
        a.requestEnd(s, s.tracker);
        settle(a);
        double valueBytes = valueBytesSent("a");
        long firstAccess = b.backupLastAccessedTime("s1");

        clock.advance(Duration.ofMinutes(5));
        s.access(clock.millis());
        s.get("user");
        a.requestEnd(s, s.tracker);
        a.flushTouches();
        settle(a);
        assertEquals(valueBytes, valueBytesSent("a"), "no attribute data for a read-only request");
        assertEquals(firstAccess + Duration.ofMinutes(5).toMillis(), b.backupLastAccessedTime("s1"));
        assertEquals(1, counter(ReplicationMetrics.TOUCHES_SENT, "a"));
    }

    @Test
    void whenABackupLeavesThePrimaryRestoresTheQuotaWithoutWaitingForARequest() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        SessionReplicator c = node("c");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            TestSession s = newSession("s" + i).set("n", i);
            a.requestEnd(s, s.tracker);
            ids.add(s.id());
        }
        settle(a);
        SessionReplicator backupThatStays = c;
        stopNode(b);
        await().atMost(Duration.ofSeconds(20)).until(() -> a.sessionsBelowQuota() == 0
                && ids.stream().allMatch(backupThatStays::hasBackup)); // c is the only other node left
    }

    @Test
    void aJoiningNodeReceivesItsShareAndFormerBackupsAreReleased() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            TestSession s = newSession("s" + i).set("n", i);
            a.requestEnd(s, s.tracker);
            ids.add(s.id());
        }
        settle(a);
        assertEquals(60, b.backupCount());
        SessionReplicator c = node("c");
        // the rebalance is under way as soon as c joined: wait for it to settle (each session's copy moved
        // or stayed, the former backups released), not for the first moment the counts add up
        await().atMost(Duration.ofSeconds(20)).until(() -> c.backupCount() > 10 && b.backupCount() > 10
                && ids.stream().allMatch(id -> b.hasBackup(id) ^ c.hasBackup(id)));
        assertEquals(60, b.backupCount() + c.backupCount(), "share spread: b=" + b.backupCount() + " c=" + c.backupCount());
    }

    @Test
    void whenAPrimaryLeavesItsFirstBackupPromotesItsCopiesAndRestoresTheQuota() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        SessionReplicator c = node("c");
        for (int i = 0; i < 40; i++) {
            TestSession s = newSession("s" + i).set("n", i);
            a.requestEnd(s, s.tracker);
        }
        settle(a);
        stopNode(a);
        await().atMost(Duration.ofSeconds(20)).until(() -> b.primaryCount() + c.primaryCount() == 40
                && b.sessionsBelowQuota() == 0 && c.sessionsBelowQuota() == 0);
        settle(b, c);
        for (int i = 0; i < 40; i++) {
            String id = "s" + i;
            assertTrue(b.isPrimary(id) ^ c.isPrimary(id), id + " has exactly one primary");
            SessionReplicator backup = b.isPrimary(id) ? c : b;
            assertTrue(backup.hasBackup(id), id + " is backed up again");
        }
    }

    @Test
    void colocatedPeersAreNeverUsedWhenColocationIsForbiddenAndTheShortfallIsReported() {
        SessionReplicator a = node("a", o -> o.machineId("host-1").allowColocation(false));
        SessionReplicator b = node("b", o -> o.machineId("host-1").allowColocation(false));
        TestSession s = newSession("s1").set("x", 1);
        a.requestEnd(s, s.tracker);
        settle(a);
        assertFalse(b.hasBackup("s1"));
        assertEquals(1, a.sessionsBelowQuota());
        assertTrue(a.quotaWarning().contains("write-quota 1 cannot be met") && a.quotaWarning().contains("b (same machine-id 'host-1'"),
                a.quotaWarning());
        SessionReplicator c = node("c", o -> o.machineId("host-2").allowColocation(false));
        await().atMost(Duration.ofSeconds(20)).until(() -> c.hasBackup("s1"));
        assertEquals("", a.quotaWarning());
        assertEquals(0, a.sessionsBelowQuota());
    }

    @Test
    void colocatedPeerIsUsedOnlyWhenNoOtherMachineIsAvailable() {
        SessionReplicator a = node("a", o -> o.machineId("host-1"));
        SessionReplicator b = node("b", o -> o.machineId("host-1"));
        SessionReplicator c = node("c", o -> o.machineId("host-2"));
        for (int i = 0; i < 30; i++) {
            TestSession s = newSession("s" + i).set("x", i);
            a.requestEnd(s, s.tracker);
        }
        settle(a);
        assertEquals(30, c.backupCount(), "the other machine is always preferred");
        assertEquals(0, b.backupCount());
    }

    @Test
    void twoNodesTakingOverAtOnceLeaveExactlyOnePrimaryAndTheLoserDoesNotReplicate() throws Exception {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        SessionReplicator c = node("c");
        TestSession s = newSession("s1").set("n", 1);
        a.requestEnd(s, s.tracker);
        settle(a);
        var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            var onB = pool.submit(() -> b.takeOver("s1"));
            var onC = pool.submit(() -> c.takeOver("s1"));
            assertTrue(onB.get().isPresent() && onC.get().isPresent());
        } finally {
            pool.shutdown();
        }
        settle(a, b, c);
        settle(a, b, c);
        long primaries = java.util.stream.Stream.of(a, b, c).filter(n -> n.isPrimary("s1")).count();
        assertEquals(1, primaries, "exactly one primary");
        SessionReplicator loser = b.isPrimary("s1") ? c : b;
        TestSession stale = new TestSession("s1", clock.millis());
        stale.set("n", 99);
        loser.requestEnd(stale, stale.tracker); // a request that was still running on the loser
        settle(loser);
        assertFalse(loser.isPrimary("s1"), "the loser does not become primary again");
        assertEquals(1, counter(ReplicationMetrics.OWNERSHIP_CONFLICTS, loser.nodeName()));
    }

    @Test
    void sessionMovingBackAndForthKeepsTheNewestState() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        TestSession onA = newSession("s1").set("n", 1);
        a.requestEnd(onA, onA.tracker);
        settle(a);
        for (int round = 2; round <= 6; round++) {
            SessionReplicator to = round % 2 == 0 ? b : a;
            RestoredSession restored = to.takeOver("s1").orElseThrow();
            assertEquals(round - 1, restored.attributes().get("n"));
            TestSession live = new TestSession("s1", clock.millis());
            restored.attributes().forEach(live::set);
            live.tracker.drain();
            live.set("n", round);
            to.requestEnd(live, live.tracker);
            settle(to);
            settle(a, b);
        }
        assertTrue(b.isPrimary("s1") ^ a.isPrimary("s1"));
    }

    @Test
    void onAttributeModifyReplicatesEachChangeBeforeTheRequestEnds() {
        SessionReplicator a = node("a", o -> o.replicationTrigger(ReplicationTrigger.ON_ATTRIBUTE_MODIFY)
                .replicationMode(ReplicationMode.SYNC));
        SessionReplicator b = node("b");
        TestSession s = newSession("s1");
        s.set("step", 1);
        a.attributeModified(s, s.tracker);
        assertEquals(1, b.backupVersion("s1"));
        s.set("step", 2);
        a.attributeModified(s, s.tracker);
        assertEquals(2, b.backupVersion("s1"));
        a.requestEnd(s, s.tracker);
        assertEquals(2, b.backupVersion("s1"), "nothing left to send at request end");
    }

    @Test
    void onShutdownReplicatesOnlyWhenTheNodeHandsItsSessionsOver() {
        SessionReplicator a = node("a", o -> o.replicationTrigger(ReplicationTrigger.ON_SHUTDOWN));
        SessionReplicator b = node("b");
        TestSession s = newSession("s1").set("x", 1);
        a.requestEnd(s, s.tracker);
        a.attributeModified(s, s.tracker);
        s.set("x", 2);
        a.requestEnd(s, s.tracker);
        settle(a);
        assertFalse(b.hasBackup("s1"), "nothing replicated before shutdown");
        a.handOver(s, s.tracker);
        stopNode(a);
        await().atMost(Duration.ofSeconds(10)).until(() -> b.isPrimary("s1") || b.hasBackup("s1"));
        assertEquals(2, b.takeOver("s1").orElseThrow().attributes().get("x"));
    }

    @Test
    void aRestartedNodeThatBecomesBackupAgainHoldsTheNewestStateWhenThePrimaryDies() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        SessionReplicator c = node("c");
        List<TestSession> sessions = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            TestSession s = newSession("s" + i).set("n", 0);
            a.requestEnd(s, s.tracker);
            sessions.add(s);
        }
        settle(a);
        stopNode(b);
        for (int round = 1; round <= 5; round++) {
            for (TestSession s : sessions) {
                s.set("n", round);
                a.requestEnd(s, s.tracker);
            }
        }
        SessionReplicator b2 = node("b"); // the same node, restarted: it becomes a backup again
        for (int round = 6; round <= 30; round++) {
            for (TestSession s : sessions) {
                s.set("n", round);
                a.requestEnd(s, s.tracker);
            }
        }
        settle(a);
        await().atMost(Duration.ofSeconds(20)).until(() -> a.sessionsBelowQuota() == 0);
        settle(a);
        stopNode(a);
        for (TestSession s : sessions) {
            SessionReplicator survivor = b2.hasLocalCopy(s.id()) ? b2 : c;
            RestoredSession restored = survivor.takeOver(s.id()).orElseThrow();
            assertEquals(30, restored.attributes().get("n"), s.id() + " on " + survivor.nodeName());
        }
    }

    @Test
    void primaryKilledRepeatedlyWithTheLoadMovingToTheNodeRestartedLastLosesNothing() {
        SessionReplicator a = node("a");
        node("b");
        node("c");
        List<TestSession> sessions = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            TestSession s = newSession("s" + i).set("n", 0);
            a.requestEnd(s, s.tracker);
            sessions.add(s);
        }
        int n = 0;
        SessionReplicator primary = a;
        String[] order = {"b", "a", "b", "a"};
        for (String next : order) {
            for (int round = 0; round < 10; round++) {
                n++;
                for (TestSession s : sessions) {
                    s.set("n", n);
                    primary.requestEnd(s, s.tracker);
                }
            }
            settle(primary);
            SessionReplicator dying = primary;
            String dyingName = dying.nodeName();
            stopNode(dying);
            SessionReplicator taker = running(next);
            for (TestSession s : sessions) {
                RestoredSession restored = taker.takeOver(s.id()).orElseThrow();
                assertEquals(n, restored.attributes().get("n"), s.id() + " taken over by " + next + " after "
                        + dyingName + " stopped");
            }
            primary = taker;
            node(dyingName); // restarted: it comes back empty and becomes a backup again
        }
    }

    private SessionReplicator running(String name) {
        return started.stream().filter(r -> r.nodeName().equals(name) && !r.isClosed()).reduce((x, y) -> y).orElseThrow();
    }
}
