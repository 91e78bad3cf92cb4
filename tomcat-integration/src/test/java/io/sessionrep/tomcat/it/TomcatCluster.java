package io.sessionrep.tomcat.it;

import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.testsupport.EmbeddedCluster;
import io.sessionrep.testsupport.FreePorts;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Two or three {@link TomcatNode}s in this JVM forming one replication cluster over real JGroups channels
 * on 127.0.0.1: static discovery, each node listing only its ring predecessor, free bind ports, a cluster
 * name of its own (tests never see each other), a machine id per node. node-a takes its name from the
 * Engine's jvmRoute, the others from the Manager's nodeName attribute (both ways are covered).
 */
final class TomcatCluster extends EmbeddedCluster<TomcatNode> {
    private static final Pattern DASH_LETTER = Pattern.compile("-([a-z])");

    /** Adjusts one node's Manager attributes (it gets the node's index). */
    @FunctionalInterface
    interface Customizer {
        void apply(int index, Map<String, String> attributes);
    }

    /**
     * Sets options given by their canonical names as the Manager attributes a user writes for them in
     * {@code context.xml}: {@code replication-mode=sync} becomes {@code replicationMode="sync"}.
     */
    static Customizer options(Map<String, String> options) {
        return (index, attributes) -> options.forEach((option, value) ->
                attributes.put(DASH_LETTER.matcher(option).replaceAll(m -> m.group(1).toUpperCase()), value));
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
        String clusterName = uniqueClusterName(testName);
        int[] ports = FreePorts.onLoopback(2 * size);
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
            cluster.awaitFormed(n -> n.members() == size && (!crossContext || n.otherMembers() == size));
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
        attributes.put("serializationAllowlist", "io.sessionrep.testsupport.");
        return attributes;
    }
}
