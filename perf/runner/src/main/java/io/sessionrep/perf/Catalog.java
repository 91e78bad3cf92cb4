package io.sessionrep.perf;

import io.sessionrep.perf.Scenario.Config;
import io.sessionrep.perf.Scenario.Point;
import io.sessionrep.perf.node.PerfNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The scenarios of docs/benchmarks.md and how each configuration is started. */
final class Catalog {

    /** The scenarios run in Tomcat 11 with the peers of {@link TomcatSetup}. */
    static final List<String> TOMCAT_SCENARIOS = List.of("6", "7", "8", "8p", "9", "10");

    /** Node JVMs: a heap large enough that GC is no distraction, small enough for 8 JVMs. */
    static final List<String> NODE_JVM_ARGS = List.of("-Xms1g", "-Xmx1g", "-Xmn512m", "-XX:MetaspaceSize=128m", "-XX:+UseSerialGC",
            "-Djava.net.preferIPv4Stack=true", "-Djava.awt.headless=true");

    private final Options options;
    private final Layout layout;

    Catalog(Options options, Layout layout) {
        this.options = options;
        this.layout = layout;
    }

    /** The load points of the charts "response time against state size": 1 KiB to 500 KiB, 5 threads. */
    List<Point> statePoints() {
        if (!options.points.isEmpty()) {
            return options.points;
        }
        return switch (options.profile) {
            case SMOKE -> List.of(new Point(5, 2, 5));
            case QUICK -> List.of(new Point(5, 1, 1), new Point(5, 5, 10));
            case FULL -> List.of(new Point(5, 1, 1), new Point(5, 2, 5), new Point(5, 5, 10), new Point(5, 10, 20),
                    new Point(5, 10, 50));
        };
    }

    List<Point> sizeSweep() {
        return switch (options.profile) {
            case SMOKE -> List.of(new Point(5, 1, 1));
            case QUICK -> List.of(new Point(5, 1, 1), new Point(5, 10, 50));
            case FULL -> List.of(new Point(5, 1, 1), new Point(5, 10, 1), new Point(5, 10, 5), new Point(5, 10, 10),
                    new Point(5, 10, 25), new Point(5, 10, 50));
        };
    }

    List<Point> concurrencySweep() {
        return switch (options.profile) {
            case SMOKE -> List.of(new Point(5, 1, 1));
            case QUICK -> List.of(new Point(5, 1, 1), new Point(50, 1, 1));
            case FULL -> List.of(new Point(5, 1, 1), new Point(25, 1, 1), new Point(50, 1, 1), new Point(100, 1, 1),
                    new Point(200, 1, 1));
        };
    }

