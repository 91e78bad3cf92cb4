package io.sessionrep.core.sim;

import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.placement.BackupPlacement;
import io.sessionrep.core.transport.Member;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scenarios the cluster simulation ({@link ClusterSimulationTest}) found losing sessions, scripted on the same
 * simulated cluster: a single kill, after the cluster had settled and every node reported ready, lost what the
 * product promises to keep.
 */
@Timeout(60)
class ClusterScenariosTest {
    private static final List<String> IDS = IntStream.range(0, 40).mapToObj(i -> "sess" + i).toList();
    /** What a request reads from a session whose last write set it to 1. */
    private static final SimNode.Seen VALUE_1 = new SimNode.Seen(SimNode.Seen.Kind.VALUE, 1);

    /** Every session of {@link #IDS} created with value 1 by a request on {@code owner}; then the cluster settles. */
    private static void createAllSettled(SimWorld world, SimNode owner) {
        for (String id : IDS) {
            owner.create(id, 1);
        }
        assertTrue(world.settle());
    }
    private static final java.util.logging.Logger CORE_LOG = java.util.logging.Logger.getLogger("io.sessionrep");
    private static java.util.logging.Level levelBefore;

    @org.junit.jupiter.api.BeforeAll
    static void quiet() {
        levelBefore = CORE_LOG.getLevel();
        CORE_LOG.setLevel(java.util.logging.Level.WARNING); // kills and partitions log a lot at INFO
    }

    @org.junit.jupiter.api.AfterAll
    static void restoreLogLevel() {
        CORE_LOG.setLevel(levelBefore);
    }

    /**
     * A node joins and takes over some sessions' backups: the former backup is released (it ignores that owner's
     * one-way updates up to that version for a while, in case one was still on its way). The new node dies: the
     * owner chooses the released node again, before the session changed. Its copy must reach it (acknowledged), or
     * the session has no backup and the owner's death loses it.
     */
    @Test
    void aBackupReleasedForAJoiningNodeHoldsTheSessionAgainWhenThatNodeDies() {
        try (SimWorld world = new SimWorld(1, 3, ReplicationMode.ASYNC, 1)) {
            SimNode owner = world.node("n1");
            createAllSettled(world, owner);
            java.util.Map<String, String> backupBefore = new java.util.HashMap<>();
            for (String id : IDS) {
                backupBefore.put(id, holderOfBackup(world, id));
            }
            world.start("n4");
            assertTrue(world.settle());
            String moved = IDS.stream().filter(id -> world.node("n4").engine.hasBackup(id)).findFirst().orElse(null);
            assertNotNull(moved, "some session's backup moved to the joining node");
            String released = backupBefore.get(moved);
            assertTrue(!world.node(released).engine.hasBackup(moved), "its former backup was released");

            world.crash("n4");
            assertTrue(world.settle());
            assertEquals(owner.engine.primaryVersion(moved), world.node(released).engine.backupVersion(moved),
                    "the released node, chosen again, holds the owner's version");

            world.crash("n1");
            assertTrue(world.settle());
            assertEquals(VALUE_1,
                    world.node(released).request(moved, 2, () -> { }), "the session survived its owner");
        }
    }

    /**
     * A request on the session's backup brings it there (a hand-over); the former owner keeps its last state, in
     * case the new owner dies before its own backup has one. It does (async mode: its queued copy never left).
     * The copy the former owner kept is the only one, outside the new owner's placement: it must get an owner and a
     * backup again, or the next death (the former owner's) loses the session. The lost request is the one async
     * mode may lose; the state before it must survive.
     */
    @Test
    void aCopyLeftByAHandOverIsPromotedWhenTheNewOwnerDiesBeforeItsBackupHasOne() {
        try (SimWorld world = new SimWorld(2, 4, ReplicationMode.ASYNC, 1)) {
            SimNode owner = world.node("n1");
            createAllSettled(world, owner);
            BackupPlacement placement = new BackupPlacement(1, true);
            String chosen = null;
            String newOwner = null;
            for (String id : IDS) {
                String backup = holderOfBackup(world, id);
                List<Member> all = world.upNames().stream().map(n -> new Member(n, n)).toList();
                List<Member> survivors = all.stream().filter(m -> !m.name().equals(backup)).toList();
                Member primary = new Member(backup, backup);
                // the former owner must be neither the new owner's backup nor its first successor once it died
                // (it would get the copy, or promote its own anyway)
                if (!placement.backups(id, primary, all).get(0).name().equals("n1")
                        && !placement.backups(id, primary, survivors).get(0).name().equals("n1")) {
                    chosen = id;
                    newOwner = backup;
                    break;
                }
            }
            assertNotNull(chosen, "a session whose backup's successor is not its owner");
            for (String other : world.upNames()) {
                if (!other.equals("n1") && !other.equals(newOwner)) {
                    world.network.hold(newOwner, other); // the new owner's copies and announcements wait
                }
            }
            assertEquals(VALUE_1,
                    world.node(newOwner).request(chosen, 2, () -> { }));
            world.crash(newOwner);
            assertTrue(world.settle());
            String id = chosen;
            assertTrue(world.upNames().stream().anyMatch(n -> world.node(n).engine.isPrimary(id)),
                    "a survivor owns the session again");

            world.crash("n1");
            assertTrue(world.settle());
            String reader = world.upNames().get(0);
            assertEquals(VALUE_1, world.node(reader).request(id, 3, () -> { }),
                    "the session survived the former owner's death too");
        }
    }

