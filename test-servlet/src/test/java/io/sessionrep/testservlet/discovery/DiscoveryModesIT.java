package io.sessionrep.testservlet.discovery;

import io.sessionrep.testservlet.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each discovery mode with three node JVMs: they form one view, a session created on the first
 * node survives its kill -9 (see {@link Scenario#formsOneViewAndSurvivesKill9}). Static discovery is
 * {@link StaticRingIT}'s (four nodes in a ring).
 *
 * <ul>
 *   <li>{@code multicast} and {@code dynamic} + {@code multicast} need IP multicast: on this host's loopback
 *       when it carries it, else in a network namespace the test makes, else skipped with the reason
 *       ({@link MulticastNetwork});</li>
 *   <li>{@code dynamic} + {@code file}: a shared directory under target/;</li>
 *   <li>{@code dynamic} + {@code dns}: the nodes listen on 127.0.0.1, .2 and .3 with one port, like pods
 *       behind a Kubernetes headless service, and one DNS name resolves to the three addresses (the node
 *       JVMs resolve through a hosts file, {@code -Djdk.net.hosts.file}, so no DNS server is needed);</li>
 *   <li>{@code jgroups-config}: one JGroups XML file for every node replaces the generated stack.</li>
 * </ul>
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DiscoveryModesIT {

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
    void multicast() throws Exception {
        MulticastNetwork network = MulticastNetwork.prepare();
        cleanUp.add(network);
        System.out.println("[multicast] on " + network);
        LocalCluster cluster = started(network.apply(Scenario.cluster(3)
                .option("discovery", "multicast")
                .option("multicast-address", network.group)
                .option("multicast-port", String.valueOf(network.port))));
        Scenario.formsOneViewAndSurvivesKill9("multicast", cluster);
    }

    @Test
    void dynamicByMulticast() throws Exception {
        MulticastNetwork network = MulticastNetwork.prepare();
        cleanUp.add(network);
        System.out.println("[dynamic-multicast] on " + network);
        LocalCluster cluster = started(network.apply(Scenario.cluster(3)
                .option("discovery", "dynamic")
                .option("dynamic-discovery", "multicast")
                .option("multicast-address", network.group)
                .option("multicast-port", String.valueOf(network.port))));
        Scenario.formsOneViewAndSurvivesKill9("dynamic-multicast", cluster);
    }

    @Test
    void dynamicBySharedDirectory() throws Exception {
        Path directory = Path.of("target", "it-discovery", UUID.randomUUID().toString()).toAbsolutePath();
        LocalCluster cluster = started(Scenario.cluster(3)
                .option("discovery", "dynamic")
                .option("dynamic-discovery", "file")
                .option("discovery-directory", directory.toString()));
        Scenario.formsOneViewAndSurvivesKill9("dynamic-file", cluster);

        // the killed coordinator's entry is gone from the directory (remove_all_data_on_view_change), so a
        // node that starts now joins the survivors instead of trying the dead coordinator
        Path clusterDir = directory.resolve(cluster.clusterName());
        await("node-a's entry removed from " + clusterDir).atMost(Duration.ofSeconds(15))
                .until(() -> listing(clusterDir).stream().noneMatch(f -> f.contains(".node-a.")));
        cluster.start("node-a");
        long rejoined = cluster.awaitView(Scenario.VIEW_TIMEOUT, "node-a", "node-b", "node-c");
        System.out.println("[dynamic-file] restarted node-a in one view of 3 after " + rejoined + " ms; directory: "
                + listing(clusterDir));
    }

    @Test
    void dynamicByDns() throws Exception {
        String name = "sessions-" + UUID.randomUUID().toString().substring(0, 8) + ".it.test";
        Path hosts = Files.createTempFile("sessionrep-hosts", ".txt");
        cleanUp.add(() -> Files.deleteIfExists(hosts));
        Files.writeString(hosts, "127.0.0.1 localhost\n127.0.0.1 " + name + "\n127.0.0.2 " + name + "\n127.0.0.3 "
                + name + "\n");
        int port = Scenario.freePortOn("127.0.0.1", "127.0.0.2", "127.0.0.3");
        List<String> jvm = new ArrayList<>(Scenario.NODE_JVM);
        jvm.add("-Djdk.net.hosts.file=" + hosts);
        LocalCluster cluster = started(Scenario.cluster(3).jvmArgs(jvm)
                .option("discovery", "dynamic")
                .option("dynamic-discovery", "dns")
                .option("dns-query", name)
                .option("bind-port", String.valueOf(port))
                .nodeOption("node-a", "bind-address", "127.0.0.1")
                .nodeOption("node-b", "bind-address", "127.0.0.2")
                .nodeOption("node-c", "bind-address", "127.0.0.3"));
        System.out.println("[dynamic-dns] " + name + " -> 127.0.0.1-3, every node on port " + port);
        Scenario.formsOneViewAndSurvivesKill9("dynamic-dns", cluster);
    }

    @Test
    void expertJGroupsXml() throws Exception {
        // the example users are pointed to (docs/jgroups-tcp.xml), as it is: one file for every node; each
        // takes the first free port of base..base+2 and finds the others there
        Path xml = Path.of("..", "docs", "jgroups-tcp.xml").toAbsolutePath().normalize();
        assertTrue(Files.isRegularFile(xml), xml + " missing");
        int base = Scenario.freePortRange(3);
        List<String> jvm = new ArrayList<>(Scenario.NODE_JVM);
        jvm.add("-Dsessionrep.jgroups.port=" + base);
        jvm.add("-Dsessionrep.jgroups.hosts=127.0.0.1[" + base + "]");
        LocalCluster cluster = started(Scenario.cluster(3).jvmArgs(jvm).option("jgroups-config", xml.toString()));
        assertTrue(Files.readString(cluster.node(0).logFile()).contains("with the JGroups stack of jgroups-config "
                + xml), "the node says which stack it runs");
        Scenario.formsOneViewAndSurvivesKill9("jgroups-config", cluster);
    }

    private static List<String> listing(Path dir) throws Exception {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