    List<Scenario> all() {
        List<Scenario> list = new ArrayList<>();
        list.add(selected(new Scenario("1", "The cost of replication", "replication off vs async, write-quota 1 (2 nodes), and the floor",
                concat(List.of(jetty("off", "replication off", 2, false, Map.of())),
                        oursJetty("async-wq1", "async, write-quota 1", 2, Map.of("replication-mode", "async", "write-quota", "1")),
                        List.of(floor("floor-async", "floor: raw copy over a socket, async", 2, 1, false))),
                statePoints(), "state", "Two Jetty nodes on 127.0.0.1, the threads spread over both (each node primary"
                + " for its users' sessions, backup of the other's). " + FLOOR_NOTE + nodeBaselineNote(), null)));
        list.add(selected(new Scenario("2", "Asynchronous and synchronous replication", "async vs sync, write-quota 1 (2 nodes), and the floor",
                concat(oursJetty("async", "async", 2, Map.of("replication-mode", "async", "write-quota", "1")),
                        oursJetty("sync", "sync", 2, Map.of("replication-mode", "sync", "write-quota", "1")),
                        List.of(floor("floor-async", "floor: raw copy over a socket, async", 2, 1, false),
                                floor("floor-sync", "floor: raw copy over a socket, sync", 2, 1, true))),
                statePoints(), "state", "sync: the request waits for the first backup's acknowledgement (sync-timeout 500ms). "
                + FLOOR_NOTE + " floor-sync: the request also waits for the other node's one-byte acknowledgement, sent once it"
                + " has stored the bytes." + nodeBaselineNote(), null)));
        list.add(selected(new Scenario("3", "Quota or number of replication targets", "write-quota 1 vs 2 (4 nodes, async), and the floor",
                concat(oursJetty("wq1", "write-quota 1", 4, Map.of("replication-mode", "async", "write-quota", "1")),
                        oursJetty("wq2", "write-quota 2", 4, Map.of("replication-mode", "async", "write-quota", "2")),
                        List.of(floor("floor-wq1", "floor: raw copy over a socket to 1 node", 4, 1, false),
                                floor("floor-wq2", "floor: raw copy over a socket to 2 nodes", 4, 2, false))),
                statePoints(), "state", "Four Jetty nodes on 127.0.0.1 per configuration, the threads spread over all four. "
                + FLOOR_NOTE + " floor-wq2: each node copies to the next two." + nodeBaselineNote(), null)));
        // probed only when scenario 4 runs (the probe may install iproute2)
        String netnsSkip = options.scenarios.contains("4") ? Netns.unavailableReason() : null;
        list.add(new Scenario("4", "Distributed vs co-located JVMs", "two nodes colocated vs distributed (async, write-quota 1)",
                List.of(perfNodes("colocated", "colocated (127.0.0.1, no delay)", false),
                        perfNodes("distributed", "distributed (namespaces, " + options.netDelay + " delay, " + options.netRate + ")", true)),
                statePoints(), "state",
                "colocated: two PerfNode JVMs on 127.0.0.1 with the same machine-id. distributed: the same two JVMs in"
                        + " separate network namespaces (one \"machine\" each, machine-id host-a/host-b), replicating over a"
                        + " veth link shaped by tbf to " + options.netRate + ", with " + options.netDelay + " of emulated"
                        + " one-way latency added in JGroups: a constant-delay protocol inserted above TCP in each node"
                        + " (this kernel has no netem qdisc; JGroups' own DELAY was not used because its sender thread"
                        + " spins: in a first run it took 86 % of the node's CPU samples). The load driver reaches each"
                        + " node over its own veth link."
                        + " Both configurations share the same 2 cores: namespaces separate the network, not the CPUs.",
                netnsSkip == null ? null : "network namespaces unavailable: " + netnsSkip));
        list.add(new Scenario("5a", "Large session sizes", "replication off vs async: session size sweep (2 nodes)",
                List.of(jetty("off", "replication off", 2, false, Map.of()),
                        jetty("async", "async, write-quota 1", 2, true, Map.of("replication-mode", "async", "write-quota", "1"))),
                sizeSweep(), "state", "number x size from 1x1 KiB to 10x50 KiB, 5 threads.", null));
        list.add(new Scenario("5b", "High load", "replication off vs async: concurrency sweep (2 nodes)",
                List.of(jetty("off", "replication off", 2, false, Map.of()),
                        jetty("async", "async, write-quota 1", 2, true, Map.of("replication-mode", "async", "write-quota", "1"))),
                concurrencySweep(), "threads", "Concurrent users (threads, no think time) with 1x1 KiB sessions"
                + " \"High Load Scenarios\".", null));
        boolean tomcatPeers = options.scenarios.stream().anyMatch(TOMCAT_SCENARIOS::contains);
        String redisNote = tomcatPeers && redisSkip() != null ? " The Redis peer is left out: " + redisSkip() + "." : "";
        String container = "Tomcat configurations as in the section \"Tomcat configurations\" above." + redisNote;
        List<Config> tomcats = new ArrayList<>();
        for (TomcatSetup setup : withoutUnavailable(List.of(TomcatSetup.OFF, TomcatSetup.OURS_ASYNC, TomcatSetup.OURS_ASYNC_CHANNEL,
                TomcatSetup.OURS_ASYNC_CHANNEL_ONLY, TomcatSetup.OURS_ASYNC_KEY, TomcatSetup.OURS_ASYNC_TLS, TomcatSetup.OURS_SYNC,
                TomcatSetup.OURS_SYNC_CHANNEL, TomcatSetup.DELTA,
                TomcatSetup.BACKUP, TomcatSetup.BACKUP_ASYNC, TomcatSetup.REDIS, TomcatSetup.FLOOR_ASYNC, TomcatSetup.FLOOR_SYNC))) {
            boolean asked = options.configs.contains(setup.id());
            if ((!options.configs.isEmpty() || setup.onlyWhenAsked()) && !asked) {
                continue; // (the baseline configurations come with their setup; the async variants only when asked)
            }
            tomcats.add(new Config(setup.id(), setup.label(), logDir -> startTomcat(setup, 2, logDir)));
            if (setup.ours() && options.baselineJar != null) {
                Path baseline = Path.of(options.baselineJar).toAbsolutePath();
                tomcats.add(new Config(baselineOf(setup), setup.label().replace(" (Tomcat)", "") + ", baseline jar ("
                        + baseline.getFileName() + ")", logDir -> startTomcat(setup, baseline, 2, logDir)));
            }
        }
        list.add(new Scenario("6", "The same container: ours and its peers in Tomcat 11",
                "StandardManager vs ours (async, sync) vs DeltaManager vs BackupManager (sync, async) vs Spring Session + Redis, and the floor"
                        + " (2 nodes)",
                tomcats, statePoints(), "state", container + " The JMeter plan as in scenarios 1-5, threads spread over both nodes"
                + " (sticky: each thread stays on its node)." + (options.baselineJar == null ? ""
                : " `<id>-baseline` (e.g. `" + BASELINE + "`), right after each of ours' configurations: the same with the jar given by --baseline-jar ("
                + options.baselineJar + "), e.g. the build before a change, measured A/B against this build's."), null));
        PeerScenarios peers = new PeerScenarios(this, options);
        list.add(new Scenario("7", "Memory", "heap after a full GC with " + options.sessions + " sessions of 2 x 5 KiB, primary and backup",
                List.of(), List.of(), "state", container, null, peers::memory));
        list.add(new Scenario("8", "Without a sticky balancer: round robin", "the seed workload, every request to the next of "
                + options.rrNodes + " nodes: ours async and sync vs Tomcat BackupManager async and sync",
                List.of(), List.of(), "state", container + " 5 client threads (the runner's own HTTP client, not JMeter), each"
                + " looping: initialize (2 x 5 KiB) on node k, process x4 on nodes k+1..k+4, verify on node k+5, destroy on node k+6"
                + " (mod " + options.rrNodes + "; k moves on by one per session), one cookie per session sent to every node, every"
                + " Set-Cookie taken. A session is lost when its verify does not show exactly as many versions as process requests"
                + " answered 200 (wrong version), or answers 404 (no session). `process` carries `from=N`, so a request the JDK"
                + " client resent is not counted twice. Segments of " + options.segmentSeconds + " s, configurations A/B/A/B,"
                + " throughput over all requests (destroy included).", null, peers::roundRobin));
        String pagesSkip = null;
        StaticFiles pageFiles = null;
        if (options.scenarios.contains("8p")) {
            try {
                pageFiles = StaticFiles.of(testWar());
            } catch (IOException | RuntimeException e) {
                pagesSkip = "the test WAR's static files cannot be read: " + e.getMessage();
            }
        }
        list.add(new Scenario("8p", "Pages without a sticky balancer: round robin", options.browsers + " browsers load pages (one"
                + " session write and the application's static files in parallel), every request to the next of "
                + options.rrNodes + " nodes: ours async and sync vs Tomcat BackupManager async and sync, and StandardManager",
                List.of(), List.of(), "state", PageRoundRobin.describe(options, pageFiles) + redisNote, pagesSkip,
                new PageRoundRobin(this, options)::run));
        list.add(new Scenario("9", "Concurrent clients on one session", options.clients + " clients share each session, client i"
                + " pinned to node i mod " + options.ccNodes + ", 10 process each: final version vs successful answers",
                List.of(), List.of(), "state", container + " Per session: initialize on node-a, then the clients send their"
                + " `process` requests at the same time, each on its own node (one session at a time; as many sessions as fit in"
                + " the segment), then a verify on node-a reads the final version. Updates lost = answers 200 the final version"
                + " does not contain; a non-200 answer or a time-out (" + ClientLoad.REQUEST_TIMEOUT.toSeconds() + " s) is never"
                + " a success and is listed by status. All clients of a session share one cookie, as the parallel requests of"
                + " one browser share its cookie jar. A session whose final verify fails counts all its successful updates as"
                + " lost. \"Applied without a 200\": the version counts more updates than"
                + " successful answers (a failed answer whose update was applied, or a request the JDK client resent). The"
                + " reference is one Tomcat serving every client. `jetty-ours-async` and `jetty-ours-sync`: ours on embedded"
                + " Jetty nodes (the NodeLauncher JVMs of scenarios 1-5), the same clients and servlet.", null, peers::concurrentClients));
        list.add(new Scenario("10", "Fail-over: kill -9 of a Tomcat node", "sessions readable on the survivor, ours vs the peers",
                List.of(), List.of(), "state", container, null, peers::failover));
        return list;
    }

