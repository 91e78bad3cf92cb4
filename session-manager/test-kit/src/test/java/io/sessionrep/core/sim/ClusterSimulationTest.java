package io.sessionrep.core.sim;

import io.sessionrep.core.config.ReplicationMode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.logging.Level;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * A seeded simulation of a cluster of 3 or 4 nodes over {@link SimNetwork}: clients' requests of a handful of
 * sessions land on any node (hand-overs), two requests of a session run at once on two nodes, nodes are killed
 * (also inside a request and right after a write) and restarted, the network splits and heals, one link is slow
 * (messages of other senders overtake it). Sync or async mode, write-quota 1 (or 2 with 4 nodes), per seed. After
 * every step the cluster settles (no message waiting, async queues handed over, every node ready; a cluster that is
 * not settled after a moment runs its periodic maintenance once, as its timer would) and the product's promises are
 * checked (README, "Replication semantics and guarantees"):
 * <ol>
 *   <li>one live holder: two nodes that see each other are never inside a request of the same session at once;
 *       once settled, each side of a partition has at most one primary and one live copy of each session (two
 *       sides of a partition each serve their own, by design);</li>
 *   <li>sync mode: a write whose request returned with its backup's acknowledgement survives the kill of any single
 *       node. Restricted to what is promised: kills come one at a time, each after the cluster settled (write-quota
 *       restored), at least two nodes stay up, and none happens during a partition (a side of one node has no
 *       backup);</li>
 *   <li>a request anywhere sees the last completed write of its session, except where the product documents a
 *       loss: async mode and a kill right after the write (it was still queued), a sync write not acknowledged
 *       (sync-timeout, or no backup in the view), a write whose node died inside its request (kept or not), and a
 *       partition: a side without the primary or a current backup may serve an older copy it held or find no
 *       session, and after the heal any side's last write may win (the losing side's changes are lost);</li>
 *   <li>an invalidated session is never found again, and once settled no node holds a copy of it (an
 *       invalidation on either side of a partition wins after the heal).</li>
 * </ol>
 * A request refused with ownership-timeout is counted and printed, not checked (no application code ran).
 *
 * <p>Reproducible from the seed: the configuration, every step and its arguments, and which queued message the
 * network delivers next (one at a time). Not reproducible: which messages are queued when the network picks, as
 * that depends on the timing of the core's own threads (async sender, rebalancer, request threads blocked in a
 * hand-over or a sync acknowledgement). A failing seed run alone ({@code -Dsim.seed}) is therefore run up to
 * {@link #REPEATS} times, until it fails (the seeds that found the defects fixed with this test each failed again
 * within those runs, not always at the first).
 *
 * <p>Many seeds at once: a seed that breaks an invariant is run {@link #CONFIRMATIONS} more times. Broken again in
 * any of them, it fails the test. Kept in all of them, it is an <em>unconfirmed</em> loss: a real interleaving of the
 * core's threads that lost data and that the seed's message order alone does not bring back. It is printed in full,
 * with its reproduction command, and counted in the summary line, but fails the test only with
 * {@code -Dsim.strict=true}: a build must not fail at random on a race its seed cannot replay, and a dedicated run
 * ({@code -Dsim.strict=true -Dsim.seeds=...}) is where such losses are hunted.
 *
 * <p>Default: {@link #DEFAULT_SEEDS} seeds of {@link #STEPS} steps. One seed: {@code mvn -B -ntp -pl
 * session-manager/test-kit -am test -Dtest=ClusterSimulationTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dsim.seed=1234} ({@code -Dsim.verbose=true}: every session's copies after each step; {@code -Dsim.log=true}: the
 * core's debug log); more seeds: {@code -Dsim.seeds=100000} (and {@code -Dsim.first=...}, {@code -Dsim.steps=...}).
 */
class ClusterSimulationTest {
    static final int DEFAULT_SEEDS = Integer.getInteger("sim.seeds", 1000);
    static final int STEPS = Integer.getInteger("sim.steps", 20);
    static final int REPEATS = 20;
    static final int CONFIRMATIONS = Integer.getInteger("sim.confirm", 3);
    static final boolean STRICT = Boolean.getBoolean("sim.strict");

    @Test
    void everySeedKeepsTheInvariants() {
        Logger quiet = Logger.getLogger("io.sessionrep");
        Level before = quiet.getLevel();
        java.util.logging.Handler console = null;
        if (Boolean.getBoolean("sim.log")) { // -Dsim.log=true: the core's debug log, for one seed
            console = new java.util.logging.ConsoleHandler();
            console.setLevel(Level.ALL);
            quiet.addHandler(console);
            quiet.setLevel(Level.ALL);
        } else {
            quiet.setLevel(Level.OFF);
        }
        try {
            String single = System.getProperty("sim.seed");
            List<String> failures = new ArrayList<>();
            List<String> unconfirmed = new ArrayList<>();
            long started = System.nanoTime();
            int refused = 0;
            int unsettled = 0;
            int maintained = 0;
            if (single != null) {
                long seed = Long.parseLong(single);
                int repeats = Integer.getInteger("sim.repeats", REPEATS);
                for (int i = 0; i < repeats && failures.isEmpty(); i++) {
                    Outcome o = run(seed);
                    refused += o.refused;
                    unsettled += o.unsettled;
                    maintained += o.maintained;
                    if (o.failure != null) {
                        failures.add(o.failure);
                    }
                }
            } else {
                long first = Long.getLong("sim.first", 1);
                for (long seed = first; seed < first + DEFAULT_SEEDS && failures.size() < 5; seed++) {
                    Outcome o = run(seed);
                    refused += o.refused;
                    unsettled += o.unsettled;
                    maintained += o.maintained;
                    if (o.failure != null) {
                        if (STRICT || brokenAgain(seed)) {
                            failures.add(o.failure);
                        } else {
                            unconfirmed.add(o.failure);
                            System.out.println("UNCONFIRMED LOSS (the seed kept the invariants in " + CONFIRMATIONS
                                    + " more runs; -Dsim.strict=true fails on it):\n" + o.failure);
                        }
                    }
                }
            }
            System.out.printf("cluster simulation: %s, %d steps each, %.1f s, %d requests refused"
                            + " (ownership-timeout), %d steps settled only after a maintenance pass, %d not within %s,"
                            + " %d unconfirmed losses%n",
                    single != null ? "seed " + single + " (up to " + Integer.getInteger("sim.repeats", REPEATS) + " runs)"
                            : DEFAULT_SEEDS + " seeds", STEPS,
                    (System.nanoTime() - started) / 1e9, refused, maintained, unsettled, SimWorld.SETTLE_LIMIT,
                    unconfirmed.size());
            if (!failures.isEmpty()) {
                fail(String.join("\n\n", failures));
            }
        } finally {
            quiet.setLevel(before);
            if (console != null) {
                quiet.removeHandler(console);
            }
        }
    }

    /** Whether {@code seed} breaks an invariant again in one of {@link #CONFIRMATIONS} more runs. */
    private static boolean brokenAgain(long seed) {
        for (int i = 0; i < CONFIRMATIONS; i++) {
            if (run(seed).failure != null) {
                return true;
            }
        }
        return false;
    }

    record Outcome(String failure, int refused, int unsettled, int maintained) {
    }

    static Outcome run(long seed) {
        Random random = new Random(seed);
        int nodes = 3 + random.nextInt(2);
        ReplicationMode mode = random.nextBoolean() ? ReplicationMode.SYNC : ReplicationMode.ASYNC;
        int quota = nodes == 4 && random.nextInt(4) == 0 ? 2 : 1;
        try (SimWorld world = new SimWorld(seed, nodes, mode, quota)) {
            SimSteps steps = new SimSteps(world, random);
            for (int i = 0; i < STEPS; i++) {
                String problem = steps.step();
                if (problem != null) {
                    return new Outcome("seed " + seed + " (" + nodes + " nodes, " + mode + ", write-quota " + quota
                            + "): " + problem + "\n  steps:\n    " + String.join("\n    ", steps.trace())
                            + "\n  reproduce: mvn -B -ntp -pl session-manager/test-kit -am test"
                            + " -Dtest=ClusterSimulationTest -Dsurefire.failIfNoSpecifiedTests=false -Dsim.seed=" + seed,
                            steps.refused, world.unsettled(), world.maintenanceRuns());
                }
            }
            if (Boolean.getBoolean("sim.verbose")) {
                System.err.println("seed " + seed + " trace:\n  " + String.join("\n  ", steps.trace()));
            }
            return new Outcome(null, steps.refused, world.unsettled(), world.maintenanceRuns());
        }
    }
}
