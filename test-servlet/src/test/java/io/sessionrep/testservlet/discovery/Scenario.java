package io.sessionrep.testservlet.discovery;

import io.sessionrep.testservlet.LocalCluster;
import io.sessionrep.testservlet.NodeProcess;
import io.sessionrep.testservlet.SessionClient;
import io.sessionrep.testservlet.SessionReply;
import io.sessionrep.testservlet.Workload;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What every discovery test checks on a running cluster of node JVMs, and what they share. */
final class Scenario {

    /** Quick-starting node JVMs: C1 only halves a node's start-up CPU; several share two cores. */
    static final List<String> NODE_JVM = List.of("-Xms32m", "-Xmx192m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-Djava.net.preferIPv4Stack=true");
    /** Generous for a loaded machine; a view normally forms in well under 5 s. */
    static final Duration VIEW_TIMEOUT = Duration.ofSeconds(45);
    static final int NUMBER = 2;
    static final int SIZE_KIB = 5;

    private Scenario() {
    }

    /**
     * A cluster whose requests wait for their backup's acknowledgement (sync), so a node killed right after
     * answering has already replicated what it answered.
     */
    static LocalCluster.Builder cluster(int size) {
        return LocalCluster.builder().size(size).jvmArgs(NODE_JVM)
                .option("replication-mode", "sync").option("sync-timeout", "5000ms");
    }

    static List<String> names(LocalCluster cluster) {
        return cluster.nodes().stream().map(NodeProcess::name).toList();
    }

    /**
     * The whole check for one discovery mode: all started nodes form ONE view; a session created and
     * processed on the first node (the coordinator) survives that node's kill -9: the others form one view
     * without it, the session is found intact on a survivor, which processes it further, and the other
     * survivor sees that newer version too.
     *
     * @return milliseconds from the kill until the survivors agreed on a view without the killed node
     */
    static long formsOneViewAndSurvivesKill9(String label, LocalCluster cluster)
            throws IOException, InterruptedException {
        List<String> all = names(cluster);
        long formed = cluster.awaitView(VIEW_TIMEOUT, all);
        System.out.println("[" + label + "] one view of " + all + " " + formed + " ms after the last node was READY");

        NodeProcess first = cluster.node(0);
        SessionClient user = new SessionClient(SessionClient.newHttpClient(), Duration.ofSeconds(30));
        SessionReply created = user.initialize(first.sessionUri(), NUMBER, SIZE_KIB);
        assertTrue(created.ok(), created.toString());
        SessionReply processed = user.process(first.sessionUri());
        assertEquals(Workload.expected(NUMBER, SIZE_KIB, 1), processed.state(), processed.toString());

        long killed = System.nanoTime();
        assertEquals(137, cluster.kill9(first), "SIGKILL");
        List<String> survivors = new ArrayList<>(all);
        survivors.remove(first.name());
        cluster.awaitView(VIEW_TIMEOUT, survivors);
        long detected = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        System.out.println("[" + label + "] kill -9 of " + first.name() + ": one view of " + survivors + " after "
                + detected + " ms");

        NodeProcess next = cluster.node(survivors.get(0));
        SessionReply verified = user.verify(next.sessionUri());
        assertEquals(next.name(), verified.node(), verified.toString());
        assertEquals(created.session(), verified.session(), "the same session");
        assertEquals(Workload.expected(NUMBER, SIZE_KIB, 1), verified.state(), "intact after the kill: " + verified);
        SessionReply further = user.process(next.sessionUri());
        assertEquals(Workload.expected(NUMBER, SIZE_KIB, 2), further.state(), further.toString());
        if (survivors.size() > 1) {
            NodeProcess other = cluster.node(survivors.get(1));
            SessionReply elsewhere = user.verify(other.sessionUri());
            assertEquals(Workload.expected(NUMBER, SIZE_KIB, 2), elsewhere.state(),
                    "the new primary's update reached " + other.name() + ": " + elsewhere);
        }
        return detected;
    }

    /** A port free on each of {@code hosts}, and free again at +100 (FD_SOCK2's offset). */
    static int freePortOn(String... hosts) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 30_000);
            if (free(port, hosts) && free(port + 100, hosts)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port on " + List.of(hosts));
    }

    /** A run of {@code count} ports free on 127.0.0.1, each also free at +100. */
    static int freePortRange(int count) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = ThreadLocalRandom.current().nextInt(20_000, 30_000);
            boolean free = true;
            for (int p = base; p < base + count && free; p++) {
                free = free(p, "127.0.0.1") && free(p + 100, "127.0.0.1");
            }
            if (free) {
                return base;
            }
        }
        throw new IllegalStateException("no run of " + count + " free ports");
    }

    private static boolean free(int port, String... hosts) {
        for (String host : hosts) {
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(host))) {
                socket.setReuseAddress(true);
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