    /** What the scenarios 1 to 3 say of their floor configurations. */
    static final String FLOOR_NOTE = "The floor (perf-floor, a yardstick, not a replicator): plain Jetty sessions on PerfNode"
            + " JVMs; at the end of each request the request thread writes the byte arrays the request set, as they are, into"
            + " a plain TCP socket of its own to the other node, whose reader thread reads them into new arrays and keeps"
            + " them: no serializer, digest, membership, queue or hand-off, the least any replicator must do here to hold a"
            + " second copy of every request's changes in another JVM.";

    /**
     * {@code scenario} (1 to 3) with only the configurations --configs names (all without --configs); without any
     * left, it is skipped with that reason. Scenario 6 selects its own (a baseline comes with its setup).
     */
    private Scenario selected(Scenario scenario) {
        if (options.configs.isEmpty()) {
            return scenario;
        }
        List<Config> kept = scenario.configs().stream().filter(c -> options.configs.contains(c.id())
                || options.configs.contains(c.id().replaceFirst(NODE_BASELINE_SUFFIX + "$", ""))).toList(); // baselines come with theirs
        Scenario narrowed = new Scenario(scenario.id(), scenario.title(), scenario.question(), kept, scenario.points(),
                scenario.xAxis(), scenario.notes(), scenario.skip(), scenario.custom());
        return kept.isEmpty() ? narrowed.withSkip("--configs selects none of its configurations") : narrowed;
    }

