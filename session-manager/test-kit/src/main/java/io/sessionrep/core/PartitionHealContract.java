package io.sessionrep.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.MutableClock;
import io.sessionrep.core.testing.RecordingEvents;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Partition and heal, run over two networks by subclasses: the in-memory one
 * ({@code InMemoryPartitionHealTest}: views are split and merged by hand) and real JGroups channels on
 * 127.0.0.1 ({@code JGroupsPartitionHealTest}: DISCARD cuts the traffic between the sides until failure
 * detection splits the view, MERGE3 merges it after the heal).
 *
 * <p>Three nodes a, b, c (write-quota 1) hold sessions; the cluster is split into {a} | {b, c}; while split,
 * both sides serve requests: some sessions are only updated on their primary's side, some are taken over
 * and updated on the other side (fewer, more, or as many versions as on the primary's side), some are
 * invalidated on one side while the other still uses them, and new ones are created on both sides. After
 * the heal, the documented rules must hold (docs/replication.md, "Partitions and merges"):
 * <ul>
 *   <li>every session has exactly one primary, on the winning side: a copy a request used (live) beats a
 *       copy only promoted from a backup (dormant); then the higher version; equal versions: the node whose
 *       name sorts last;</li>
 *   <li>every node serves the winner's state, and the write-quota is restored (one backup, same version);</li>
 *   <li>an invalidated session never comes back: no copy anywhere, take-over finds nothing on any node.</li>
 * </ul>
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
public abstract class PartitionHealContract {
    private static final List<String> NAMES = List.of("a", "b", "c");

    protected final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    protected final MeterRegistry meters = new SimpleMeterRegistry();
    private final Map<String, SessionReplicator> nodes = new LinkedHashMap<>();
    private final Map<String, ReplicationTransport> transports = new HashMap<>();
    private final Map<String, RecordingEvents> events = new HashMap<>();
    /** What each node's container holds live: node name to session id to session. */
    private final Map<String, Map<String, TestSession>> live = new HashMap<>();
    /** Expected outcome per session id. */
    private final Map<String, Expected> expected = new LinkedHashMap<>();

    /** Where a session must live after the merge, with which state; or that it must be gone. */
    private record Expected(String primary, String state) {
        static Expected gone() {
            return new Expected(null, null);
        }

        boolean invalidated() {
            return primary == null;
        }
    }

    /** Adds what the transport needs (ports, peers, cluster name) for node {@code name}. */
    protected abstract ReplicationConfig.Builder networkOptions(String name, ReplicationConfig.Builder options);

    /** A new, unstarted transport for {@code config}. */
    protected abstract ReplicationTransport newTransport(ReplicationConfig config);

    /** Cuts every link between nodes on different sides (each node is on exactly one side). */
    protected abstract void split(List<Set<String>> sides) throws Exception;

    /** Restores every link cut by {@link #split}. */
    protected abstract void heal() throws Exception;

    /** The longest a view change may take (failure detection after a split, a merge after the heal). */
    protected Duration viewChangeTimeout() {
        return Duration.ofSeconds(60);
    }

    @AfterEach
    void stopNodes() {
        nodes.values().forEach(SessionReplicator::close);
    }

    @ParameterizedTest
    @EnumSource(ReplicationMode.class)
    void partitionAndHealKeepTheNewerSideOfEverySessionAndNoInvalidatedOneComesBack(ReplicationMode mode)
            throws Exception {
        for (String name : NAMES) {
            start(name, mode);
        }
        awaitViews(Map.of("a", 3, "b", 3, "c", 3));
        SessionReplicator a = nodes.get("a");

        // ------------------------------------------------------------ before: versions 1 and 2 everywhere
        for (String name : NAMES) {
            for (int i = 0; i < 40; i++) {
                create(name, name + "-s" + i, name + "-v1");
            }
        }
        for (String name : NAMES) {
            for (int i = 0; i < 40; i++) {
                update(name, name + "-s" + i, name + "-v2");
            }
        }
        settleAll();
        awaitUntil("write-quota met before the split",
                () -> nodes.values().stream().allMatch(n -> n.sessionsBelowQuota() == 0), () -> "");
        Map<String, String> backupOf = new HashMap<>();
        for (String name : NAMES) {
            for (int i = 0; i < 40; i++) {
                String id = name + "-s" + i;
                List<String> holders = NAMES.stream().filter(n -> nodes.get(n).hasBackup(id)).toList();
                assertEquals(1, holders.size(), id + " backed up once before the split: " + holders);
                assertEquals(2, nodes.get(holders.get(0)).backupVersion(id), id);
                backupOf.put(id, holders.get(0));
            }
        }
        // sessions of a (all backed up on the other side), and sessions of b and c backed up on a
        List<String> ofA = new ArrayList<>();
        List<String> backedUpOnA = new ArrayList<>();
        List<String> onlyOnSideTwo = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ofA.add("a-s" + i);
            for (String owner : List.of("b", "c")) {
                String id = owner + "-s" + i;
                (backupOf.get(id).equals("a") ? backedUpOnA : onlyOnSideTwo).add(id);
            }
        }
        assertTrue(backedUpOnA.size() >= 12 && onlyOnSideTwo.size() >= 3, "placement spreads: " + backedUpOnA.size());
        for (String id : expectedUnchanged()) {
            expected.put(id, new Expected(id.substring(0, 1), id.substring(0, 1) + "-v2"));
        }

        // ------------------------------------------------------------ split {a} | {b, c}
        long splitAt = System.nanoTime();
        split(List.of(Set.of("a"), Set.of("b", "c")));
        awaitViews(Map.of("a", 1, "b", 2, "c", 2));
        long splitMillis = millisSince(splitAt);
        // each side promotes the copies it backs up for the other side's primaries (dormant, version 3)
        awaitUntil("promotions on both sides", () -> ofA.stream().allMatch(id -> nodes.get(backupOf.get(id)).isPrimary(id))
                && backedUpOnA.stream().allMatch(a::isPrimary), () -> "");
        for (String id : ofA) {
            assertEquals(3, nodes.get(backupOf.get(id)).primaryVersion(id), id + " promoted at version 3");
        }

        int next = 0;
        // untouched on both sides: a's live copy (version 2) beats the dormant promoted copy (version 3)
        for (int i = 0; i < 3; i++) {
            String id = ofA.get(next++);
            expected.put(id, new Expected("a", "a-v2"));
        }
        // updated on a only: a (version 4) beats the dormant copy (3)
        for (int i = 0; i < 3; i++) {
            String id = ofA.get(next++);
            update("a", id, "a-p1");
            update("a", id, "a-p2");
            expected.put(id, new Expected("a", "a-p2"));
        }
        // taken over on side two by the node that does not hold the promoted copy, updated twice: 6 beats 2
        for (int i = 0; i < 3; i++) {
            String id = ofA.get(next++);
            String taker = other(backupOf.get(id));
            takeOver(taker, id, 4);
            update(taker, id, taker + "-p1");
            update(taker, id, taker + "-p2");
            expected.put(id, new Expected(taker, taker + "-p2"));
        }
        // both progressed, a more: a at 6, side two at 4 (promotion 3, one update)
        for (int i = 0; i < 3; i++) {
            String id = ofA.get(next++);
            for (int u = 1; u <= 4; u++) {
                update("a", id, "a-p" + u);
            }
            String holder = backupOf.get(id);
            takeOver(holder, id, 3);
            update(holder, id, holder + "-p1");
            expected.put(id, new Expected("a", "a-p4"));
        }
        // both progressed, side two more: a at 3, side two at 6
        for (int i = 0; i < 3; i++) {
            String id = ofA.get(next++);
            update("a", id, "a-p1");
            String holder = backupOf.get(id);
            takeOver(holder, id, 3);
            for (int u = 1; u <= 3; u++) {
                update(holder, id, holder + "-p" + u);
            }
            expected.put(id, new Expected(holder, holder + "-p3"));
        }
        // tie at version 4: a (two updates) against b or c (promotion, one update): the name sorting last wins
        for (int i = 0; i < 3; i++) {
            String id = ofA.get(next++);
            update("a", id, "a-p1");
            update("a", id, "a-p2");
            String holder = backupOf.get(id);
            takeOver(holder, id, 3);
            update(holder, id, holder + "-p1");
            assertEquals(4, nodes.get("a").primaryVersion(id));
            assertEquals(4, nodes.get(holder).primaryVersion(id));
            expected.put(id, new Expected(holder, holder + "-p1"));
        }
        // invalidated on a, while side two took it over and updated it to a higher version: gone
        for (int i = 0; i < 3; i++) {
            String id = ofA.get(next++);
            invalidate("a", id);
            String holder = backupOf.get(id);
            takeOver(holder, id, 3);
            for (int u = 1; u <= 3; u++) {
                update(holder, id, holder + "-p" + u);
            }
            expected.put(id, Expected.gone());
        }
        // taken over and invalidated on side two, while a kept updating it: gone
        List<String> invalidatedOnTwoWhileLiveOnA = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = ofA.get(next++);
            String holder = backupOf.get(id);
            takeOver(holder, id, 3);
            update(holder, id, holder + "-p1");
            invalidate(holder, id);
            update("a", id, "a-p1");
            update("a", id, "a-p2");
            expected.put(id, Expected.gone());
            invalidatedOnTwoWhileLiveOnA.add(id);
        }

        next = 0;
        // tie at version 4 the other way round: b or c (two updates) against a (promotion, one update)
        List<String> lostByA = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = backedUpOnA.get(next++);
            String owner = id.substring(0, 1);
            update(owner, id, owner + "-p1");
            update(owner, id, owner + "-p2");
            takeOver("a", id, 3);
            update("a", id, "a-p1");
            expected.put(id, new Expected(owner, owner + "-p2"));
            lostByA.add(id);
        }
        // taken over and updated on a only: a (4) beats the untouched owner (2)
        for (int i = 0; i < 3; i++) {
            String id = backedUpOnA.get(next++);
            takeOver("a", id, 3);
            update("a", id, "a-p1");
            expected.put(id, new Expected("a", "a-p1"));
        }
        // updated by its owner only: the owner (4) beats a's dormant copy (3)
        for (int i = 0; i < 3; i++) {
            String id = backedUpOnA.get(next++);
            String owner = id.substring(0, 1);
            update(owner, id, owner + "-p1");
            update(owner, id, owner + "-p2");
            expected.put(id, new Expected(owner, owner + "-p2"));
        }
        // invalidated by its owner, while a took it over and updated it: gone
        for (int i = 0; i < 3; i++) {
            String id = backedUpOnA.get(next++);
            String owner = id.substring(0, 1);
            invalidate(owner, id);
            takeOver("a", id, 3);
            update("a", id, "a-p1");
            expected.put(id, Expected.gone());
        }
        // known on side two only, updated there
        for (int i = 0; i < 3; i++) {
            String id = onlyOnSideTwo.get(i);
            String owner = id.substring(0, 1);
            update(owner, id, owner + "-p1");
            expected.put(id, new Expected(owner, owner + "-p1"));
        }
        // created while split, on each side
        for (String creator : List.of("a", "b")) {
            for (int i = 0; i < 2; i++) {
                String id = creator + "-new" + i;
                create(creator, id, creator + "-n1");
                update(creator, id, creator + "-n2");
                expected.put(id, new Expected(creator, creator + "-n2"));
            }
        }
        settleAll();

        // ------------------------------------------------------------ heal
        long partitionMillis = millisSince(splitAt);
        long healedAt = System.nanoTime();
        heal();
        awaitViews(Map.of("a", 3, "b", 3, "c", 3));
        long mergeMillis = millisSince(healedAt);
        awaitUntil("one primary per session on the winning side, write-quota restored, invalidated sessions gone",
                () -> problems().isEmpty(), this::problems);
        System.out.println("partition and heal (" + mode + "): each side had its own view " + splitMillis
                + " ms after the cut; healed after " + partitionMillis + " ms; merged view " + mergeMillis
                + " ms after the heal; every session settled and backed up " + millisSince(healedAt) + " ms after the heal");
        settleAll();
        assertEquals(List.of(), problems());

        // the state served everywhere is the winner's: on the primary, then on another node (taking it over)
        int n = 0;
        for (Map.Entry<String, Expected> e : expected.entrySet()) {
            String id = e.getKey();
            Expected want = e.getValue();
            if (want.invalidated()) {
                continue;
            }
            RestoredSession onPrimary = nodes.get(want.primary()).takeOver(id).orElseThrow();
            assertEquals(want.state(), onPrimary.attributes().get("state"), id + " on its primary " + want.primary());
            String elsewhere = NAMES.stream().filter(x -> !x.equals(want.primary())).toList().get(n++ % 2);
            RestoredSession moved = nodes.get(elsewhere).takeOver(id).orElseThrow();
            assertEquals(want.state(), moved.attributes().get("state"), id + " taken over by " + elsewhere);
        }
        settleAll();
        for (Map.Entry<String, Expected> e : expected.entrySet()) {
            String id = e.getKey();
            long primaries = nodes.values().stream().filter(x -> x.isPrimary(id)).count();
            if (e.getValue().invalidated()) {
                for (SessionReplicator node : nodes.values()) {
                    assertEquals(Optional.empty(), node.takeOver(id), id + " must not come back on " + node.nodeName());
                    assertFalse(node.isPrimary(id) || node.hasBackup(id), id + " on " + node.nodeName());
                }
            } else {
                assertEquals(1, primaries, id + " has one primary after the take-over checks");
            }
        }

        // the containers were told: a lost the sessions the other side won, and dropped those it invalidated
        RecordingEvents onA = events.get("a");
        for (String id : lostByA) {
            assertTrue(onA.ownershipLost.contains(id), id + ": a was told it lost the session");
        }
        for (String id : invalidatedOnTwoWhileLiveOnA) {
            assertTrue(onA.invalidatedElsewhere.contains(id), id + ": a was told it was invalidated");
        }
        assertTrue(counter(ReplicationMetrics.MERGE_RESOLVED, "kept") > 0);
        assertTrue(counter(ReplicationMetrics.MERGE_RESOLVED, "dropped") > 0);
        assertTrue(counter(ReplicationMetrics.MERGE_RESOLVED, "invalidated") > 0);
    }

    /** Sessions not named by the scenario: unchanged everywhere, they stay with their primary at version 2. */
    private List<String> expectedUnchanged() {
        List<String> ids = new ArrayList<>();
        for (String name : NAMES) {
            for (int i = 0; i < 40; i++) {
                ids.add(name + "-s" + i);
            }
        }
        return ids;
    }

    /** What still differs from the expected outcome (empty: all settled). */
    private List<String> problems() {
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Expected> e : expected.entrySet()) {
            String id = e.getKey();
            Expected want = e.getValue();
            List<String> primaries = NAMES.stream().filter(n -> nodes.get(n).isPrimary(id)).toList();
            List<String> backups = NAMES.stream().filter(n -> nodes.get(n).hasBackup(id)).toList();
            if (want.invalidated()) {
                if (!primaries.isEmpty() || !backups.isEmpty()) {
                    problems.add(id + " (invalidated) is still held: primaries " + primaries + ", backups " + backups);
                }
                continue;
            }
            if (!primaries.equals(List.of(want.primary()))) {
                problems.add(id + ": primaries " + primaries + ", expected [" + want.primary() + "]");
                continue;
            }
            long version = nodes.get(want.primary()).primaryVersion(id);
            List<String> current = backups.stream().filter(n -> nodes.get(n).backupVersion(id) == version).toList();
            if (backups.size() != 1 || current.size() != 1 || backups.contains(want.primary())) {
                problems.add(id + ": primary " + want.primary() + " at " + version + ", backups " + describeBackups(id, backups));
            }
        }
        for (SessionReplicator node : nodes.values()) {
            if (node.sessionsBelowQuota() > 0) {
                problems.add(node.nodeName() + " has " + node.sessionsBelowQuota() + " sessions below write-quota");
            }
        }
        return problems;
    }

    private String describeBackups(String id, List<String> holders) {
        StringBuilder sb = new StringBuilder("[");
        for (String h : holders) {
            sb.append(h).append('@').append(nodes.get(h).backupVersion(id)).append(' ');
        }
        return sb.append(']').toString();
    }

    // ------------------------------------------------------------------ a container's view of the scenario

    private void start(String name, ReplicationMode mode) {
        ReplicationConfig config = networkOptions(name, ReplicationConfig.builder().nodeName(name).machineId(name)
                .writeQuota(1).replicationMode(mode)).build();
        ReplicationTransport transport = newTransport(config);
        RecordingEvents recorder = new RecordingEvents();
        SessionReplicator node = SessionReplicator.start(config, transport, getClass().getClassLoader(), meters,
                recorder, clock);
        nodes.put(name, node);
        transports.put(name, transport);
        events.put(name, recorder);
        live.put(name, new HashMap<>());
    }

    private void create(String node, String id, String state) {
        TestSession s = new TestSession(id, clock.millis()).set("state", state).set("payload", new byte[256]);
        live.get(node).put(id, s);
        nodes.get(node).requestEnd(s, s.tracker);
    }

    private void update(String node, String id, String state) {
        TestSession s = live.get(node).get(id);
        if (s == null) {
            fail(node + " does not hold " + id + " live");
        }
        s.set("state", state);
        nodes.get(node).requestEnd(s, s.tracker);
    }

    /** A request for {@code id} lands on {@code node}, which takes it over at {@code version}. */
    private void takeOver(String node, String id, long version) {
        RestoredSession restored = nodes.get(node).takeOver(id).orElseThrow(() -> new AssertionError(node + " could not take " + id + " over"));
        assertEquals(version, restored.version(), id + " taken over by " + node);
        TestSession s = new TestSession(id, clock.millis());
        restored.attributes().forEach(s::set);
        s.tracker.drain();
        live.get(node).put(id, s);
    }

    private void invalidate(String node, String id) {
        live.get(node).remove(id);
        nodes.get(node).invalidate(id);
    }

    private String other(String sideTwoNode) {
        return sideTwoNode.equals("b") ? "c" : "b";
    }

    // ------------------------------------------------------------------ waiting

    private void awaitViews(Map<String, Integer> sizes) {
        awaitUntil("views " + sizes, () -> sizes.entrySet().stream()
                        .allMatch(e -> nodes.get(e.getKey()).members().size() == e.getValue()),
                () -> nodes.values().stream().map(n -> n.nodeName() + "=" + n.members()).toList().toString(),
                viewChangeTimeout());
    }

    private void awaitUntil(String what, BooleanSupplier condition, Supplier<Object> state) {
        awaitUntil(what, condition, state, Duration.ofSeconds(60));
    }

    private void awaitUntil(String what, BooleanSupplier condition, Supplier<Object> state, Duration atMost) {
        try {
            await().atMost(atMost).pollInterval(Duration.ofMillis(100)).until(condition::getAsBoolean);
        } catch (ConditionTimeoutException e) {
            fail("not within " + atMost.toSeconds() + " s: " + what + "; " + state.get());
        }
    }

    /**
     * Waits until what every node sent so far was processed: flushes each async queue, then makes one
     * request to each member it sees (per-sender FIFO: the reply comes after).
     */
    private void settleAll() {
        for (int round = 0; round < 2; round++) {
            for (SessionReplicator n : nodes.values()) {
                n.flush(Duration.ofSeconds(10));
                ReplicationTransport t = transports.get(n.nodeName());
                for (Member m : n.members()) {
                    if (!m.name().equals(n.nodeName())) {
                        try {
                            t.request(m, WireCodec.encode(new Message.Fetch("barrier")), Duration.ofSeconds(10)).join();
                        } catch (RuntimeException e) {
                            // a view change under way: the next round or the caller's wait covers it
                        }
                    }
                }
            }
        }
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    private double counter(String name, String outcome) {
        return meters.find(name).tag("outcome", outcome).counters().stream().mapToDouble(c -> c.count()).sum();
    }
}
