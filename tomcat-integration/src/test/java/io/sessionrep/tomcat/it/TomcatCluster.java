package io.sessionrep.tomcat.it;

import io.sessionrep.core.transport.ReplicationTransport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;

import static org.awaitility.Awaitility.await;

/**
 * Two or three {@link TomcatNode}s in this JVM forming one replication cluster over real JGroups channels
 * on 127.0.0.1: static discovery, each node listing only its ring predecessor, free bind ports, a cluster
 * name of its own (tests never see each other), a machine id per node. node-a takes its name from the
 * Engine's jvmRoute, the others from the Manager's nodeName attribute (both ways are covered).
 */
final class TomcatCluster implements AutoCloseable {
    private final List<TomcatNode> nodes = new ArrayList<>();

    /** Adjusts one node's Manager attributes (it gets the node's index). */
    @FunctionalInterface
    interface Customizer {
        void apply(int index, Map<String, String> attributes);
    }

    static TomcatCluster start(String testName, int size, Customizer customize) throws Exception {
        return start(testName, size, customize, false, UnaryOperator.identity());
    }

    /**
     * @param crossContext also deploy {@code /other} on every node, replicated in a cluster of its own
     * @param decorate     wraps each node's transport (a slower network, ...)
     */
    static TomcatCluster start(String testName, int size, Customizer customize, boolean crossContext,
                               UnaryOperator<ReplicationTransport> decorate) throws Exception {
        String clusterName = testName + "-" + UUID.randomUUID().toString().substring(0, 8);
        int[] ports = freePorts(2 * size);
        TomcatCluster cluster = new TomcatCluster();
        try {
            for (int i = 0; i < size; i++) {
                String node = "node-" + (char) ('a' + i);
                Map<String, String> attributes = attributes(node, clusterName, ports[i], ports[(i + size - 1) % size]);
                customize.apply(i, attributes);
                Map<String, String> other = !crossContext ? null : attributes(node, clusterName + "-other",
                        ports[size + i], ports[size + (i + size - 1) % size]);
                if (other != null) {
                    customize.apply(i, other); // the second application is configured like the first
                }
                cluster.nodes.add(TomcatNode.start(node, i == 0, attributes, other, decorate));
            }
            await("cluster of " + size + " formed").atMost(Duration.ofSeconds(20))
                    .until(() -> cluster.nodes.stream().allMatch(n -> n.members() == size
                            && (!crossContext || n.otherMembers() == size)));
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    private static Map<String, String> attributes(String node, String clusterName, int port, int predecessor) {
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put("machineId", "machine-" + node);
        attributes.put("clusterName", clusterName);
        attributes.put("bindAddress", "127.0.0.1");
        attributes.put("bindPort", String.valueOf(port));
        attributes.put("peers", "127.0.0.1:" + predecessor);
        attributes.put("serializationAllowlist", "io.sessionrep.tomcat.it.");
        return attributes;
    }

    TomcatNode node(int index) {
        return nodes.get(index);
    }

    @Override
    public void close() throws Exception {
        Exception failure = null;
        for (int i = nodes.size() - 1; i >= 0; i--) {
            try {
                nodes.get(i).stop();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    static int[] freePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        }
    }
}
