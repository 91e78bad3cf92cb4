package io.sessionrep.testservlet.discovery;

import io.sessionrep.testservlet.LocalCluster;
import io.sessionrep.testservlet.NodeProcess;
import io.sessionrep.testservlet.SessionClient;
import io.sessionrep.testservlet.SessionReply;
import io.sessionrep.testservlet.Workload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * discovery=static as the README recommends it: four node JVMs in a ring, each knowing only one other
 * (B lists A, C lists B, D lists C, A lists D), on one set of processes:
 * <ol>
 *   <li>B is not running at start. The others start in the order A, C, D: A's only peer (D) and C's only
 *       peer (B) are down when they start, so {A} and {C, D} form first and must find each other (MERGE3
 *       over TCPPING) into ONE view of three;</li>
 *   <li>B starts late and joins: one view of four;</li>
 *   <li>a session created on A survives A's kill -9 (B's only peer): B, C, D stay one view;</li>
 *   <li>A comes back (same address) and is in one view of four again; it can serve the session;</li>
 *   <li>D hangs (SIGSTOP, sockets open): the others suspect and exclude it; woken up (SIGCONT) it merges
 *       back: one view of four.</li>
 * </ol>
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class StaticRingIT {

    /** Generous: a merge normally completes within about 6 s (MERGE3 looks every 1 to 3 s, compares every 3.2 s). */
    static final Duration MERGE_TIMEOUT = Duration.ofSeconds(60);

    private LocalCluster cluster;

    @AfterEach
    void cleanUp() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void ringFormsWithOneNodeMissingRejoinsAndSurvivesACrashAndAHang() throws Exception {
        long t0 = System.nanoTime();
        cluster = Scenario.cluster(4).deferred("node-b").start();
        // MERGE3 looks for other partitions every 1 to 3 s and compares views every 3.2 s: 3.2 and 3.3 s measured
        long merged = cluster.awaitView(MERGE_TIMEOUT, "node-a", "node-c", "node-d");
        System.out.println("[static ring] node-b missing: one view of a, c, d " + merged
                + " ms after node-d was READY (" + sinceMs(t0) + " ms after start)");

        cluster.start("node-b");
        long joined = cluster.awaitView(Scenario.VIEW_TIMEOUT, "node-a", "node-b", "node-c", "node-d");
        System.out.println("[static ring] node-b started late: one view of 4 " + joined + " ms after it was READY");

        long killDetected = Scenario.formsOneViewAndSurvivesKill9("static ring", cluster);

        cluster.start("node-a");
        long back = cluster.awaitView(Scenario.VIEW_TIMEOUT, "node-a", "node-b", "node-c", "node-d");
        System.out.println("[static ring] node-a back after its kill -9: one view of 4 " + back
                + " ms after it was READY");
        SessionClient user = new SessionClient(SessionClient.newHttpClient(), Duration.ofSeconds(30));
        // a fresh session on the restarted node, kept by the others while it is away
        SessionReply created = user.initialize(cluster.node("node-a").sessionUri(), Scenario.NUMBER, Scenario.SIZE_KIB);
        assertEquals("node-a", created.node(), created.toString());

        NodeProcess d = cluster.node("node-d");
        long stopped = System.nanoTime();
        d.pause(true);
        try {
            cluster.awaitView(Duration.ofSeconds(40), "node-a", "node-b", "node-c");
            long hangDetected = sinceMs(stopped);
            System.out.println("[static ring] SIGSTOP of node-d: one view of a, b, c after " + hangDetected + " ms");
        } finally {
            d.pause(false);
        }
        long continued = System.nanoTime();
        cluster.awaitView(MERGE_TIMEOUT, "node-a", "node-b", "node-c", "node-d");
        System.out.println("[static ring] SIGCONT of node-d: merged back into one view of 4 after "
                + sinceMs(continued) + " ms");
        SessionReply served = user.verify(cluster.node("node-c").sessionUri());
        assertEquals(Workload.expected(Scenario.NUMBER, Scenario.SIZE_KIB, 0), served.state(),
                "after all that, the session is still served: " + served);
        System.out.println("[static ring] kill -9 detected after " + killDetected + " ms; total " + sinceMs(t0) + " ms");
    }

    private static long sinceMs(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }
}