    /** The floor on {@code nodes} PerfNode JVMs, each copying to the next {@code quota} ({@link FloorNodes}). */
    private Config floor(String id, String label, int nodes, int quota, boolean sync) {
        return new Config(id, label, logDir -> FloorNodes.startJetty(layout, nodes, quota, sync, jvmArgs(logDir), logDir,
                options.jfr));
    }

    /** Ours on {@code nodes} embedded Jetty nodes with replication {@code options}, node JVMs as every scenario's. */
    JettyTarget startJetty(int nodes, Map<String, String> replicationOptions, java.nio.file.Path logDir) throws Exception {
        return JettyTarget.start(nodes, true, replicationOptions, jvmArgs(logDir), logDir, System.out, options.jfr, null);
    }

    private Config jetty(String id, String label, int nodes, boolean replication, Map<String, String> options) {
        return new Config(id, label, logDir -> JettyTarget.start(nodes, replication, options, jvmArgs(logDir), logDir,
                System.out, this.options.jfr, null));
    }

    /**
     * Ours on Jetty nodes ({@link #jetty}) and, with --baseline-node-jar, right after it the same on nodes of that jar
     * ({@code <id>}{@value #NODE_BASELINE_SUFFIX}): two builds A/B in one run.
     */
    private List<Config> oursJetty(String id, String label, int nodes, Map<String, String> replicationOptions) {
        Config ours = jetty(id, label, nodes, true, replicationOptions);
        if (options.baselineNodeJar == null) {
            return List.of(ours);
        }
        Path jar = Path.of(options.baselineNodeJar).toAbsolutePath();
        return List.of(ours, new Config(id + NODE_BASELINE_SUFFIX, label + ", baseline node jar (" + jar.getFileName() + ")",
                logDir -> JettyTarget.start(nodes, true, replicationOptions, jvmArgs(logDir), logDir, System.out,
                        options.jfr, jar)));
    }

    private String nodeBaselineNote() {
        return options.baselineNodeJar == null ? "" : " `<id>" + NODE_BASELINE_SUFFIX + "`: ours on nodes of the jar given by"
                + " --baseline-node-jar (" + options.baselineNodeJar + "), e.g. the build before a change, measured A/B against"
                + " this build's.";
    }

    /** What --baseline-node-jar's configurations add to the id of the configuration they repeat. */
    static final String NODE_BASELINE_SUFFIX = "-baseline";

    @SafeVarargs
    private static List<Config> concat(List<Config>... parts) {
        List<Config> all = new ArrayList<>();
        for (List<Config> part : parts) {
            all.addAll(part);
        }
        return all;
    }

    /**
     * The node JVM options, plus a GC log per JVM in logDir (the report sums the pauses) and, with --jfr, a
     * recording dumped into logDir/jfr/ when the node stops.
     */
    private List<String> jvmArgs(java.nio.file.Path logDir) throws IOException {
        java.nio.file.Files.createDirectories(logDir);
        List<String> args = new ArrayList<>(NODE_JVM_ARGS);
        args.add(GcSummary.logOption(logDir));
        if (options.jfr) {
            java.nio.file.Path jfr = java.nio.file.Files.createDirectories(logDir.resolve("jfr"));
            args.add("-XX:StartFlightRecording=dumponexit=true,settings=" + JfrSummary.settings + ",filename=" + jfr + "/");
        }
        return args;
    }

