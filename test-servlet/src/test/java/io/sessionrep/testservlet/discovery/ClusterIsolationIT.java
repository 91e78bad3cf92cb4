package io.sessionrep.testservlet.discovery;

import io.sessionrep.testservlet.LocalCluster;
import io.sessionrep.testservlet.NodeProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Two clusters with different {@code cluster-name}s on the same addresses never see each other (node JVMs):
 * with static discovery even when one cluster's nodes list the other's ports as their peers; with
 * multicast on the same multicast address and port. After both formed, every node's view is watched for
 * {@value #WATCH_MS} ms, longer than MERGE3 takes to find and merge a partition of its own cluster
 * (INFO every 1 to 3 s, consistency check every 3.2 s).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ClusterIsolationIT {

    static final long WATCH_MS = 8_000;

    private final List<AutoCloseable> cleanUp = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = cleanUp.size() - 1; i >= 0; i--) {
            cleanUp.get(i).close();
        }
    }

    private LocalCluster started(LocalCluster.Builder builder) throws Exception {
        LocalCluster cluster = builder.start();
        cleanUp.add(cluster);
        return cluster;
    }

    @Test
    void staticClustersNeverMeetEvenWhenPeersPointAcross() throws Exception {
        LocalCluster x = started(Scenario.cluster(2));
        String xPeers = "127.0.0.1:" + x.node("node-a").bindPort() + ",127.0.0.1:" + x.node("node-b").bindPort();
        // y's node-a knows only x's nodes; y's node-b knows y's node-a (its ring predecessor)
        LocalCluster y = started(Scenario.cluster(2).nodeOption("node-a", "peers", xPeers));
        neverMeet("static", x, y);
    }

    @Test
    void multicastClustersOnOneGroupNeverMeet() throws Exception {
        MulticastNetwork network = MulticastNetwork.prepare();
        cleanUp.add(network);
        List<LocalCluster> clusters = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            clusters.add(started(network.apply(Scenario.cluster(2)
                    .option("discovery", "multicast")
                    .option("multicast-address", network.group)
                    .option("multicast-port", String.valueOf(network.port)))));
        }
        System.out.println("[isolation] multicast on " + network);
        neverMeet("multicast", clusters.get(0), clusters.get(1));
    }

    private static void neverMeet(String label, LocalCluster x, LocalCluster y) throws Exception {
        assertNotEquals(x.clusterName(), y.clusterName());
        List<String> xNames = Scenario.names(x);
        List<String> yNames = Scenario.names(y);
        x.awaitView(Scenario.VIEW_TIMEOUT, xNames);
        y.awaitView(Scenario.VIEW_TIMEOUT, yNames);
        long end = System.currentTimeMillis() + WATCH_MS;
        int looks = 0;
        while (System.currentTimeMillis() < end) {
            for (LocalCluster cluster : List.of(x, y)) {
                for (NodeProcess node : cluster.nodes()) {
                    LocalCluster.ClusterView view = cluster.view(node);
                    assertEquals(cluster.clusterName(), view.cluster());
                    assertEquals(Scenario.names(cluster), view.members().stream().sorted().toList(),
                            "[" + label + "] " + cluster.clusterName() + "/" + node.name() + " sees another cluster");
                }
            }
            looks++;
            Thread.sleep(500);
        }
        System.out.println("[isolation] " + label + ": " + x.clusterName() + " " + xNames + " and " + y.clusterName()
                + " " + yNames + " stayed apart for " + WATCH_MS + " ms (" + looks + " looks at every node)");
    }
}
