package io.sessionrep.perf.node;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.jetty.ReplicatedSessions;
import io.sessionrep.perf.floor.FloorFilter;
import io.sessionrep.perf.floor.FloorListener;
import io.sessionrep.testservlet.LauncherOptions;
import io.sessionrep.testservlet.NodeServer;
import io.sessionrep.transport.jgroups.JGroupsTransport;
import jakarta.servlet.DispatcherType;
import org.eclipse.jetty.server.ServerConnector;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Function;

/**
 * The test-servlet node (NodeLauncher's {@link NodeServer}: embedded Jetty, the sample servlet, our
 * replicated sessions) with two measurement-only additions that NodeLauncher does not have:
 * <ul>
 *   <li>{@code --http-host=ADDR}: HTTP on that address instead of 127.0.0.1, so a node inside a network
 *       namespace is reachable from the load driver outside it;</li>
 *   <li>{@code --net-delay=DURATION} (e.g. {@code 200us}): a constant-delay protocol in the node's JGroups
 *       stack, right above the TCP transport, holding every outgoing replication message for that long
 *       (see {@link DelayedTransport}, {@link ConstantDelay}). The kernel here has no netem qdisc, so this
 *       is the emulated network latency of the "distributed" configuration.</li>
 *   <li>{@code --floor} (with {@code --replication=off}): perf-floor's listener and filter in the context, set up
 *       by its system properties ({@code perf.floor.port}, {@code perf.floor.peers}, {@code perf.floor.mode}):
 *       plain Jetty sessions whose changes each request copies over a socket at its end (the runner's
 *       yardstick).</li>
 * </ul>
 * Every other flag is NodeLauncher's ({@link LauncherOptions}). Prints {@code READY node=<name>
 * http=http://<host>:<port>/session} once serving.
 */
public final class PerfNode {

    private PerfNode() {
    }

    public static void main(String[] args) throws Exception {
        String httpHost = NodeServer.HOST;
        Duration delay = Duration.ZERO;
        boolean withFloor = false;
        List<String> rest = new ArrayList<>();
        for (String arg : args) {
            if (arg.equals("--floor")) {
                withFloor = true;
            } else if (arg.startsWith("--http-host=")) {
                httpHost = arg.substring("--http-host=".length());
            } else if (arg.startsWith("--net-delay=")) {
                delay = parseDuration(arg.substring("--net-delay=".length()));
            } else {
                rest.add(arg);
            }
        }
        LauncherOptions options = LauncherOptions.parse(rest.toArray(String[]::new));
        String name = options.nodeName("node");
        String host = httpHost;
        Duration netDelay = delay;
        boolean floor = withFloor;
        if (floor && options.replication()) {
            System.err.println("--floor: needs --replication=off (the floor replaces replication)");
            System.exit(2);
        }
        NodeServer node = new NodeServer(name, options.httpPort(), context -> {
            ((ServerConnector) context.getServer().getConnectors()[0]).setHost(host);
            if (options.replication()) {
                ReplicationConfig config = ReplicationConfig.fromMap(options.replicationOptions());
                Function<ReplicationConfig, ReplicationTransport> transports = netDelay.isZero()
                        ? JGroupsTransport::new
                        : c -> new DelayedTransport(new JGroupsTransport(c), netDelay);
                ReplicatedSessions.install(context, config, new SimpleMeterRegistry(), transports);
            } else {
                NodeServer.routeSessionIds(context, name);
                if (floor) {
                    context.addEventListener(new FloorListener());
                    context.addFilter(FloorFilter.class, "/*", EnumSet.of(DispatcherType.REQUEST));
                }
            }
        });
        try {
            node.start();
        } catch (Exception e) {
            System.err.println("startup failed: " + e);
            e.printStackTrace(System.err);
            node.close();
            System.exit(1);
        }
        System.out.println("READY node=" + name + " http=http://" + host + ":" + node.port() + "/session"
                + (netDelay.isZero() ? "" : " net-delay=" + netDelay.toNanos() / 1000 + "us") + (floor ? " floor" : ""));
        System.out.flush();
        node.join();
    }

    /** {@code 200us}, {@code 1ms}, {@code 0}. */
    static Duration parseDuration(String text) {
        String t = text.trim();
        if (t.equals("0")) {
            return Duration.ZERO;
        }
        if (t.endsWith("us")) {
            return Duration.ofNanos(Long.parseLong(t.substring(0, t.length() - 2)) * 1000);
        }
        if (t.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
        }
        throw new IllegalArgumentException("--net-delay: '" + text + "' is not allowed; expected e.g. 200us or 1ms");
    }
}