    private Config perfNodes(String id, String label, boolean distributed) {
        return new Config(id, label, logDir -> {
            String cluster = "perf-" + id + "-" + ProcessHandle.current().pid();
            List<ProcessTarget.NodeSpec> specs = new ArrayList<>();
            if (!distributed) {
                int[] ports = freePorts(2);
                for (int i = 0; i < 2; i++) {
                    String name = "node-" + (char) ('a' + i);
                    specs.add(new ProcessTarget.NodeSpec(name, perfNode(List.of(), jvmArgs(logDir), name, "host-1", cluster,
                            "127.0.0.1", "127.0.0.1", ports[i], "127.0.0.1:" + ports[1 - i], 0, "0")));
                }
                return ProcessTarget.start(specs, logDir, false, options.jfr, null);
            }
            Netns netns = Netns.create(options.netRate);
            try {
                specs.add(new ProcessTarget.NodeSpec("node-a", perfNode(Netns.exec(Netns.NS_A), jvmArgs(logDir), "node-a", "host-a", cluster,
                        netns.httpA, netns.replA, 7800, netns.replB + ":7800", 8080, options.netDelay)));
                specs.add(new ProcessTarget.NodeSpec("node-b", perfNode(Netns.exec(Netns.NS_B), jvmArgs(logDir), "node-b", "host-b", cluster,
                        netns.httpB, netns.replB, 7800, netns.replA + ":7800", 8080, options.netDelay)));
                return ProcessTarget.start(specs, logDir, false, options.jfr, netns::close);
            } catch (Exception | Error e) {
                netns.close();
                throw e;
            }
        });
    }

    private List<String> perfNode(List<String> prefix, List<String> jvmArgs, String name, String machine, String cluster, String httpHost,
                                  String bindAddress, int bindPort, String peers, int httpPort, String delay) {
        List<String> c = new ArrayList<>(prefix);
        c.add(JMeterDriver.javaExecutable());
        c.addAll(jvmArgs);
        c.addAll(List.of("-cp", layout.perfNodeClasspath(), PerfNode.class.getName(),
                "--http-host=" + httpHost, "--http-port=" + httpPort, "--net-delay=" + delay,
                "--node-name=" + name, "--machine-id=" + machine, "--cluster-name=" + cluster, "--discovery=static",
                "--bind-address=" + bindAddress, "--bind-port=" + bindPort, "--peers=" + peers,
                "--replication-mode=async", "--write-quota=1",
                // measurements of plain replication; the namespaces' veth addresses are not loopback
                "--insecure-cluster=true"));
        return c;
    }

    // ------------------------------------------------------------------ Tomcat configurations

    /** Scenario 6's configuration of ours (async) with --baseline-jar: the sticky A/B of two builds. */
    static final String BASELINE = baselineOf(TomcatSetup.OURS_ASYNC);

    /** The id of {@code setup} (one of ours) run with the --baseline-jar's jar, e.g. {@code tc-ours-sync-baseline}. */
    static String baselineOf(TomcatSetup setup) {
        return setup.id() + "-baseline";
    }

    private Path distributableWar;
    private Path springSessionWar;
    private Path floorWar;
    private String redisSkip;
    private boolean redisProbed;

    /** Why the Redis peer cannot run here (probed once; the probe may install redis-server), or null. */
    synchronized String redisSkip() {
        if (!redisProbed) {
            redisProbed = true;
            redisSkip = RedisServer.unavailableReason(System.out);
        }
        return redisSkip;
    }

    /** The setups that can run here (the Redis peer needs redis-server). */
    List<TomcatSetup> withoutUnavailable(List<TomcatSetup> setups) {
        if (options.scenarios.stream().noneMatch(TOMCAT_SCENARIOS::contains)) {
            return setups; // not running any of them: no probe (it may install redis-server)
        }
        return setups.stream().filter(s -> s != TomcatSetup.REDIS || redisSkip() == null).toList();
    }

    private String tomcatVersion() {
        try {
            return layout.tomcatHome().getFileName().toString().replace("apache-tomcat-", "");
        } catch (RuntimeException e) {
            return "11 (not built yet)";
        }
    }

