package io.sessionrep.perf;

import io.sessionrep.testservlet.LocalCluster;
import io.sessionrep.testservlet.NodeProcess;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Our product on embedded Jetty: test-servlet's {@link LocalCluster} of NodeLauncher JVMs on 127.0.0.1. */
final class JettyTarget implements Target {

    private final LocalCluster cluster;
    private final boolean orderlyStop;

    private JettyTarget(LocalCluster cluster, boolean orderlyStop) {
        this.cluster = cluster;
        this.orderlyStop = orderlyStop;
    }

    /**
     * @param replication false: plain Jetty sessions ({@code --replication=off})
     * @param options     replication options for every node (canonical names)
     * @param orderlyStop stop the nodes with SIGTERM (so that a JFR recording is written) rather than SIGKILL
     * @param nodeJar     the node JVMs' class path: another build's sessionrep-node.jar ({@code --baseline-node-jar}),
     *                    or null for this build's
     */
    static JettyTarget start(int nodes, boolean replication, Map<String, String> options, List<String> jvmArgs,
                             Path logDir, PrintStream echo, boolean orderlyStop, Path nodeJar) throws Exception {
        LocalCluster.Builder builder = LocalCluster.builder().size(nodes).replication(replication)
                .jvmArgs(jvmArgs).logDir(logDir).readyTimeout(Duration.ofSeconds(90)).echo(echo);
        if (nodeJar != null) {
            builder.classpath(nodeJar.toString());
        }
        if (replication) {
            builder.options(options);
        }
        return new JettyTarget(builder.start(), orderlyStop);
    }

    @Override
    public List<Long> pids() {
        return cluster.nodes().stream().map(NodeProcess::pid).toList();
    }

    @Override
    public List<String> hosts() {
        return cluster.nodes().stream().map(NodeProcess::sessionUri).map(URI::getAuthority).toList();
    }

    @Override
    public void close() {
        if (orderlyStop) {
            for (NodeProcess node : cluster.alive()) {
                try {
                    cluster.stop(node);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        cluster.close();
    }
}
