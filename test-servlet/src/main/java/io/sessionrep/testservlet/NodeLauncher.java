package io.sessionrep.testservlet;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.Member;
import io.sessionrep.jetty.ReplicatedSessions;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Starts ONE test node: embedded Jetty with the test servlet at {@code /session}, and unless
 * {@code --replication=off}, replicated sessions configured from the other flags (see
 * {@link LauncherOptions#usage()}).
 *
 * <p>Contract with parent processes ({@link LocalCluster}, scripts): once serving, exactly one line
 * {@code READY node=<name> http=http://127.0.0.1:<port>/session} on stdout; a configuration error prints
 * {@code configuration error: <message>} on stderr and exits 2 (also when the cluster cannot start because of
 * an option: a bind-port in use, a peer that does not resolve, a bad jgroups-config file); any other
 * start-up failure exits 1. {@code GET /cluster} answers the node's current view ({@link ClusterViewServlet}),
 * {@code GET /metrics} its meters in Prometheus text format ({@link MetricsServlet}).
 * SIGTERM stops the node in order; SIGKILL is the crash the fail-over tests want.
 */
public final class NodeLauncher {

    public static final String READY_PREFIX = "READY node=";
    public static final int EXIT_CONFIGURATION_ERROR = 2;
    public static final int EXIT_STARTUP_FAILED = 1;

    private NodeLauncher() {
    }

    public static void main(String[] args) throws InterruptedException {
        NodeServer node;
        try {
            LauncherOptions options = LauncherOptions.parse(args);
            if (options.help()) {
                System.out.print(LauncherOptions.usage());
                return;
            }
            node = start(options, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), System.err);
        } catch (Exception e) {
            ConfigException config = configurationError(e);
            if (config != null) {
                System.err.println("configuration error: " + config.getMessage());
                System.exit(EXIT_CONFIGURATION_ERROR);
            }
            System.err.println("startup failed: " + e);
            e.printStackTrace(System.err);
            System.exit(EXIT_STARTUP_FAILED);
            return;
        }
        System.out.println(readyLine(node));
        System.out.flush();
        node.join();
    }

    /**
     * Builds and starts the node described by {@code options}. When {@code meters} is a
     * {@link PrometheusMeterRegistry}, {@code GET /metrics} serves its scrape.
     */
    static NodeServer start(LauncherOptions options, MeterRegistry meters, PrintStream warnings) throws Exception {
        NodeServer node;
        if (options.replication()) {
            ReplicationConfig config = ReplicationConfig.fromMap(options.replicationOptions());
            node = new NodeServer(config.nodeName(), options.httpHost(), options.httpPort(), context -> {
                ReplicatedSessions sessions = ReplicatedSessions.install(context, config, meters);
                context.addServlet(new ServletHolder(new ClusterViewServlet(config.nodeName(), config.clusterName(),
                        () -> sessions.replicator().members().stream().map(Member::name).toList())), "/cluster");
                exposeMetrics(context, meters);
            });
        } else {
            Map<String, String> ignored = new LinkedHashMap<>(options.replicationOptions());
            ignored.remove("node-name");
            if (!ignored.isEmpty()) {
                warnings.println("replication is off: ignoring " + ignored.keySet());
            }
            String name = options.nodeName("node");
            node = new NodeServer(name, options.httpHost(), options.httpPort(), context -> {
                NodeServer.routeSessionIds(context, name);
                context.addServlet(new ServletHolder(new ClusterViewServlet(name, "(replication off)", List::of)),
                        "/cluster");
                exposeMetrics(context, meters);
            });
        }
        try {
            node.start();
        } catch (Exception e) {
            node.close();
            throw e;
        }
        return node;
    }

    private static void exposeMetrics(ServletContextHandler context, MeterRegistry meters) {
        if (meters instanceof PrometheusMeterRegistry prometheus) {
            context.addServlet(new ServletHolder(new MetricsServlet(prometheus::scrape)), "/metrics");
        }
    }

    static String readyLine(NodeServer node) {
        return READY_PREFIX + node.nodeName() + " http=" + node.sessionUri();
    }

    /** The ConfigException behind {@code e} (containers wrap what fails during start), or null. */
    static ConfigException configurationError(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConfigException config) {
                return config;
            }
            for (Throwable suppressed : t.getSuppressed()) {
                if (suppressed instanceof ConfigException config) {
                    return config;
                }
            }
        }
        return null;
    }
}