    /** The report's section on how the Tomcat configurations of scenarios 6 to 10 are set up (markdown). */
    String tomcatSection() {
        StringBuilder b = new StringBuilder();
        b.append("Tomcat ").append(tomcatVersion()).append(" (the official distribution from Maven Central), one CATALINA_BASE per"
                + " node on 127.0.0.1, started as `catalina.sh run` would; every configuration runs the same WAR (test-servlet's"
                + " `session-test.war` with `<distributable/>`; for Redis plus Spring Session's filter and jars) with the same JVM"
                + " options (`").append(String.join(" ", TomcatCluster.JVM_ARGS)).append("`, Tomcat's `--add-opens`, the default"
                + " collector, a GC log); the distribution's server.xml is otherwise unchanged (HTTP on 127.0.0.1, `jvmRoute` ="
                + " node name, no shutdown port; its access log valve stays). What each configuration adds:\n\n");
        for (TomcatSetup s : TomcatSetup.values()) {
            b.append("- `").append(s.id()).append("` ").append(s.label()).append(": ").append(TomcatCluster.describe(s)).append('\n');
        }
        return b.append('\n').toString();
    }

    /** test-servlet's WAR, as built (every Tomcat configuration's WAR is made from it). */
    Path testWar() {
        return layout.war();
    }

    /** A cluster of {@code nodes} Tomcats for each of {@code setups}, one after the other, each handed to {@code track}. */
    Map<TomcatSetup, TomcatCluster> startTomcats(List<TomcatSetup> setups, int nodes, Path dir,
                                                 java.util.function.Consumer<Target> track) throws Exception {
        Map<TomcatSetup, TomcatCluster> clusters = new java.util.LinkedHashMap<>();
        for (TomcatSetup setup : setups) {
            System.out.println("-- starting " + setup.id() + " (" + nodes + " nodes): " + setup.label());
            TomcatCluster c = startTomcat(setup, nodes, dir.resolve("logs").resolve(setup.id()));
            track.accept(c);
            clusters.put(setup, c);
        }
        return clusters;
    }

    /** A cluster of {@code nodes} Tomcats for {@code setup} (with its Redis server for the Spring Session peer). */
    TomcatCluster startTomcat(TomcatSetup setup, int nodes, Path logDir) throws Exception {
        return startTomcat(setup, setup.ours() ? layout.tomcatJar() : null, nodes, logDir);
    }

    /** As {@link #startTomcat(TomcatSetup, int, Path)}, our setups with {@code oursJar} in lib/. */
    TomcatCluster startTomcat(TomcatSetup setup, Path oursJar, int nodes, Path logDir) throws Exception {
        Path war;
        synchronized (this) {
            Path dir = layout.root().resolve("perf/runner/target/perf-wars");
            if (distributableWar == null) {
                distributableWar = Wars.distributable(layout.war(), dir.resolve("distributable/session-test.war"));
            }
            if (setup == TomcatSetup.REDIS && springSessionWar == null) {
                springSessionWar = Wars.springSession(layout.war(), layout.springSessionJars(),
                        dir.resolve("spring-session/session-test.war"));
            }
            if (setup.floor() && floorWar == null) {
                floorWar = Wars.floor(layout.war(), layout.floorJar(), dir.resolve("floor/session-test.war"));
            }
            war = setup == TomcatSetup.REDIS ? springSessionWar : setup.floor() ? floorWar : distributableWar;
        }
        RedisServer redis = null;
        if (setup == TomcatSetup.REDIS) {
            redis = RedisServer.start(logDir);
            System.out.println("[" + setup.id() + "] redis-server " + redis.version() + " on 127.0.0.1:" + redis.port());
        }
        try {
            return TomcatCluster.start(layout, setup, oursJar, nodes, war, logDir.resolve("bases"), logDir, redis, options.jfr, System.out);
        } catch (Exception | Error e) {
            if (redis != null) {
                redis.close();
            }
            throw e;
        }
    }

    /** Distinct free TCP ports on 127.0.0.1 (free when asked). */
    static int[] freePorts(int count) {
        Set<Integer> seen = new HashSet<>();
        int[] ports = new int[count];
        for (int i = 0; i < count; i++) {
            int port;
            do {
                try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    port = s.getLocalPort();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            } while (!seen.add(port) || port > 65_000 - 200);
            ports[i] = port;
        }
        return ports;
    }
}
