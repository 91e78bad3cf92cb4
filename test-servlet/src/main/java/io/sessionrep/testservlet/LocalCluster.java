package io.sessionrep.testservlet;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * N {@link NodeLauncher} JVMs on 127.0.0.1 forming one replication cluster: node-a, node-b, ... each with a
 * free HTTP port and bind port, static discovery in a ring (each node lists its predecessor, node-a lists
 * the last), {@code machine-id} = node name (so {@code allow-colocation} never matters), a cluster name of
 * its own (concurrent clusters on one host never meet). Each node's output goes to
 * {@code <log-dir>/<cluster>/<node>.log}.
 *
 * <p>{@link Builder#start()} starts the nodes one after another, each waiting for the previous READY line, so
 * every node joins the existing cluster rather than forming its own and merging later;
 * {@link Builder#startTogether()} launches them all at once, as a whole cluster restarted together.
 * {@link #close()} kills whatever is still running, and runs as a JVM shutdown hook too.
 *
 * <p>Other topologies: options for every node ({@link Builder#option}) or one node
 * ({@link Builder#nodeOption}) replace the defaults, e.g. {@code discovery=multicast} (then no peers are
 * given) or {@code jgroups-config} (then none of the stack options). {@link Builder#deferred} nodes get
 * their ports and place in the ring but start only with {@link #start(String)}, which also restarts a
 * node that was killed. {@link #view} and {@link #awaitView} read the nodes' views from {@code GET /cluster}.
 */
public final class LocalCluster implements AutoCloseable {

    /** Where node logs go unless {@link Builder#logDir} says otherwise (the failsafe runs set it). */
    public static final String LOG_DIR_PROPERTY = "sessionrep.cluster.log-dir";

    private static final AtomicInteger CLUSTERS = new AtomicInteger();
    /** The lines of a node's log that {@link #awaitView} shows when it gives up: views, warnings, errors. */
    private static final Pattern RECENT_EVENT = Pattern.compile(" view \\d+ of cluster|WARN|ERROR|SEVERE");
    /** How many of them, the last ones, per node. */
    private static final int RECENT_EVENTS = 15;

    private final String clusterName;
    /** What starts each node, in ring order. */
    private final Map<String, NodeSpec> specs = new LinkedHashMap<>();
    /** The latest incarnation of each started node. */
    private final Map<String, NodeProcess> current = new LinkedHashMap<>();
    /** Every process ever started, so close() kills them all. */
    private final List<NodeProcess> launched = new ArrayList<>();
    private final Thread shutdownHook = new Thread(this::killAll, "local-cluster-shutdown");
    private final PrintStream echo;
    private final Duration readyTimeout;
    private volatile HttpClient http;

    private record NodeSpec(String name, int bindPort, List<String> command, Path logFile) {
    }

    /** One node's view of the cluster, as {@code GET /cluster} answered. Members in view order. */
    public record ClusterView(String node, String cluster, List<String> members) {
    }

    private LocalCluster(String clusterName, PrintStream echo, Duration readyTimeout) {
        this.clusterName = clusterName;
        this.echo = echo;
        this.readyTimeout = readyTimeout;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The started nodes (latest incarnation of each) in ring order: node-a first. */
    public synchronized List<NodeProcess> nodes() {
        return specs.keySet().stream().filter(current::containsKey).map(current::get).toList();
    }

    /** The started node at ring position {@code index} (0 = node-a). */
    public NodeProcess node(int index) {
        return node(new ArrayList<>(specs.keySet()).get(index));
    }

    public synchronized NodeProcess node(String name) {
        NodeProcess node = current.get(name);
        if (node == null) {
            throw new IllegalArgumentException("no started node " + name + " in " + current.values()
                    + (specs.containsKey(name) ? " (it is deferred: start it with start(\"" + name + "\"))" : ""));
        }
        return node;
    }

    /** The nodes still running. */
    public List<NodeProcess> alive() {
        return nodes().stream().filter(NodeProcess::isAlive).toList();
    }

    /** The replication port a node is given (also for nodes not started yet). */
    public int bindPort(String name) {
        NodeSpec spec = specs.get(name);
        if (spec == null) {
            throw new IllegalArgumentException("no node " + name + " in " + specs.keySet());
        }
        return spec.bindPort();
    }

    /**
     * Starts a deferred node, or starts again a node whose process has ended (killed or stopped; its log
     * continues), and waits for its READY line.
     */
    public NodeProcess start(String name) throws IOException, InterruptedException {
        NodeSpec spec = specs.get(name);
        if (spec == null) {
            throw new IllegalArgumentException("no node " + name + " in " + specs.keySet());
        }
        NodeProcess node = launch(name);
        node.awaitReady(readyTimeout);
        return node;
    }

    /** Starts the node's JVM (again, when it has ended) and returns at once, before its READY line. */
    private synchronized NodeProcess launch(String name) throws IOException {
        NodeSpec spec = specs.get(name);
        NodeProcess previous = current.get(name);
        if (previous != null && previous.isAlive()) {
            throw new IllegalStateException(previous + " is still running");
        }
        NodeProcess node = NodeProcess.launch(name, spec.bindPort(), spec.command(), spec.logFile(), echo,
                previous != null);
        launched.add(node);
        current.put(name, node);
        return node;
    }

    /** What {@code GET /cluster} of {@code node} answers now. */
    public ClusterView view(NodeProcess node) throws IOException, InterruptedException {
        HttpClient client = http;
        if (client == null) {
            client = SessionClient.newHttpClient();
            http = client;
        }
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(node.sessionUri().resolve("/cluster"))
                .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(node.name() + ": GET /cluster answered " + response.statusCode());
        }
        Map<String, String> fields = JsonFields.parse(response.body());
        String members = fields.get("members");
        return new ClusterView(fields.get("node"), fields.get("cluster"),
                members == null || members.isEmpty() ? List.of() : List.of(members.split(",")));
    }

    /**
     * Waits until each named node runs and its view holds exactly the named nodes (in any order): one
     * cluster of exactly these members. Returns the milliseconds it took.
     *
     * @throws IllegalStateException after {@code timeout}, with what each node saw last
     */
    public long awaitView(Duration timeout, Collection<String> names) throws InterruptedException {
        List<String> expected = names.stream().sorted().toList();
        long start = System.nanoTime();
        Map<String, String> seen = new LinkedHashMap<>();
        while (true) {
            boolean agreed = true;
            for (String name : expected) {
                NodeProcess node;
                synchronized (this) {
                    node = current.get(name);
                }
                String view;
                if (node == null || !node.isAlive()) {
                    view = "not running";
                    agreed = false;
                } else {
                    try {
                        List<String> members = view(node).members();
                        view = members.toString();
                        agreed &= members.stream().sorted().toList().equals(expected);
                    } catch (IOException e) {
                        view = e.toString();
                        agreed = false;
                    }
                }
                seen.put(name, view);
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            if (agreed) {
                return millis;
            }
            if (millis > timeout.toMillis()) {
                printRecentEvents(expected);
                throw new IllegalStateException("no single view of " + expected + " within " + timeout
                        + "; the nodes saw: " + seen + " (their recent views and warnings above, thread dumps in their logs)");
            }
            Thread.sleep(50);
        }
    }

    /**
     * For a test about to fail (best effort): each named node's last views and warnings (a refused request's
     * reason among them) go to the test's output, where a CI run shows them without its node logs, and each
     * node that runs prints its threads' stacks into its log.
     */
    public void printRecentEvents(Collection<String> names) throws InterruptedException {
        for (String name : names) {
            NodeProcess node;
            synchronized (this) {
                node = current.get(name);
            }
            if (node == null) {
                continue;
            }
            try {
                node.logTail(RECENT_EVENT.asPredicate(), RECENT_EVENTS)
                        .forEach(line -> System.out.println("[" + name + "] " + line));
                if (node.isAlive()) {
                    node.printThreadDump();
                }
            } catch (IOException | RuntimeException e) {
                System.err.println("no report of " + name + ": " + e);
            }
        }
    }

    /** {@link #awaitView(Duration, Collection)} of the named nodes. */
    public long awaitView(Duration timeout, String... names) throws InterruptedException {
        return awaitView(timeout, List.of(names));
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
        List<NodeProcess> all;
        synchronized (this) {
            all = List.copyOf(launched);
        }
        for (NodeProcess node : all) {
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

    /**
     * Distinct TCP ports free on 127.0.0.1, each also free at +100 (where FD_SOCK2 listens). Free when asked;
     * a race with other processes is possible, so they are drawn at random from below the kernel's ephemeral
     * range (where outgoing connections take their local ports; from 32768 on Linux) and above 10000.
     */
    static int[] freePorts(int count) {
        int ephemeralStart = ephemeralPortStart();
        Set<Integer> ports = new HashSet<>();
        int[] result = new int[count];
        for (int i = 0; i < count; i++) {
            int port;
            int attempts = 0;
            do {
                if (++attempts > 1000) {
                    throw new IllegalStateException("no free port from 10000 to " + (ephemeralStart - 101));
                }
                port = ThreadLocalRandom.current().nextInt(10_000, ephemeralStart - 100);
            } while (ports.contains(port) || !free(port) || !free(port + 100));
            ports.add(port);
            result[i] = port;
        }
        return result;
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort() == port;
        } catch (IOException e) {
            return false;
        }
    }

    /** The first port of the kernel's ephemeral range (32768 unless /proc says otherwise). */
    private static int ephemeralPortStart() {
        try {
            String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
            int start = Integer.parseInt(range.split("\\s+")[0]);
            return start > 12_000 ? start : 32_768;
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
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
        private final Map<String, Map<String, String>> nodeOptions = new LinkedHashMap<>();
        private final Set<String> deferred = new HashSet<>();
        private List<String> commandPrefix = List.of();
        private final Map<String, List<String>> nodeCommandPrefixes = new LinkedHashMap<>();
        private String httpHost;
        private String classpath;
        private final Map<String, String> nodeClasspaths = new LinkedHashMap<>();

        private Builder() {
        }

        /** The class path of the node JVMs (e.g. another build's sessionrep-node.jar). Default {@link NodeCommand}'s. */
        public Builder classpath(String path) {
            this.classpath = path;
            return this;
        }

        /** The class path of one node's JVM, over {@link #classpath}: a cluster of two builds (a rolling upgrade). */
        public Builder nodeClasspath(String node, String path) {
            nodeClasspaths.put(Objects.requireNonNull(node), Objects.requireNonNull(path));
            return this;
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

        /** A replication option (or launcher flag) for one node, over the cluster's and the defaults. */
        public Builder nodeOption(String node, String name, String value) {
            nodeOptions.computeIfAbsent(Objects.requireNonNull(node), n -> new LinkedHashMap<>())
                    .put(Objects.requireNonNull(name), Objects.requireNonNull(value));
            return this;
        }

        /** Nodes that get their ports and ring place but are not started by {@link #start()}. */
        public Builder deferred(String... nodes) {
            deferred.addAll(List.of(nodes));
            return this;
        }

        /** A command the node JVMs run under, e.g. {@code ip netns exec <ns>}. Default none. */
        public Builder commandPrefix(List<String> prefix) {
            this.commandPrefix = List.copyOf(prefix);
            return this;
        }

        /**
         * A command one node's JVM runs under, instead of {@link #commandPrefix} (e.g. nodes in different
         * network namespaces: {@code ip netns exec <ns>}). An empty list runs it directly.
         */
        public Builder nodeCommandPrefix(String node, List<String> prefix) {
            nodeCommandPrefixes.put(Objects.requireNonNull(node), List.copyOf(prefix));
            return this;
        }

        /** The nodes' {@code --http-host}; default 127.0.0.1. */
        public Builder httpHost(String host) {
            this.httpHost = Objects.requireNonNull(host);
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
            LocalCluster cluster = prepare();
            try {
                for (String name : cluster.specs.keySet()) {
                    if (!deferred.contains(name)) {
                        cluster.start(name);
                    }
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                cluster.close();
                throw e;
            }
            return cluster;
        }

        /**
         * Launches every node that is not deferred at the same moment, none waiting for another's READY line
         * (a whole cluster restarted at once, a StatefulSet started in parallel), and returns when all are
         * READY. Concurrently starting nodes may form several clusters first and merge later; the caller
         * watches the views. When one fails, all are killed and a {@link NodeStartException} says why.
         */
        public LocalCluster startTogether() throws IOException, InterruptedException {
            LocalCluster cluster = prepare();
            try {
                List<NodeProcess> launched = new ArrayList<>();
                for (String name : cluster.specs.keySet()) {
                    if (!deferred.contains(name)) {
                        launched.add(cluster.launch(name));
                    }
                }
                for (NodeProcess node : launched) {
                    node.awaitReady(readyTimeout);
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                cluster.close();
                throw e;
            }
            return cluster;
        }

        /** The cluster with every node's command and log file; no node started yet. */
        private LocalCluster prepare() {
            String clusterName = options.getOrDefault("cluster-name",
                    "lc-" + ProcessHandle.current().pid() + "-" + CLUSTERS.incrementAndGet());
            LocalCluster cluster = new LocalCluster(clusterName, echo, readyTimeout);
            Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
            int[] bindPorts = freePorts(size);
            Path dir = logDir.resolve(clusterName);
            for (int i = 0; i < size; i++) {
                String name = nodeName(i);
                List<String> command = new ArrayList<>(nodeCommandPrefixes.getOrDefault(name, commandPrefix));
                command.addAll(NodeCommand.build(jvmArgs, flags(i, name, clusterName, bindPorts),
                        nodeClasspaths.getOrDefault(name, classpath != null ? classpath : NodeCommand.classpath())));
                cluster.specs.put(name, new NodeSpec(name, bindPorts[i], List.copyOf(command),
                        dir.resolve(name + ".log")));
            }
            for (String name : deferred) {
                if (!cluster.specs.containsKey(name)) {
                    cluster.close();
                    throw new IllegalArgumentException("deferred: no node " + name + " in " + cluster.specs.keySet());
                }
            }
            for (String name : nodeClasspaths.keySet()) {
                if (!cluster.specs.containsKey(name)) {
                    throw new IllegalArgumentException("nodeClasspath: no node " + name + " in " + cluster.specs.keySet());
                }
            }
            for (String name : nodeCommandPrefixes.keySet()) {
                if (!cluster.specs.containsKey(name)) {
                    cluster.close();
                    throw new IllegalArgumentException("nodeCommandPrefix: no node " + name + " in " + cluster.specs.keySet());
                }
            }
            return cluster;
        }

        private Map<String, String> flags(int index, String name, String clusterName, int[] bindPorts) {
            Map<String, String> own = new LinkedHashMap<>(options);
            own.putAll(nodeOptions.getOrDefault(name, Map.of()));
            Map<String, String> flags = new LinkedHashMap<>();
            flags.put("http-port", "0");
            if (httpHost != null) {
                flags.put("http-host", httpHost);
            }
            if (!replication) {
                flags.put("replication", "off");
                flags.put("node-name", name);
                flags.putAll(own);
                return flags;
            }
            flags.put("node-name", name);
            flags.put("machine-id", name);
            flags.put("cluster-name", clusterName);
            if (!own.containsKey("jgroups-config")) { // the XML stack says all of this itself
                flags.put("discovery", "static");
                flags.put("bind-address", NodeServer.HOST);
                flags.put("bind-port", Integer.toString(bindPorts[index]));
                if (size > 1 && own.getOrDefault("discovery", "static").equals("static")) {
                    int predecessor = (index + size - 1) % size;
                    flags.put("peers", NodeServer.HOST + ":" + bindPorts[predecessor]);
                }
            }
            flags.putAll(own);
            return flags;
        }
    }
}
