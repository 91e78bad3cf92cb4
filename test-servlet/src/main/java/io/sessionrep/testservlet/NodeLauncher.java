package io.sessionrep.testservlet;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sessionrep.core.Readiness;
import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.health.ReadinessServlet;
import io.sessionrep.core.transport.Member;
import io.sessionrep.jetty.ReplicatedSessions;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;

import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Starts ONE test node: embedded Jetty with the test servlet at {@code /session}, and unless
 * {@code --replication=off}, replicated sessions configured from the other flags (see
 * {@link LauncherOptions#usage()}).
 *
 * <p>Contract with parent processes ({@link LocalCluster}, scripts): once serving and ready (settled in its
 * cluster, {@link io.sessionrep.core.Readiness}: so a multi-process test starts its load on a converged cluster),
 * exactly one line {@code READY node=<name> http=http://127.0.0.1:<port>/session} on stdout. The wait for
 * readiness is bounded by {@link #READY_WAIT}: the node logs on stderr what it waits for, every
 * {@link #WAIT_REPORT_INTERVAL}, and after the bound prints the line all the same after a warning naming the
 * reasons (a caller that needs a converged cluster then fails on its own checks). A configuration error prints
 * {@code configuration error: <message>} on stderr and exits 2 (also when the cluster cannot start because of
 * an option: a bind-port in use, a peer that does not resolve, a bad jgroups-config file); any other
 * start-up failure exits 1. {@code GET /cluster} answers the node's current view ({@link ClusterViewServlet}),
 * {@code GET /metrics} its meters in Prometheus text format ({@link MetricsServlet}), {@code GET /ready} its
 * readiness ({@link ReadinessServlet}: 200 or 503 with the reasons).
 * SIGTERM stops the node in order; SIGKILL is the crash the fail-over tests want.
 */
public final class NodeLauncher {

    public static final String READY_PREFIX = "READY node=";
    public static final int EXIT_CONFIGURATION_ERROR = 2;
    public static final int EXIT_STARTUP_FAILED = 1;
    /** How long a started node waits to be ready before it prints READY all the same. */
    static final Duration READY_WAIT = Duration.ofSeconds(50);
    /** How often a node that waits says what for. */
    static final Duration WAIT_REPORT_INTERVAL = Duration.ofSeconds(5);

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
        awaitReady(node.nodeName(), node::readiness, READY_WAIT, WAIT_REPORT_INTERVAL, System.err);
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
            AtomicReference<ReplicatedSessions> installed = new AtomicReference<>();
            node = new NodeServer(config.nodeName(), options.httpHost(), options.httpPort(), context -> {
                ReplicatedSessions sessions = ReplicatedSessions.install(context, config, meters);
                installed.set(sessions);
                context.addServlet(new ServletHolder(new ClusterViewServlet(config.nodeName(), config.clusterName(),
                        () -> sessions.replicator().members().stream().map(Member::name).toList())), "/cluster");
                context.addServlet(new ServletHolder(new ReadinessServlet()), "/ready");
                exposeMetrics(context, meters);
            });
            node.readiness(() -> installed.get().readiness());
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

    /**
     * Waits until {@code readiness} says ready, at most {@code bound}; says on {@code log} what it waits for after
     * {@code report} and every {@code report} after that, and when it gives up. Returns whether the node is ready.
     */
    static boolean awaitReady(String node, Supplier<Readiness> readiness, Duration bound, Duration report,
                              PrintStream log) throws InterruptedException {
        long start = System.nanoTime();
        long nextReport = report.toNanos();
        boolean reported = false;
        while (true) {
            Readiness now = readiness.get();
            long waited = System.nanoTime() - start;
            if (now.ready()) {
                if (reported) {
                    log.println(node + ": ready after " + TimeUnit.NANOSECONDS.toMillis(waited) + " ms");
                }
                return true;
            }
            if (waited >= bound.toNanos()) {
                log.println("WARNING " + node + ": not ready after " + bound.toSeconds() + " s (" + now
                        + "); printing READY all the same: GET /ready answers 503 while this lasts");
                return false;
            }
            if (waited >= nextReport) {
                log.println(node + ": not ready yet after " + TimeUnit.NANOSECONDS.toSeconds(waited) + " s: " + now);
                nextReport += report.toNanos();
                reported = true;
            }
            Thread.sleep(50);
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
