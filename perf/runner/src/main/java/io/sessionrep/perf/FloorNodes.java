package io.sessionrep.perf;

import io.sessionrep.perf.node.PerfNode;
import io.sessionrep.testservlet.SessionClient;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The floor (perf-floor) in the runner's configurations: on Jetty, PerfNode JVMs with plain sessions and
 * {@code --floor} ({@link #startJetty}); on Tomcat, the floor WAR ({@link Wars#floor}) with the same system
 * properties ({@link #properties}). Node i copies every change to the next {@code quota} nodes (mod the node
 * count). Each node's counters ({@code /floor-status}) go into the report, to show the floor did its work.
 */
final class FloorNodes {

    private FloorNodes() {
    }

    /** The system properties of node {@code index}: its port, the next {@code quota} nodes' ports, the mode. */
    static List<String> properties(int index, int[] ports, int quota, boolean sync) {
        StringBuilder peers = new StringBuilder();
        for (int k = 1; k <= quota && k < ports.length; k++) {
            peers.append(peers.length() == 0 ? "" : ",").append("127.0.0.1:").append(ports[(index + k) % ports.length]);
        }
        return List.of("-Dperf.floor.port=" + ports[index], "-Dperf.floor.peers=" + peers,
                "-Dperf.floor.mode=" + (sync ? "sync" : "async"));
    }

    /** {@code nodes} PerfNode JVMs on 127.0.0.1 with plain Jetty sessions and the floor. */
    static Target startJetty(Layout layout, int nodes, int quota, boolean sync, List<String> jvmArgs, Path logDir,
                             boolean orderlyStop) throws Exception {
        int[] ports = Catalog.freePorts(nodes);
        List<ProcessTarget.NodeSpec> specs = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            String name = "node-" + (char) ('a' + i);
            List<String> command = new ArrayList<>();
            command.add(JMeterDriver.javaExecutable());
            command.addAll(jvmArgs);
            command.addAll(properties(i, ports, quota, sync));
            command.addAll(List.of("-cp", layout.perfNodeClasspath(), PerfNode.class.getName(),
                    "--http-port=0", "--node-name=" + name, "--replication=off", "--floor"));
            specs.add(new ProcessTarget.NodeSpec(name, command));
        }
        ProcessTarget nodesStarted = ProcessTarget.start(specs, logDir, false, orderlyStop, null);
        return new Target() {
            @Override
            public List<String> hosts() {
                return nodesStarted.hosts();
            }

            @Override
            public List<Long> pids() {
                return nodesStarted.pids();
            }

            @Override
            public String workDone() {
                return FloorNodes.workDone(nodesStarted.hosts(), "");
            }

            @Override
            public void close() {
                nodesStarted.close();
            }
        };
    }

    /** A floor node's counters as JSON ({@code /floor-status} under {@code context}). */
    static String status(HttpClient http, String hostPort, String context) throws IOException, InterruptedException {
        URI status = URI.create("http://" + hostPort + context + "/floor-status");
        return http.send(HttpRequest.newBuilder(status).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** Every node's counters, {@code node-x {...}; node-y {...}}. */
    static String workDone(List<String> hosts, String context) {
        HttpClient http = SessionClient.newHttpClient();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < hosts.size(); i++) {
            String said;
            try {
                said = status(http, hosts.get(i), context);
            } catch (IOException e) {
                said = "not readable: " + e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                said = "interrupted";
            }
            b.append(i == 0 ? "" : "; ").append("node-").append((char) ('a' + i)).append(' ').append(said);
        }
        return b.toString();
    }
}
