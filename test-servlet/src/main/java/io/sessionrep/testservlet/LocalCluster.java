package io.sessionrep.testservlet;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * N {@link NodeLauncher} JVMs on 127.0.0.1 forming one replication cluster: node-a, node-b, ... each with a
 * free HTTP port and bind port, static discovery in a ring (each node lists its predecessor, node-a lists
 * the last), {@code machine-id} = node name (so {@code allow-colocation} never matters), a cluster name of
 * its own (concurrent clusters on one host never meet). Each node's output goes to
 * {@code <log-dir>/<cluster>/<node>.log}.
 *
 * <p>Nodes start one after another, each waiting for the previous READY line, so every node joins the
 * existing cluster rather than forming its own and merging later. {@link #close()} kills whatever is
 * still running, and runs as a JVM shutdown hook too.
 */
public final class LocalCluster implements AutoCloseable {

    /** Where node logs go unless {@link Builder#logDir} says otherwise (the failsafe runs set it). */
    public static final String LOG_DIR_PROPERTY = "sessionrep.cluster.log-dir";

    private static final AtomicInteger CLUSTERS = new AtomicInteger();

    private final String clusterName;
    private final List<NodeProcess> nodes = new ArrayList<>();
    private final Thread shutdownHook = new Thread(this::killAll, "local-cluster-shutdown");

    private LocalCluster(String clusterName) {
        this.clusterName = clusterName;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The nodes in start order: node-a first. */
    public List<NodeProcess> nodes() {
        return List.copyOf(nodes);
    }

    public NodeProcess node(int index) {
        return nodes.get(index);
    }

    public NodeProcess node(String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node " + name + " in " + nodes));
    }

    /** The nodes still running. */
    public List<NodeProcess> alive() {
        return nodes.stream().filter(NodeProcess::isAlive).toList();
    }

    public String clusterName() {
        return clusterName;
    }

    /** SIGKILL, see {@link NodeProcess#kill9()}. Returns the exit code (137). */
    public int kill9(NodeProcess node) throws InterruptedException {
        return node.kill9();
    }

    /** Orderly stop (SIGTERM, SIGKILL after 20 s). Returns the exit code. */
    public int stop(NodeProcess node) throws InterruptedException {
        return node.stop(Duration.ofSeconds(20));
    }

    /** Kills every node still running. Idempotent. */
    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook is running or has run
        }
    }

    private void killAll() {
        for (NodeProcess node : nodes) {
            if (node.isAlive()) {
                try {
                    node.kill9();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (RuntimeException e) {
                    System.err.println("could not kill " + node + ": " + e.getMessage());
                }
            }
        }
    }

    private static String nodeName(int index) {
        if (index >= 26) {
            throw new IllegalArgumentException("at most 26 nodes (node-a .. node-z)");
        }
        return "node-" + (char) ('a' + index);
    }

    /** Distinct free TCP ports on 127.0.0.1 (free when asked; a race with other processes is possible). */
    static int[] freePorts(int count) {
        Set<Integer> ports = new HashSet<>();
        int[] result = new int[count];
        for (int i = 0; i < count; i++) {
            int port;
            do {
                try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    port = socket.getLocalPort();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            } while (!ports.add(port));
            result[i] = port;
        }
        return result;
    }

    /** What to start. */
    public static final class Builder {
        private int size = 3;
        private boolean replication = true;
        private final Map<String, String> options = new LinkedHashMap<>();
        private List<String> jvmArgs = NodeCommand.DEFAULT_JVM_ARGS;
        private Path logDir = Path.of(System.getProperty(LOG_DIR_PROPERTY, "target/cluster-logs"));
        private Duration readyTimeout = Duration.ofSeconds(60);
        private PrintStream echo = System.out;

        private Builder() {
        }

        /** Number of nodes, 1..26. Default 3. */
        public Builder size(int nodes) {
            if (nodes < 1 || nodes > 26) {
                throw new IllegalArgumentException("size: " + nodes + " is not allowed; expected 1 to 26");
            }
            this.size = nodes;
            return this;
        }

        /** False starts plain nodes ({@code --replication=off}). Default true. */
        public Builder replication(boolean on) {
            this.replication = on;
            return this;
        }

        /** A replication option for every node (canonical name); overrides the cluster's own choices. */
        public Builder option(String name, String value) {
            options.put(Objects.requireNonNull(name), Objects.requireNonNull(value));
            return this;
        }

        public Builder options(Map<String, String> more) {
            more.forEach(this::option);
            return this;
        }

        public Builder jvmArgs(List<String> args) {
            this.jvmArgs = List.copyOf(args);
            return this;
        }

        public Builder logDir(Path dir) {
            this.logDir = Objects.requireNonNull(dir);
            return this;
        }

        /** How long one node may take to print READY. Default 60 s. */
        public Builder readyTimeout(Duration timeout) {
            this.readyTimeout = Objects.requireNonNull(timeout);
            return this;
        }

        /** Where READY lines are echoed; null for nowhere. Default stdout. */
        public Builder echo(PrintStream out) {
            this.echo = out;
            return this;
        }

        /**
         * Starts the nodes one by one and returns when all are READY. When one fails, the ones already
         * started are killed and a {@link NodeStartException} carries the failed node's log tail.
         */
        public LocalCluster start() throws IOException, InterruptedException {
            String clusterName = options.getOrDefault("cluster-name",
                    "lc-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet());
            LocalCluster cluster = new LocalCluster(clusterName);
            Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
            int[] bindPorts = freePorts(size);
            Path dir = logDir.resolve(clusterName);
            try {
                for (int i = 0; i < size; i++) {
                    String name = nodeName(i);
                    NodeProcess node = NodeProcess.launch(name, bindPorts[i],
                            NodeCommand.build(jvmArgs, flags(i, name, clusterName, bindPorts)),
                            dir.resolve(name + ".log"), echo);
                    cluster.nodes.add(node);
                    node.awaitReady(readyTimeout);
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                cluster.close();
                throw e;
            }
            return cluster;
        }

        private Map<String, String> flags(int index, String name, String clusterName, int[] bindPorts) {
            Map<String, String> flags = new LinkedHashMap<>();
            flags.put("http-port", "0");
            if (!replication) {
                flags.put("replication", "off");
                flags.put("node-name", name);
                return flags;
            }
            flags.put("node-name", name);
            flags.put("machine-id", name);
            flags.put("cluster-name", clusterName);
            flags.put("discovery", "static");
            flags.put("bind-address", NodeServer.HOST);
            flags.put("bind-port", Integer.toString(bindPorts[index]));
            if (size > 1) {
                int predecessor = (index + size - 1) % size;
                flags.put("peers", NodeServer.HOST + ":" + bindPorts[predecessor]);
            }
            flags.putAll(options);
            return flags;
        }
    }
}
