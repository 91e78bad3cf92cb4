package io.sessionrep.testservlet.discovery;

import io.sessionrep.testservlet.LocalCluster;
import io.sessionrep.testservlet.NodeCommand;
import io.sessionrep.testservlet.NodeProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Measures, it does not test: how long N node JVMs launched all at once take to form one view, per discovery
 * mode, several runs each, with min / median / max. Not part of {@code mvn verify} (its name matches neither
 * surefire's nor failsafe's patterns); run it on a quiet machine, alone:
 * <pre>
 * mvn -B -ntp -pl test-servlet -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
 *     package failsafe:integration-test failsafe:verify -Dfailsafe.failIfNoSpecifiedTests=false \
 *     -Dit.test=ColdStartMeasurement -Dsessionrep.coldstart.modes=static,file,dns,multicast,dynamic-multicast,alone \
 *     -Dsessionrep.coldstart.nodes=8 -Dsessionrep.coldstart.runs=5
 * </pre>
 * (the failsafe goals named rather than the verify phase: the fuzzing runs bound to that phase stay out).
 * {@code -Dsessionrep.node.classpath=<another sessionrep-node.jar>} runs the nodes of another build (before and
 * after a change). Mode {@code alone}: one node whose only peer is down, time from launch to READY (the
 * time it waits for a coordinator is in its log: "no members discovered after ...").
 * Each node's log is under {@code target/cluster-logs/<cluster>/}.
 */
class ColdStartMeasurement {

