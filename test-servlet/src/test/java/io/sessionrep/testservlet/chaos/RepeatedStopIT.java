package io.sessionrep.testservlet.chaos;

import io.sessionrep.testservlet.LocalCluster;
import io.sessionrep.testservlet.NodeMetrics;
import io.sessionrep.testservlet.NodeProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Rolling restart under load, node JVMs stopped in order: three nodes, 5 client threads on 25 sessions all sent to
 * one node (a sticky balancer); that node - the primary of every session - gets SIGTERM (its Jetty stops, the node
 * hands its sessions over and leaves), the load moves to the next node of the ring, the stopped node is started
 * again, and the next primary is stopped in turn. {@value #STOPS_PROPERTY} stops (default {@value #DEFAULT_STOPS};
 * the {@code chaos} profile runs 30).
 *
 * <p>Each stopped JVM must be gone within {@link #EXIT_WITHIN} of its SIGTERM, with the exit status of a JVM that
 * ended on SIGTERM (143: its shutdown hooks, Jetty's stop and the node's with it, ended without the SIGKILL that
 * follows the bound), the survivors must see it gone, and no session may lack anything its client had been
 * answered: every
 * session's first answer on the next node is the version acknowledged last (or one newer, for the request in flight
 * at the stop), async replication included, since a stop hands every session over.
 */
@Timeout(value = 40, unit = TimeUnit.MINUTES)
class RepeatedStopIT {

    static final String STOPS_PROPERTY = "sessionrep.chaos.stops";
    static final int DEFAULT_STOPS = 3;
    /** From SIGTERM to the process gone: the target of docs/operations.md. */
    static final Duration EXIT_WITHIN = Duration.ofSeconds(10);
    /** The exit status of a JVM that ended on SIGTERM (128 + 15). */
    static final int EXIT_ON_SIGTERM = 143;
    static final int SESSIONS = 25;
    static final int THREADS = 5;
    static final int PROGRESS_BEFORE_STOP = 2;
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    static final Duration POLL = Duration.ofMillis(20);
    /** How long the cluster is left under load once the restarted node holds backups again. */
    static final long SETTLE_MS = 1_000;

    private LocalCluster cluster;
    private ChaosLoad load;

    @AfterEach
    void cleanUp() {
        if (load != null) {
            load.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void eachStoppedNodeExitsWithinTenSecondsAndHandsEverySessionOver() throws Exception {
        int stops = Integer.getInteger(STOPS_PROPERTY, DEFAULT_STOPS);
        cluster = LocalCluster.builder().size(3).start();
        List<String> all = List.of("node-a", "node-b", "node-c");
        cluster.awaitView(Duration.ofSeconds(30), all);
        load = new ChaosLoad(SESSIONS, THREADS, Duration.ZERO, REQUEST_TIMEOUT);
        load.start(cluster.node("node-a"));

        List<String> figures = new ArrayList<>();
        LongSummaryStatistics exits = new LongSummaryStatistics();
        for (int k = 1; k <= stops; k++) {
            NodeProcess primary = load.target().node();
            load.awaitOrFail("every session processed " + PROGRESS_BEFORE_STOP + " times on " + primary.name(),
                    Duration.ofMinutes(2), POLL, () -> load.progressed(PROGRESS_BEFORE_STOP));
            load.awaitOrFail(primary.name() + " reports every session at its write-quota", Duration.ofSeconds(60), POLL,
                    () -> NodeMetrics.valueOrMinusOne(primary, "sessionrep_sessions_below_quota") == 0.0);

            load.crashing(); // requests to the stopping node fail from here on: the balancer moves everyone next
            long stoppedAt = System.nanoTime();
            int exitCode = primary.stop(EXIT_WITHIN); // SIGTERM; SIGKILL (137) if still alive after EXIT_WITHIN
            long exitMillis = millisSince(stoppedAt);
            exits.accept(exitMillis);
            assertEquals(EXIT_ON_SIGTERM, exitCode, "stop " + k + ": " + primary.name() + " did not exit within "
                    + EXIT_WITHIN.toMillis() + " ms of SIGTERM (exit " + exitCode + " after " + exitMillis + " ms); log:\n"
                    + primary.logTail());

            List<String> survivors = all.stream().filter(n -> !n.equals(primary.name())).toList();
            long survivorsView = cluster.awaitView(Duration.ofSeconds(30), survivors);
            NodeProcess next = cluster.node(all.get((all.indexOf(primary.name()) + 1) % all.size()));
            load.failOver(next);
            load.awaitOrFail("every session verified on " + next.name(), Duration.ofMinutes(1), POLL, load::allOnTarget);

            long restartAt = System.nanoTime();
            cluster.start(primary.name());
            cluster.awaitView(Duration.ofSeconds(60), all);
            NodeProcess restarted = cluster.node(primary.name());
            load.awaitOrFail(restarted.name() + " holds backups again", Duration.ofSeconds(60), POLL,
                    () -> NodeMetrics.valueOrMinusOne(restarted, "sessionrep_sessions_backup") > 0);
            String line = String.format("stop %d: %s exited %d ms after SIGTERM; survivors' view %d ms; load to %s;"
                            + " restarted and holding backups after %d ms",
                    k, primary.name(), exitMillis, survivorsView, next.name(), millisSince(restartAt));
            figures.add(line);
            System.out.println("[stops] " + line);
            Thread.sleep(SETTLE_MS);
        }

        load.stopLoad();
        List<String> problems = new ArrayList<>(load.problems());
        String failed = load.failedThread();
        if (failed != null && !failed.equals("stopped")) {
            problems.add("client thread: " + failed);
        }
        String summary = String.format("%d stops, %d sessions: exit after SIGTERM min %d / mean %.0f / max %d ms;"
                        + " hand-over outcomes %s; %d requests, %d errors",
                stops, SESSIONS, exits.getMin(), exits.getAverage(), exits.getMax(), load.outcomes(), load.requests(),
                load.errors());
        System.out.println("[stops] " + summary);
        if (!problems.isEmpty()) {
            fail(problems.size() + " problems (" + summary + "):\n  " + String.join("\n  ", problems) + "\n"
                    + String.join("\n", figures));
        }
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }
}
