package io.sessionrep.transport.jgroups;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.Member;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An outsider who knows nothing of the cluster opens TCP connections to a member's channel port and holds them open
 * without sending a byte, over real JGroups channels on 127.0.0.1. A node that then starts with {@code peers} = that
 * member joins the existing view, in about the time it takes without them (the median of three joins within twice the
 * median of three joins before the outsider came, plus {@value #NOISE_MILLIS} ms for a busy machine), with
 * {@code cluster-key} and with mutual TLS (a plain stack has the same server socket as the cluster-key one). A flood of
 * such connections, far more than the port holds waiting at once, is closed oldest first as it comes (that this is
 * long before their time-out: {@code HandshakeGateTest}), every one counted
 * ({@code sessionrep.transport.refused{reason=silent-connection}}) and reported in one warning, while the members'
 * messages keep flowing and a node still joins as fast. Against JGroups' own acceptor each attacked join took 1.6 s
 * and founded a view of its own, and every idle connection logged a warning.
 */
@Timeout(240)
class SilentChannelConnectionsTest {

    private static final String KEY = "the-shared-secret-of-this-cluster";
    /** Joins measured without the outsider, and as many with. */
    private static final int JOINS = 3;
    /** The outsider's rate in the join tests: idle connections a second, each held open. */
    private static final int SILENT_PER_SECOND = 4;
    /** Allowed on top of twice the quiet median: scheduling noise on a machine shared with other builds. */
    private static final long NOISE_MILLIS = 100;
    /** The logger of the channel's TCP server (JGroups writes through the transport protocol's log) and of its gate. */
    private static final Logger TRANSPORT_LOG = Logger.getLogger("io.sessionrep.discovery.IsolatingTcp");

    @TempDir
    static Path dir;
    private static Path trust;

    @BeforeAll
    static void certificates() throws Exception {
        TestCertificates certificates = new TestCertificates(dir);
        for (String node : List.of("a", "b", "c")) {
            certificates.keystore(node);
        }
        trust = certificates.truststore("trust", "a", "b", "c");
    }

    /** How a test's nodes are configured: name, port and peer ports in, configuration out. */
    private interface Nodes {
        ReplicationConfig node(TestNodes nodes, String name, int port, int... peerPorts);
    }

    private static final Nodes CLUSTER_KEY = (nodes, name, port, peers) ->
            nodes.staticNodeOptions(name, port, peers).clusterKey(KEY).build();
    /** a and b with their own keys; every joiner with c's. */
    private static final Nodes TLS = (nodes, name, port, peers) -> TlsClusterTest.withTls(
            nodes.staticNode(name, port, peers), dir.resolve((name.length() == 1 ? name : "c") + ".p12"), trust).build();

    @Test
    void withClusterKeyAJoinTakesAsLongUnderSilentConnections() throws Exception {
        joinUnderSilentConnections(CLUSTER_KEY, "cluster-key");
    }

    @Test
    void withTlsAJoinTakesAsLongUnderSilentConnections() throws Exception {
        joinUnderSilentConnections(TLS, "tls");
    }

    private static void joinUnderSilentConnections(Nodes configs, String label) throws Exception {
        try (TestNodes nodes = new TestNodes()) {
            int[] ports = TestNodes.freePorts(2 + 2 * JOINS);
            JGroupsTransport a = nodes.start(configs.node(nodes, "a", ports[0], ports[1]), new RecordingReceiver());
            JGroupsTransport b = nodes.start(configs.node(nodes, "b", ports[1], ports[0]), new RecordingReceiver());
            await().atMost(Duration.ofSeconds(30)).until(() -> a.members().size() == 2 && b.members().size() == 2);

            Join[] quiet = new Join[JOINS];
            for (int i = 0; i < JOINS; i++) {
                quiet[i] = join(nodes, configs.node(nodes, "quiet-" + i, ports[2 + i], ports[1]));
            }
            Join[] attacked = new Join[JOINS];
            int held;
            try (SilentConnections outsider = new SilentConnections(TestNodes.LOOPBACK, ports[1])) {
                outsider.steady(SILENT_PER_SECOND);
                Thread.sleep(2_000); // several idle connections wait at b's port before the first join
                for (int i = 0; i < JOINS; i++) {
                    attacked[i] = join(nodes, configs.node(nodes, "attacked-" + i, ports[2 + JOINS + i], ports[1]));
                }
                held = outsider.opened().size();
            }
            String figures = label + ": joins without the outsider " + Arrays.toString(quiet) + " ms, with "
                    + SILENT_PER_SECOND + " idle connections a second (" + held + " opened) " + Arrays.toString(attacked)
                    + " ms";
            System.out.println(figures);
            assertTrue(held >= 2 * SILENT_PER_SECOND, "the outsider held connections open: " + figures);
            assertAsFast(quiet, attacked, figures);
        }
    }

    @Test
    void aFloodOfSilentConnectionsIsBoundedCountedAndReportedOnce() throws Exception {
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Handler recorder = warningsInto(warnings);
        TRANSPORT_LOG.addHandler(recorder);
        try (TestNodes nodes = new TestNodes()) {
            int[] ports = TestNodes.freePorts(2 + 2 * JOINS);
            RecordingReceiver onB = new RecordingReceiver();
            JGroupsTransport a = nodes.start(CLUSTER_KEY.node(nodes, "a", ports[0], ports[1]), new RecordingReceiver());
            JGroupsTransport b = nodes.start(CLUSTER_KEY.node(nodes, "b", ports[1], ports[0]), onB);
            await().atMost(Duration.ofSeconds(30)).until(() -> a.members().size() == 2 && b.members().size() == 2);
            Join[] quiet = new Join[JOINS];
            for (int i = 0; i < JOINS; i++) {
                quiet[i] = join(nodes, CLUSTER_KEY.node(nodes, "quiet-" + i, ports[2 + i], ports[1]));
            }
            warnings.clear();

            Join[] flooded = new Join[JOINS];
            int held;
            int flood = 200;
            try (SilentConnections outsider = new SilentConnections(TestNodes.LOOPBACK, ports[1])) {
                long floodStart = System.nanoTime();
                outsider.burst(flood);
                long burstEnd = System.nanoTime();
                outsider.steady(20);
                List<Socket> burst = outsider.opened();
                assertTrue(burst.size() >= flood, "the burst got through to b's port: " + burst.size() + " of " + flood);
                // far more than b holds waiting: all but the newest 16 are closed within moments of the burst
                List<Socket> oldest = burst.subList(0, flood - 16);
                await().atMost(Duration.ofMillis(1_500)).pollInterval(Duration.ofMillis(50))
                        .until(() -> oldest.stream().allMatch(s -> TestNodes.closedByTheLane(s, Duration.ofMillis(1))));
                long burstMillis = (burstEnd - floodStart) / 1_000_000;
                long closedAfterMillis = (System.nanoTime() - burstEnd) / 1_000_000;

                // the members' channel keeps working
                Member bMember = b.localMember();
                for (int i = 0; i < 50; i++) {
                    a.send(bMember, new byte[]{(byte) i});
                    Thread.sleep(10);
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 50);
                // and a node still joins through b as fast as before
                for (int i = 0; i < JOINS; i++) {
                    flooded[i] = join(nodes, CLUSTER_KEY.node(nodes, "flooded-" + i, ports[2 + JOINS + i], ports[1]));
                }
                outsider.stop();
                held = outsider.opened().size();
                String figures = "joins without the flood " + Arrays.toString(quiet) + " ms, under it "
                        + Arrays.toString(flooded) + " ms; " + held + " idle connections, a burst of " + flood + " in "
                        + burstMillis + " ms whose oldest " + oldest.size() + " b had closed " + closedAfterMillis
                        + " ms after it";
                System.out.println(figures);
                assertAsFast(quiet, flooded, figures);
                // every idle connection is refused and counted once; nothing of the members' was
                await().atMost(Duration.ofSeconds(10)).until(() -> refused(b, "silent-connection") == held);
            }
            List<String> lines = warnings.stream().map(r -> r.getLevel() + " " + r.getMessage()).toList();
            assertTrue(lines.size() <= 1, "one warning for the whole flood (a report a minute): " + lines);
        } finally {
            TRANSPORT_LOG.removeHandler(recorder);
        }
    }

    /** A node's join: how long its start took, and how many members its first view held. */
    private record Join(long millis, int firstView) {
        @Override
        public String toString() {
            return millis + " ms" + (firstView == 3 ? "" : " (alone: a view of " + firstView + ")");
        }
    }

    /** Starts a node with {@code config}, notes how long it took and its first view, and stops it. */
    private static Join join(TestNodes nodes, ReplicationConfig config) {
        RecordingReceiver receiver = new RecordingReceiver();
        long start = System.nanoTime();
        JGroupsTransport joiner = nodes.start(config, receiver);
        long millis = (System.nanoTime() - start) / 1_000_000;
        joiner.close();
        return new Join(millis, receiver.views.get(0).size());
    }

    /**
     * Every join landed in the existing view of a and b, and the median of {@code under} is within twice
     * {@code quiet}'s (plus {@link #NOISE_MILLIS}).
     */
    private static void assertAsFast(Join[] quiet, Join[] under, String figures) {
        for (Join join : quiet) {
            assertEquals(3, join.firstView(), "without the outsider every node joins a and b: " + figures);
        }
        for (Join join : under) {
            assertEquals(3, join.firstView(), "every node joins the existing view, not one of its own: " + figures);
        }
        assertTrue(median(under) <= 2 * median(quiet) + NOISE_MILLIS,
                "a join takes as long as without the outsider: " + figures);
    }

    /** What {@code transport} counted as {@code sessionrep.transport.refused{reason}}; -1 when it has no such count. */
    private static long refused(JGroupsTransport transport, String reason) {
        return transport.counts().stream()
                .filter(c -> c.name().equals("sessionrep.transport.refused") && reason.equals(c.reason()))
                .mapToLong(c -> c.count().getAsLong()).findFirst().orElse(-1);
    }

    private static long median(Join[] joins) {
        long[] sorted = Arrays.stream(joins).mapToLong(Join::millis).sorted().toArray();
        return sorted[sorted.length / 2];
    }

    private static Handler warningsInto(List<LogRecord> warnings) {
        return new Handler() {
            @Override
            public void publish(LogRecord record) {
                String message = String.valueOf(record.getMessage());
                // the port's reports, and JGroups' own warning per failed accept; not a closing joiner's receiver
                if (record.getLevel().intValue() >= Level.WARNING.intValue()
                        && (message.contains("channel port") || message.contains("failed accepting"))) {
                    warnings.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
    }
}
