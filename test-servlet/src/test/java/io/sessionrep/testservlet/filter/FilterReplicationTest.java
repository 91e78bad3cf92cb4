package io.sessionrep.testservlet.filter;

import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.testsupport.Browser;
import io.sessionrep.testsupport.ContainerReplicationContract;
import io.sessionrep.testsupport.EmbeddedCluster;
import io.sessionrep.testsupport.FreePorts;
import io.sessionrep.transport.jgroups.JGroupsTransport;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * {@link ContainerReplicationContract} against the web.xml filter install: the scenarios every container
 * integration passes (fail-over, moving between nodes, activation, invalidation, id change, sync mode,
 * in-place mutation, forward, async), here with {@link io.sessionrep.core.filter.ReplicationFilter} in an
 * embedded container (subclasses: Jetty, Tomcat) over real JGroups channels on 127.0.0.1, configured only
 * through its init-params. What only the filter has (its listeners, its cookie, expiry, JMX) stays in
 * {@link FilterContractTest}.
 */
abstract class FilterReplicationTest extends ContainerReplicationContract<FilterNode> {

    /** The container the filter runs in. */
    abstract FilterNode.Container container();

    /** The filter's own cookie, not the container's JSESSIONID. */
    @Override
    protected Browser newBrowser() {
        return new Browser(FilterContractTest.COOKIE);
    }

    @Override
    protected EmbeddedCluster<FilterNode> startCluster(String testName, int size, Map<String, String> options,
                                                       UnaryOperator<ReplicationTransport> decorate)
            throws Exception {
        return Cluster.start(container(), testName, size, options, decorate);
    }

    /** The filter's {@code HttpSession.getId()} is the cluster id; the route suffix is only in the cookie. */
    @Override
    protected String servletSessionId(String clusterId, String nodeName) {
        return clusterId;
    }

    /**
     * Two or three filter nodes on 127.0.0.1: static discovery, each node listing its ring predecessor, free
     * bind ports, a cluster name of the test's own, a machine id per node.
     */
    private static final class Cluster extends EmbeddedCluster<FilterNode> {

        static Cluster start(FilterNode.Container container, String testName, int size, Map<String, String> options,
                             UnaryOperator<ReplicationTransport> decorate) throws Exception {
            String clusterName = uniqueClusterName("filter-" + testName);
            int[] ports = FreePorts.onLoopback(size);
            Cluster cluster = new Cluster();
            try {
                for (int i = 0; i < size; i++) {
                    String node = "node-" + (char) ('a' + i);
                    Map<String, String> parameters = new LinkedHashMap<>();
                    parameters.put("node-name", node);
                    parameters.put("machine-id", "machine-" + (char) ('a' + i));
                    parameters.put("cluster-name", clusterName);
                    parameters.put("bind-address", "127.0.0.1");
                    parameters.put("bind-port", String.valueOf(ports[i]));
                    parameters.put("peers", "127.0.0.1:" + ports[(i + size - 1) % size]);
                    parameters.put("serialization-allowlist", "io.sessionrep.testsupport.");
                    parameters.putAll(options);
                    cluster.nodes.add(FilterNode.start(container, node, parameters,
                            config -> decorate.apply(new JGroupsTransport(config))));
                }
                cluster.awaitFormed(n -> n.members() == size);
                return cluster;
            } catch (Exception | Error e) {
                cluster.close();
                throw e;
            }
        }
    }
}