    static final String PREFIX = "sessionrep.coldstart.";
    private final int nodes = Integer.getInteger(PREFIX + "nodes", 8);
    private final int runs = Integer.getInteger(PREFIX + "runs", 5);
    private final List<String> modes = List.of(System.getProperty(PREFIX + "modes", "static").split(","));
    private final Duration viewTimeout = Duration.ofSeconds(Long.getLong(PREFIX + "view-timeout-seconds", 90));
    private final List<AutoCloseable> cleanUp = new ArrayList<>();
    private MulticastNetwork network;

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = cleanUp.size() - 1; i >= 0; i--) {
            cleanUp.get(i).close();
        }
    }

    @Test
    void measure() throws Exception {
        System.out.println("[cold start] node class path " + System.getProperty(NodeCommand.CLASSPATH_PROPERTY) + ", " + nodes + " nodes, "
                + runs + " runs per mode, modes " + modes);
        List<String> summaries = new ArrayList<>();
        for (String mode : modes) {
            summaries.add(mode.equals("alone") ? alone() : together(mode));
        }
        summaries.forEach(System.out::println);
    }

    /** N nodes launched at once, {@link #runs} times: time to one view from the launch and after the last READY. */
    private String together(String mode) throws Exception {
        List<Long> fromLaunch = new ArrayList<>();
        List<Long> afterReady = new ArrayList<>();
        int split = 0;
        for (int run = 1; run <= runs; run++) {
            try (ColdStart start = ColdStart.launch(cluster(mode))) {
                long oneView = start.awaitOneView(viewTimeout);
                fromLaunch.add(oneView);
                afterReady.add(oneView - start.readyMs());
                split += start.viewsAtReady().size() > 1 ? 1 : 0;
                System.out.println("[cold start " + mode + "] run " + run + ": " + nodes + " READY " + start.readyMs()
                        + " ms after the launch, views then " + start.viewsAtReady() + "; one view " + oneView
                        + " ms after the launch (" + (oneView - start.readyMs()) + " ms after the last READY)"
                        + "; logs " + start.cluster().nodes().get(0).logFile().getParent());
            }
            Thread.sleep(2_000); // the killed nodes' sockets and the CPU settle
        }
        return "[cold start " + mode + "] " + nodes + " nodes, " + runs + " runs, split at READY in " + split
                + ": one view after the launch " + Stats.of(fromLaunch) + " ms; after the last READY "
                + Stats.of(afterReady) + " ms";
    }

    /** One node whose only peer is down: launch to READY, {@link #runs} times. */
    private String alone() throws Exception {
        List<Long> ready = new ArrayList<>();
        for (int run = 1; run <= runs; run++) {
            long launched = System.nanoTime();
            try (LocalCluster cluster = Scenario.cluster(2).jvmArgs(ColdStart.NODE_JVM).deferred("node-b").start()) {
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - launched);
                ready.add(ms);
                NodeProcess a = cluster.node("node-a");
                System.out.println("[cold start alone] run " + run + ": READY " + ms + " ms after the launch; "
                        + a.logTail(line -> line.contains("creating cluster as coordinator"), 1));
            }
        }
        return "[cold start alone] one node, its peer down, " + runs + " runs: READY after the launch "
                + Stats.of(ready) + " ms";
    }

    private LocalCluster.Builder cluster(String mode) throws Exception {
        LocalCluster.Builder builder = Scenario.cluster(nodes).jvmArgs(ColdStart.NODE_JVM);
        return switch (mode) {
            case "static" -> builder;
            case "file" -> builder.option("discovery", "dynamic").option("dynamic-discovery", "file")
                    .option("discovery-directory", Path.of("target", "it-discovery", UUID.randomUUID().toString())
                            .toAbsolutePath().toString());
            case "dns" -> dns(builder);
            case "multicast", "dynamic-multicast" -> multicast(builder, mode.equals("dynamic-multicast"));
            default -> throw new IllegalArgumentException(PREFIX + "modes: unknown mode " + mode
                    + "; expected static, file, dns, multicast, dynamic-multicast or alone");
        };
    }

    /** Node i on 127.0.0.(i+1), one port for all, one name resolving to all of them through a hosts file. */
    private LocalCluster.Builder dns(LocalCluster.Builder builder) throws Exception {
        String name = "sessions-" + UUID.randomUUID().toString().substring(0, 8) + ".it.test";
        Path hosts = Files.createTempFile("sessionrep-hosts", ".txt");
        cleanUp.add(() -> Files.deleteIfExists(hosts));
        StringBuilder lines = new StringBuilder("127.0.0.1 localhost\n");
        String[] addresses = new String[nodes];
        for (int i = 0; i < nodes; i++) {
            addresses[i] = "127.0.0." + (i + 1);
            lines.append(addresses[i]).append(' ').append(name).append('\n');
        }
        Files.writeString(hosts, lines);
        List<String> jvm = new ArrayList<>(ColdStart.NODE_JVM);
        jvm.add("-Djdk.net.hosts.file=" + hosts);
        builder.jvmArgs(jvm).option("discovery", "dynamic").option("dynamic-discovery", "dns")
                .option("dns-query", name).option("bind-port", String.valueOf(Scenario.freePortOn(addresses)));
        for (int i = 0; i < nodes; i++) {
            builder.nodeOption("node-" + (char) ('a' + i), "bind-address", addresses[i]);
        }
        return builder;
    }

    private LocalCluster.Builder multicast(LocalCluster.Builder builder, boolean dynamic) throws Exception {
        if (network == null) { // one for all runs
            network = MulticastNetwork.prepare();
            cleanUp.add(network);
            System.out.println("[cold start] multicast on " + network);
        }
        if (dynamic) {
            builder.option("discovery", "dynamic").option("dynamic-discovery", "multicast");
        } else {
            builder.option("discovery", "multicast");
        }
        return network.apply(builder.option("multicast-address", network.group)
                .option("multicast-port", String.valueOf(network.port)));
    }

    /** Min / median / max of a few measurements. */
    record Stats(long min, long median, long max) {
        static Stats of(List<Long> values) {
            List<Long> sorted = values.stream().sorted().toList();
            int n = sorted.size();
            long median = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
            return new Stats(sorted.get(0), median, sorted.get(n - 1));
        }

        @Override
        public String toString() {
            return "min " + min + " / median " + median + " / max " + max;
        }
    }
}
