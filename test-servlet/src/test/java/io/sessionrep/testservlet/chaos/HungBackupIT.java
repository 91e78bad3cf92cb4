package io.sessionrep.testservlet.chaos;

import io.sessionrep.testservlet.LocalCluster;
import io.sessionrep.testservlet.NodeMetrics;
import io.sessionrep.testservlet.NodeProcess;
import io.sessionrep.testservlet.SessionReply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import org.junit.jupiter.api.Tag;

/**
 * Chaos: a backup that hangs with its sockets open (SIGSTOP, as in a long GC pause or a frozen VM) under
 * load in sync mode with {@code sync-timeout=500ms}. Three node JVMs, write-quota 1, 5 client threads on 25
 * sessions all on node-a; node-b (the backup of about half of them) is stopped for at least
 * {@value #STOP_SECONDS} s, until the others have removed it from their view.
 * <ul>
 *   <li>no request fails, and none takes longer than sync-timeout plus normal latency
 *       ({@value #MAX_LATENCY_MS} ms is the bound asserted: 500 ms + 1.5 s for two loaded shared cores);</li>
 *   <li>node-b is suspected and removed from the view (FD_ALL3 + VERIFY_SUSPECT2: about 11 s);</li>
 *   <li>node-a re-replicates the sessions that lost their backup to node-c: its
 *       {@code sessionrep_sessions_below_quota} gauge returns to 0;</li>
 *   <li>node-a is killed while node-b still hangs, and every session is read on node-c: nothing
 *       acknowledged is lost (the re-replication really happened);</li>
 *   <li>after SIGCONT node-b rejoins (one view of node-b and node-c).</li>
 * </ul>
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@Tag("extended")
class HungBackupIT {

    static final int SESSIONS = 25;
    static final int THREADS = 5;
    static final int STOP_SECONDS = 10;
    static final long SYNC_TIMEOUT_MS = 500;
    static final long MAX_LATENCY_MS = SYNC_TIMEOUT_MS + 1_500;
    /** How often a condition awaited is tested (each test of a below-quota condition scrapes node-a). */
    static final Duration POLL = Duration.ofMillis(50);

    private LocalCluster cluster;
    private ChaosLoad load;
    private NodeProcess stopped;

    @AfterEach
    void cleanUp() throws Exception {
        if (load != null) {
            load.close();
        }
        if (stopped != null && stopped.isAlive()) {
            stopped.pause(false);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * The CI variant: while node-b is still stopped (and out of the view), node-a is killed and every session
     * is read on node-c, which proves the re-replication; then node-b is woken and joins node-c.
     */
    @Test
    void hungBackupDelaysRequestsBySyncTimeoutAtMostAndIsReplaced() throws Exception {
        run(false);
    }

    /**
     * node-b is woken and rejoins BEFORE node-a is killed. This reproduced the defect of docs/operations.md
     * 5.1 (node-c served sessions at the version they had when node-b was stopped) until former backups were
     * released only after the new one acknowledged its copy.
     */
    @Test
    void primaryKilledAfterTheHungBackupRejoinedLosesNothing() throws Exception {
        run(true);
    }

    private void run(boolean rejoinBeforeKill) throws Exception {
        String tag = "[chaos hung-backup" + (rejoinBeforeKill ? ", rejoin first] " : "] ");
        cluster = LocalCluster.builder().size(3)
                .option("replication-mode", "sync")
                .option("sync-timeout", SYNC_TIMEOUT_MS + "ms")
                .option("write-quota", "1")
                .start();
        cluster.awaitView(Duration.ofSeconds(30), "node-a", "node-b", "node-c");
        NodeProcess a = cluster.node("node-a");
        NodeProcess b = cluster.node("node-b");
        NodeProcess c = cluster.node("node-c");
        load = new ChaosLoad(SESSIONS, THREADS, Duration.ZERO, Duration.ofSeconds(30));
        load.start(a);
        load.awaitOrFail("load under way on node-a", Duration.ofMinutes(2), POLL, () -> load.progressed(3));
        load.awaitOrFail("node-a reports every session at its write-quota", Duration.ofSeconds(30), POLL,
                () -> NodeMetrics.valueOrMinusOne(a, "sessionrep_sessions_below_quota") == 0.0);
        double backupsOnB = NodeMetrics.valueOrMinusOne(b, "sessionrep_sessions_backup");
        String steady = String.format("before: %d requests, mean %.1f ms, max %d ms; node-b holds %.0f backups",
                load.requests(), load.meanLatencyMillis(), load.maxLatencyMillis(), backupsOnB);
        System.out.println(tag + steady);
        assertTrue(backupsOnB > 0, "node-b is the backup of some sessions: " + steady);
        double timeoutsBefore = NodeMetrics.valueOrMinusOne(a, "sessionrep_sync_timeouts_total");

        load.resetLatency();
        long stoppedAt = System.nanoTime();
        b.pause(true);
        stopped = b;
        long removed = cluster.awaitView(Duration.ofSeconds(30), "node-a", "node-c");
        long remaining = TimeUnit.SECONDS.toMillis(STOP_SECONDS) - millisSince(stoppedAt);
        if (remaining > 0) {
            Thread.sleep(remaining);
        }
        load.awaitOrFail("node-a re-replicated the sessions backed up on node-b", Duration.ofSeconds(30), POLL,
                () -> NodeMetrics.valueOrMinusOne(a, "sessionrep_sessions_below_quota") == 0.0);
        long quotaBack = millisSince(stoppedAt);
        long maxDuringStop = load.maxLatencyMillis();
        String during = String.format("while node-b hung: %d requests, mean %.1f ms, max %d ms, %d errors,"
                        + " %.0f sync timeouts on node-a; node-b out of the view %d ms after SIGSTOP;"
                        + " below-quota 0 again at %d ms",
                load.requests(), load.meanLatencyMillis(), maxDuringStop, load.errors(),
                NodeMetrics.valueOrMinusOne(a, "sessionrep_sync_timeouts_total") - timeoutsBefore, removed, quotaBack);
        System.out.println(tag + during);

        List<String> survivors;
        double timeoutsAtRejoin = 0;
        if (rejoinBeforeKill) {
            long contAt = System.nanoTime();
            b.pause(false);
            stopped = null;
            long rejoined = cluster.awaitView(Duration.ofSeconds(60), "node-a", "node-b", "node-c");
            System.out.println(tag + "node-b back in one view of 3 " + rejoined + " ms after SIGCONT");
            // the first run that showed the defect killed node-a within about a second of the merge; waiting
            // for more load first (3 more versions per session) passed in 2 of 2 runs
            long settle = Long.getLong("sessionrep.chaos.rejoin-settle-ms", 0);
            Thread.sleep(settle);
            load.awaitOrFail("node-a at quota after the rejoin", Duration.ofSeconds(30), POLL,
                    () -> NodeMetrics.valueOrMinusOne(a, "sessionrep_sessions_below_quota") == 0.0);
            timeoutsAtRejoin = NodeMetrics.valueOrMinusOne(a, "sessionrep_sync_timeouts_total");
            survivors = List.of("node-b", "node-c");
        } else {
            survivors = List.of("node-c");
        }
        load.stopLoad();
        assertEquals(0, load.errors(), "errors: " + load.problems() + " " + load.failedThread());
        assertTrue(maxDuringStop <= MAX_LATENCY_MS, "a request took " + maxDuringStop + " ms while the backup"
                + " hung; expected at most sync-timeout + normal latency (" + MAX_LATENCY_MS + " ms): " + during);
        assertTrue(removed < 20_000, "node-b removed from the view after " + removed + " ms");

        // nothing acknowledged may be lost: every session must now be readable on node-c
        double timeoutsAfterRejoin = rejoinBeforeKill
                ? NodeMetrics.valueOrMinusOne(a, "sessionrep_sync_timeouts_total") - timeoutsAtRejoin : 0;
        assertEquals(137, cluster.kill9(a));
        cluster.awaitView(Duration.ofSeconds(30), survivors);
        List<String> problems = new ArrayList<>();
        for (ChaosLoad.Tracked s : load.sessions()) {
            SessionReply reply = s.client.verify(c.sessionUri());
            String problem = load.check(s, reply, c);
            if (problem != null) {
                problems.add("session " + s.index + " on node-c after node-a was killed: " + problem);
            }
        }
        System.out.println(tag + "node-a killed, every session read on node-c: " + load.outcomes());

        if (!rejoinBeforeKill) {
            long contAt = System.nanoTime();
            b.pause(false);
            stopped = null;
            long rejoined = cluster.awaitView(Duration.ofSeconds(60), "node-b", "node-c");
            System.out.println(tag + "node-b woken: one view of node-b and node-c " + rejoined
                    + " ms after SIGCONT (" + millisSince(contAt) + " ms)");
        }
        if (!problems.isEmpty() && !explainedBySyncTimeouts(load.outcomes(), timeoutsAfterRejoin)) {
            fail(problems.size() + " of " + SESSIONS + " sessions wrong: " + load.outcomes() + "; sync timeouts on"
                    + " node-a between the rejoin and the kill: " + timeoutsAfterRejoin + "\n" + String.join("\n", problems));
        }
        if (!problems.isEmpty()) {
            System.out.println(tag + "accepted: " + problems + " - node-a counted " + timeoutsAfterRejoin + " sync"
                    + " timeouts after node-b rejoined (a request whose backup did not answer within sync-timeout"
                    + " goes on without the acknowledgement, so its update may be the one lost)");
        }
    }

    /**
     * Sync mode promises an acknowledged update only when the backup answered within sync-timeout; past it,
     * the request goes on (bounded latency wins) and the update travels like an async one. So a session may
     * lack its last version if, and only if, node-a counted a sync timeout in the window before the kill:
     * at most one version per session, and no more such sessions than timeouts counted.
     */
    private static boolean explainedBySyncTimeouts(java.util.Map<String, Integer> outcomes, double timeouts) {
        int lostOne = outcomes.getOrDefault("lost 1", 0);
        boolean onlyAllowedOutcomes = outcomes.keySet().stream()
                .allMatch(o -> o.equals("acknowledged") || o.equals("in-flight update kept") || o.equals("lost 1"));
        return onlyAllowedOutcomes && lostOne > 0 && lostOne <= timeouts;
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }
}
