package io.sessionrep.transport.jgroups;

import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.Member;
import io.sessionrep.testsupport.LoopbackMulticast;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The multicast and dynamic stacks on 127.0.0.1, and isolation of clusters by cluster-name. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class DiscoveryModesTest {

    private static final Duration VIEW_WAIT = Duration.ofSeconds(20);

    private final TestNodes nodes = new TestNodes();
    private final String group = "228.8." + ThreadLocalRandom.current().nextInt(1, 255) + "."
            + ThreadLocalRandom.current().nextInt(1, 255);
    private final int groupPort = ThreadLocalRandom.current().nextInt(46_000, 47_000);

    @AfterEach
    void closeNodes() {
        nodes.close();
    }

    @Test
    void multicastStackFormsAViewOfTwo() {
        assumeLoopbackMulticast();
        JGroupsTransport a = nodes.start(multicastNode("a", DiscoveryMode.MULTICAST, nodes.clusterName), new RecordingReceiver());
        JGroupsTransport b = nodes.start(multicastNode("b", DiscoveryMode.MULTICAST, nodes.clusterName), new RecordingReceiver());

        await().atMost(VIEW_WAIT).until(() -> a.members().size() == 2 && b.members().size() == 2);
        assertEquals(List.of(new Member("a", "a-host"), new Member("b", "b-host")), b.members());
    }

    @Test
    void dynamicStackFindsPeersByMulticastAndFormsAViewOfTwo() {
        assumeLoopbackMulticast();
        JGroupsTransport a = nodes.start(multicastNode("a", DiscoveryMode.DYNAMIC, nodes.clusterName), new RecordingReceiver());
        JGroupsTransport b = nodes.start(multicastNode("b", DiscoveryMode.DYNAMIC, nodes.clusterName), new RecordingReceiver());

        await().atMost(VIEW_WAIT).until(() -> a.members().size() == 2 && b.members().size() == 2);
    }

    @Test
    void multicastAndDynamicStacksFormAndDeliverWithClusterKey() {
        assumeLoopbackMulticast();
        for (DiscoveryMode mode : List.of(DiscoveryMode.MULTICAST, DiscoveryMode.DYNAMIC)) {
            TestNodes cluster = new TestNodes();
            try {
                RecordingReceiver onB = new RecordingReceiver();
                JGroupsTransport a = cluster.start(withKey(multicastNode("a", mode, cluster.clusterName)),
                        new RecordingReceiver());
                JGroupsTransport b = cluster.start(withKey(multicastNode("b", mode, cluster.clusterName)), onB);
                await().atMost(VIEW_WAIT).until(() -> a.members().size() == 2 && b.members().size() == 2);
                a.broadcast("sealed".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                await().atMost(VIEW_WAIT).until(() -> onB.messages.size() == 1);
            } finally {
                cluster.close();
            }
        }
    }

    private static ReplicationConfig withKey(ReplicationConfig config) {
        return ReplicationConfig.builder().nodeName(config.nodeName()).machineId(config.machineId())
                .clusterName(config.clusterName()).discovery(config.discovery()).bindAddress(config.bindAddress())
                .bindPort(0).multicastAddress(config.multicastAddress()).multicastPort(config.multicastPort())
                .clusterKey("the-shared-secret-of-this-cluster").build();
    }

    @Test
    @Tag("extended") // the same across node JVMs: ClusterIsolationIT, in every build
    void staticClustersWithDifferentNamesNeverSeeEachOtherEvenWhenPeersPointAcross() throws Exception {
        int[] ports = TestNodes.freePorts(4);
        TestNodes other = new TestNodes();
        try {
            // x1 <- x2 form cluster X; y1 lists both X ports as peers, y2 lists y1: cluster Y must stay apart
            JGroupsTransport x1 = nodes.start(nodes.staticNode("x1", ports[0], ports[3]), new RecordingReceiver());
            JGroupsTransport x2 = nodes.start(nodes.staticNode("x2", ports[1], ports[0]), new RecordingReceiver());
            JGroupsTransport y1 = other.start(other.staticNode("y1", ports[2], ports[0], ports[1]), new RecordingReceiver());
            JGroupsTransport y2 = other.start(other.staticNode("y2", ports[3], ports[2]), new RecordingReceiver());

            await().atMost(VIEW_WAIT).until(() -> x1.members().size() == 2 && y1.members().size() == 2);
            // a merge would take one MERGE3 look (every 1 to 3 s) and one comparison of views (every 3.2 s): watch longer
            await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(15)).until(() ->
                    names(x1).equals(List.of("x1", "x2")) && names(x2).equals(List.of("x1", "x2"))
                            && names(y1).equals(List.of("y1", "y2")) && names(y2).equals(List.of("y1", "y2")));
        } finally {
            other.close();
        }
    }

    @Test
    @Tag("extended") // the same across node JVMs: ClusterIsolationIT, in every build
    void multicastClustersWithDifferentNamesOnOneGroupNeverSeeEachOther() {
        assumeLoopbackMulticast();
        TestNodes other = new TestNodes();
        try {
            JGroupsTransport x1 = nodes.start(multicastNode("x1", DiscoveryMode.MULTICAST, nodes.clusterName), new RecordingReceiver());
            JGroupsTransport y1 = other.start(multicastNode("y1", DiscoveryMode.MULTICAST, other.clusterName), new RecordingReceiver());
            JGroupsTransport x2 = nodes.start(multicastNode("x2", DiscoveryMode.MULTICAST, nodes.clusterName), new RecordingReceiver());

            await().atMost(VIEW_WAIT).until(() -> x1.members().size() == 2);
            await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(15)).until(() ->
                    names(x1).equals(List.of("x1", "x2")) && names(y1).equals(List.of("y1")));
        } finally {
            other.close();
        }
    }

    private ReplicationConfig multicastNode(String name, DiscoveryMode mode, String clusterName) {
        return ReplicationConfig.builder().nodeName(name).machineId(name + "-host").clusterName(clusterName)
                .discovery(mode).bindAddress(TestNodes.LOOPBACK).bindPort(0)
                .multicastAddress(group).multicastPort(groupPort).build();
    }

    private void assumeLoopbackMulticast() {
        String problem = LoopbackMulticast.problem(group, groupPort);
        Assumptions.assumeTrue(problem == null, () -> "skipped: IP multicast does not work on this machine's "
                + "loopback (" + problem + "); enable it with `ip link set lo multicast on` and "
                + "`ip route add 224.0.0.0/4 dev lo`");
    }

    private static List<String> names(JGroupsTransport transport) {
        return transport.members().stream().map(Member::name).toList();
    }
}
