package io.sessionrep.core;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.wire.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fail-over and take-over: a backup serves the session when its primary is gone, a node without a copy fetches
 * it and the old primary lets go, an unknown id is never adopted, two nodes taking over at once leave one
 * primary, a session moving back and forth or surviving repeated primary kills keeps its newest state.
 *
 * <p>Part of the replicator contract (fixture: {@link SessionReplicatorContract}), run over the in-memory
 * network ({@code InMemoryReplicatorTest}, test-kit), real JGroups channels
 * ({@code JGroupsReplicatorTest}) and sealed ones ({@code ClusterKeyReplicatorTest}),
 * both in replication-transport.
 */
public abstract class FailOverContract extends SessionReplicatorContract {
    protected FailOverContract(ContractNetwork network) {
        super(network);
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
        aliceReplicatedBy(a);
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

    /**
     * The backup holder promotes the session when its primary leaves (Rebalancer) while a request there is
     * taking it over and asking the cluster for newer copies: the request must end up serving it, not find
     * it missing nor leave it as a dormant promoted copy (which would make the container drop its live copy).
     * The transport hook puts the promotion exactly inside the request's ask.
     */
    @Test
    void aPromotionHereWhileARequestHereTakesTheSessionOverLeavesItServedByThatRequest() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        SessionReplicator c = node("c");
        aliceReplicatedBy(a);
        SessionReplicator holder = b.hasBackup("s1") ? b : c;
        CountDownLatch requestAsks = new CountDownLatch(1);
        transports.get(holder.nodeName()).dropWhen((target, bytes) -> {
            if (!(decoded(bytes) instanceof Message.Fetch fetch && fetch.sessionId().equals("s1"))) {
                return false;
            }
            if (Thread.currentThread().getName().startsWith("sessionrep-rebalance-")) {
                awaitQuietly(requestAsks); // the promotion waits until the request has looked at what is held here
            } else {
                requestAsks.countDown(); // and lands while the request asks the cluster
                await().atMost(Duration.ofSeconds(10)).until(() -> holder.isPrimary("s1"));
            }
            return false;
        });
        stopNode(a);

        RestoredSession restored = holder.acquire("s1").orElseThrow(() -> new AssertionError("no session s1"));
        try {
            assertEquals("alice", restored.attributes().get("user"));
            assertEquals(0, requestAsks.getCount(), "the request asked the cluster");
            await().atMost(Duration.ofSeconds(10)) // counted just after the entry is made
                    .until(() -> counter(ReplicationMetrics.PROMOTIONS, holder.nodeName()) == 1);
            assertFalse(holder.hasMovedAway("s1"), "the request's node serves the session; its live copy is current");
        } finally {
            holder.exit("s1");
        }
        transports.get(holder.nodeName()).dropWhen((target, bytes) -> false);
        TestSession next = new TestSession("s1", clock.millis()).set("user", "bob");
        holder.requestEnd(next, next.tracker);
        settle(holder);
        SessionReplicator other = holder == b ? c : b;
        assertTrue(other.hasBackup("s1"));
        assertEquals(holder.primaryVersion("s1"), other.backupVersion("s1"), "the next write reached the new backup");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
    void aRestartedNodeThatBecomesBackupAgainHoldsTheNewestStateWhenThePrimaryDies() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        SessionReplicator c = node("c");
        List<TestSession> sessions = twentySessionsOn(a, "s");
        settle(a);
        stopNode(b);
        for (int round = 1; round <= 5; round++) {
            writeEach(a, sessions, round);
        }
        SessionReplicator b2 = node("b"); // the same node, restarted: it becomes a backup again
        for (int round = 6; round <= 30; round++) {
            writeEach(a, sessions, round);
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

    /**
     * What HungBackupIT's rejoin case showed in its node logs: a backup came back and became the chosen
     * backup of some sessions again, but did not answer the primary for a while (after the merge); the
     * former backup, which held the whole chain, got no more updates; the primary died, and the survivors
     * had only the former backup's older copy. Until the new backup confirms a copy, the former one must
     * go on receiving every update, and in sync mode its acknowledgement counts: nothing acknowledged is
     * lost and no request waits for the silent one.
     */
    @ParameterizedTest
    @EnumSource(ReplicationMode.class)
    void theFormerBackupKeepsGettingUpdatesUntilASilentNewBackupConfirms(ReplicationMode mode) {
        UnaryOperator<ReplicationConfig.Builder> options = o -> o.replicationMode(mode)
                .syncTimeout(Duration.ofMillis(300));
        SessionReplicator a = node("a", options);
        node("b", options);
        SessionReplicator c = node("c", options);
        List<TestSession> sessions = twentySessionsOn(a, "q");
        settle(a);
        stopNode(running("b"));
        writeEach(a, sessions, 1);
        await().atMost(Duration.ofSeconds(20)).until(() -> a.sessionsBelowQuota() == 0);
        settle(a);
        // b comes back, but nothing a sends it arrives (as after the merge in the chaos run)
        transports.get("a").dropWhen((target, bytes) -> target.name().equals("b"));
        SessionReplicator b = node("b", options);
        double timeoutsBefore = counter(ReplicationMetrics.SYNC_TIMEOUTS, "a");
        writeEach(a, sessions, 2);
        writeEach(a, sessions, 3);
        double timeouts = counter(ReplicationMetrics.SYNC_TIMEOUTS, "a") - timeoutsBefore;
        settle(a); // async: what a queued reached the others before it stops
        stopNode(a);
        List<String> wrong = new ArrayList<>();
        int i = 0;
        for (TestSession s : sessions) {
            SessionReplicator reader = (i++ % 2 == 0) ? c : b;
            Object n = reader.takeOver(s.id()).map(r -> r.attributes().get("n")).orElse(null);
            if (!Integer.valueOf(3).equals(n)) {
                wrong.add(s.id() + " on " + reader.nodeName() + ": " + n);
            }
        }
        assertTrue(wrong.isEmpty(), wrong.size() + " sessions lost updates: " + wrong);
        assertEquals(0, timeouts, "sync: the former backup acknowledged every update");
    }

    /**
     * A take-over serves the newest copy only if every member of the view said which copy it holds. Here
     * the only copy of the session is on b, and b does not answer c's questions (busy, or just merged back):
     * c must not serve the session as unknown (or an older copy of its own) but refuse the request with 503
     * within ownership-timeout; once b answers, the next request gets the newest state. b, which cannot hear
     * from c either, does not promote meanwhile.
     */
    @Test
    void aTakeOverWithoutEveryMembersAnswerIsRefusedNotServedStale() {
        UnaryOperator<ReplicationConfig.Builder> options = o -> o.ownershipTimeout(Duration.ofSeconds(2));
        SessionReplicator a = node("a", options);
        SessionReplicator b = node("b", options);
        SessionReplicator c = node("c", options);
        String id = null;
        TestSession s = null;
        for (int i = 0; id == null; i++) {
            TestSession candidate = newSession("t" + i).set("n", 1);
            a.requestEnd(candidate, candidate.tracker);
            settle(a);
            if (b.hasBackup(candidate.id())) {
                id = candidate.id();
                s = candidate;
            }
        }
        s.set("n", 2);
        a.requestEnd(s, s.tracker);
        settle(a);
        transports.get("c").dropWhen((target, bytes) -> target.name().equals("b") && decoded(bytes) instanceof Message.Fetch);
        transports.get("b").dropWhen((target, bytes) -> target.name().equals("c") && decoded(bytes) instanceof Message.Fetch);
        stopNode(a);

        String session = id;
        assertThrows(OwnershipTimeoutException.class, () -> c.takeOver(session));
        assertFalse(b.isPrimary(id), "b promoted without c's answer");
        assertFalse(c.isPrimary(id));

        transports.get("c").dropWhen((target, bytes) -> false);
        transports.get("b").dropWhen((target, bytes) -> false);
        RestoredSession restored = c.takeOver(id).orElseThrow();
        assertEquals(2, restored.attributes().get("n"));
    }

    @Test
    void primaryKilledRepeatedlyWithTheLoadMovingToTheNodeRestartedLastLosesNothing() {
        SessionReplicator a = node("a");
        node("b");
        node("c");
        List<TestSession> sessions = twentySessionsOn(a, "s");
        int n = 0;
        SessionReplicator primary = a;
        String[] order = {"b", "a", "b", "a"};
        for (String next : order) {
            for (int round = 0; round < 10; round++) {
                writeEach(primary, sessions, ++n);
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

    /** Twenty sessions ("n" = 0) whose first request ended on {@code primary}, ids {@code prefix}0 to 19. */
    private List<TestSession> twentySessionsOn(SessionReplicator primary, String prefix) {
        List<TestSession> sessions = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            TestSession s = newSession(prefix + i).set("n", 0);
            primary.requestEnd(s, s.tracker);
            sessions.add(s);
        }
        return sessions;
    }

    /** One request per session on {@code primary}, each setting "n" to {@code n}. */
    private static void writeEach(SessionReplicator primary, List<TestSession> sessions, int n) {
        for (TestSession s : sessions) {
            s.set("n", n);
            primary.requestEnd(s, s.tracker);
        }
    }
}