    /**
     * A backup dies: its owner chooses another backup and queues it a full copy (sync mode: every write was
     * acknowledged by the backup that died). An operator rolling the cluster stops the next node as soon as the
     * owner says it is ready and nothing is on its way: the owner. The new backup must hold the session by then,
     * not merely have it queued at the owner, or the owner's death loses acknowledged writes. (A long batch
     * window keeps the copies queued long enough to see it every time; the default 1 ms makes it a rare race.)
     */
    @Test
    void anOwnerIsReadyOnlyOnceTheCopiesRestoringItsBackupsHaveLeft() {
        try (SimWorld world = new SimWorld(3, 3, ReplicationMode.SYNC, 1,
                options -> options.asyncBatchWindow(java.time.Duration.ofMillis(100)))) {
            SimNode owner = world.node("n1");
            createAllSettled(world, owner);
            world.crash("n2");
            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
            while (!(owner.engine.readiness().ready() && world.network.idle())) {
                assertTrue(System.nanoTime() < deadline, "the owner became ready again");
                Thread.onSpinWait();
            }
            world.crash("n1");
            assertTrue(world.settle());
            for (String id : IDS) {
                assertEquals(VALUE_1, world.node("n3").request(id, null, () -> { }),
                        "session " + id + " survived its owner");
            }
        }
    }

    /**
     * A node takes the session over by a hand-over and dies at once; its announcement never reached the former
     * owner's backup, so the two copies left point to different owners and neither promotes. A request on that
     * backup takes the session over from its own copy. The former owner, which holds the same version but is not
     * the new owner's backup, must keep its copy (the new owner's backup has nothing yet, its copy is still
     * queued): the new owner dies too, and that copy is the only one left.
     */
    @Test
    void aCopyAtTheVersionTakenOverIsKeptUntilTheNewOwnersBackupHoldsIt() {
        try (SimWorld world = new SimWorld(4, 4, ReplicationMode.ASYNC, 1,
                options -> options.asyncBatchWindow(java.time.Duration.ofMillis(100)))) {
            SimNode owner = world.node("n1");
            createAllSettled(world, owner);
            BackupPlacement placement = new BackupPlacement(1, true);
            String chosen = null;
            String taker = null;
            String requester = null;
            String third = null;
            for (String id : IDS) {
                String backup = holderOfBackup(world, id);
                List<String> others = world.upNames().stream().filter(n -> !n.equals("n1") && !n.equals(backup))
                        .toList();
                for (String r : others) {
                    String x = others.stream().filter(n -> !n.equals(r)).findFirst().orElseThrow();
                    List<Member> survivors = world.upNames().stream().filter(n -> !n.equals(r))
                            .map(n -> new Member(n, n)).toList();
                    // the former owner leaves the promotion to the backup (the first successor of the dead
                    // requester, holding a copy), and is not the backup's own backup once it owns the session
                    if (placement.backups(id, new Member(r, r), survivors).get(0).name().equals(backup)
                            && placement.backups(id, new Member(backup, backup), survivors).get(0).name().equals(x)) {
                        chosen = id;
                        taker = backup;
                        requester = r;
                        third = x;
                        break;
                    }
                }
                if (chosen != null) {
                    break;
                }
            }
            assertNotNull(chosen, "a session with the placement this scenario needs");
            String id = chosen;
            world.network.hold(requester, taker); // its announcement and copies never reach them
            world.network.hold(requester, third);
            assertEquals(VALUE_1, world.node(requester).request(id, 2, () -> { }));
            world.crash(requester);
            assertTrue(world.settle());
            assertTrue(world.upNames().stream().noneMatch(n -> world.node(n).engine.isPrimary(id)),
                    "no survivor promoted the session (the scenario's premise)");

            assertEquals(VALUE_1, world.node(taker).request(id, 3, () -> { }));
            assertTrue(world.node(taker).engine.isPrimary(id), "taken over");
            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(5).toNanos();
            while (!world.network.idle()) { // its announcement arrived; its copy still waits in its async queue
                assertTrue(System.nanoTime() < deadline, "the network went idle");
                Thread.onSpinWait();
            }
            world.crash(taker);
            assertTrue(world.settle());
            assertEquals(VALUE_1, world.node(third).request(id, 4, () -> { }),
                    "the session survived at the version taken over");
        }
    }

    private static String holderOfBackup(SimWorld world, String id) {
        return world.upNames().stream().filter(n -> world.node(n).engine.hasBackup(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no backup of " + id));
    }
}
