package io.sessionrep.jetty.it;

import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.testsupport.EmbeddedCluster;
import io.sessionrep.testsupport.FreePorts;
import io.sessionrep.transport.jgroups.JGroupsTransport;

import org.eclipse.jetty.ee10.servlet.ServletContextHandler;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Two or three {@link JettyNode}s in this JVM forming one replication cluster over real JGroups channels
 * on 127.0.0.1: static discovery, each node listing only its ring predecessor, free bind ports, a cluster
 * name of its own (tests never see each other), a machine id per node.
 *
 * <p>With {@code -Dsessionrep.it.transport=memory} the nodes use the in-memory test network (test-kit)
 * instead of JGroups: the same behaviours, without the transport (to tell a transport problem from an
 * integration problem).
 */
final class TestCluster extends EmbeddedCluster<JettyNode> {
    private static final boolean IN_MEMORY = "memory".equals(System.getProperty("sessionrep.it.transport"));
    private final InMemoryNetwork network = new InMemoryNetwork();

    private final UnaryOperator<ReplicationTransport> decorate;

    private TestCluster(UnaryOperator<ReplicationTransport> decorate) {
        this.decorate = decorate;
    }

    private ReplicationTransport transport(ReplicationConfig config) {
        return decorate.apply(IN_MEMORY
                ? network.transport(config.nodeName(), config.machineId())
                : new JGroupsTransport(config));
    }

    /**
     * Starts {@code size} nodes named node-a, node-b, ... and waits until they see each other.
     * {@code customize} adjusts each node's configuration builder (it gets the node's index).
     */
    static TestCluster start(String testName, int size, Customizer customize) throws Exception {
        return start(testName, size, customize, UnaryOperator.identity());
    }

    /** As above, each node's transport wrapped by {@code decorate} (a slower network, ...). */
    static TestCluster start(String testName, int size, Customizer customize,
                             UnaryOperator<ReplicationTransport> decorate) throws Exception {
        return start(testName, size, customize, decorate, context -> { });
    }

    /** As above, {@code customizeContext} adding to each node's context (servlets, security) before it starts. */
    static TestCluster start(String testName, int size, Customizer customize,
                             UnaryOperator<ReplicationTransport> decorate,
                             Consumer<ServletContextHandler> customizeContext) throws Exception {
        String clusterName = uniqueClusterName(testName);
        int[] ports = FreePorts.onLoopback(size);
        TestCluster cluster = new TestCluster(decorate);
        try {
            for (int i = 0; i < size; i++) {
                String node = "node-" + (char) ('a' + i);
                int predecessor = ports[(i + size - 1) % size];
                ReplicationConfig.Builder builder = ReplicationConfig.builder()
                        .nodeName(node)
                        .machineId("machine-" + (char) ('a' + i))
                        .clusterName(clusterName)
                        .bindAddress("127.0.0.1")
                        .bindPort(ports[i])
                        .peers(List.of(new HostPort("127.0.0.1", predecessor)))
                        .serializationAllowlist(List.of("io.sessionrep.testsupport."));
                cluster.nodes.add(JettyNode.start(customize.apply(i, builder).build(), cluster::transport,
                        customizeContext));
            }
            cluster.awaitFormed(n -> n.members() == size);
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    @FunctionalInterface
    interface Customizer {
        ReplicationConfig.Builder apply(int index, ReplicationConfig.Builder builder);
    }
}
