package io.sessionrep.perf;

import io.sessionrep.testservlet.SessionClient;
import io.sessionrep.testservlet.SessionReply;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Nodes of the official Tomcat 11 distribution on 127.0.0.1, one {@code CATALINA_BASE} each, set up as a
 * user would for the {@link TomcatSetup} (what differs is listed in {@link #describe}), each a separate
 * JVM started as {@code catalina.sh run} would ({@code Bootstrap start} with Tomcat's system properties and
 * {@code --add-opens}), with the same JVM options for every configuration ({@link #JVM_ARGS}). Started one
 * after the other (DeltaManager's state transfer wants its peer up), each awaited until the application
 * answers; for a replicated configuration, a probe session created on the first node must then be
 * readable on every other node before the cluster counts as started (for the floor: its bytes received there).
 */
final class TomcatCluster implements Target {

    static final String CONTEXT = "/session-test";
    static final String PATH = CONTEXT + "/session";
    /** The heap options of every Tomcat configuration (identical for every peer). */
    static final List<String> JVM_ARGS = List.of("-Xms512m", "-Xmx512m");
    /** What catalina.sh adds to every Tomcat 11 JVM (plus the logging and directory properties). */
    private static final List<String> CATALINA_SH_ARGS = List.of(
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.rmi/sun.rmi.transport=ALL-UNNAMED",
            "-Djava.protocol.handler.pkgs=org.apache.catalina.webresources");
    private static final Duration START = Duration.ofSeconds(120);
    /** How long the replication probe polls one session before it creates another. */
    private static final Duration PROBE_RETRY = Duration.ofSeconds(10);

    /** One Tomcat process. */
    record Node(String name, int httpPort, Path base, ServerProcess process) {
        URI uri() {
            return URI.create("http://127.0.0.1:" + httpPort + PATH);
        }
    }

    private final TomcatSetup setup;
    private final List<Node> nodes = new ArrayList<>();
    private RedisServer redis;
    private boolean orderlyStop;
    private boolean closed;

    private TomcatCluster(TomcatSetup setup) {
        this.setup = setup;
    }

    /**
     * @param oursJar   the sessionrep-tomcat.jar of our setups (the build's, or a baseline's)
     * @param war       the WAR for this setup ({@link Wars})
     * @param work      where the CATALINA_BASEs go
     * @param logDir    console logs and GC logs (gc-PID.log)
     * @param redis     the Redis server of {@link TomcatSetup#REDIS} (stopped with the cluster), else null
     * @param jfr       record every node with JFR (into logDir/jfr/, written when the node stops: the nodes
     *                  are then stopped with SIGTERM, Tomcat's orderly shutdown, instead of SIGKILL)
     */
    static TomcatCluster start(Layout layout, TomcatSetup setup, Path oursJar, int size, Path war, Path workDir, Path logDirectory,
                               RedisServer redis, boolean jfr, PrintStream echo) throws Exception {
        Path work = workDir.toAbsolutePath(); // the nodes run in their CATALINA_BASE
        Path logDir = logDirectory.toAbsolutePath();
        TomcatCluster cluster = new TomcatCluster(setup);
        cluster.orderlyStop = jfr;
        cluster.redis = redis;
        int redisPort = redis == null ? 0 : redis.port();
        try {
            int[] http = Catalog.freePorts(size);
            int[] replication = Catalog.freePorts(size);
            Path home = layout.tomcatHome();
            NodeSecrets secrets = setup.secured() ? NodeSecrets.make(work.resolve("secrets"), setup == TomcatSetup.OURS_ASYNC_TLS) : null;
            for (int i = 0; i < size; i++) {
                String name = "node-" + (char) ('a' + i);
                Path base = work.resolve(name);
                prepareBase(layout, setup, oursJar, home, base, name, http[i], i, replication, war, secrets);
                List<String> command = new ArrayList<>();
                command.add(JMeterDriver.javaExecutable());
                command.addAll(JVM_ARGS);
                command.addAll(CATALINA_SH_ARGS);
                Files.createDirectories(logDir);
                command.add(GcSummary.logOption(logDir));
                if (jfr) {
                    Path recordings = Files.createDirectories(logDir.resolve("jfr"));
                    command.add("-XX:StartFlightRecording=dumponexit=true,settings=" + JfrSummary.settings + ",filename=" + recordings + "/");
                }
                command.add("-Djava.net.preferIPv4Stack=true");
                command.add("-Djava.util.logging.config.file=" + base.resolve("conf/logging.properties"));
                command.add("-Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager");
                command.add("-Dcatalina.home=" + home);
                command.add("-Dcatalina.base=" + base);
                command.add("-Djava.io.tmpdir=" + base.resolve("temp"));
                command.add("-Dsessionrep.node-name=" + name);
                if (setup == TomcatSetup.REDIS) {
                    command.add("-Dperf.redis.host=127.0.0.1");
                    command.add("-Dperf.redis.port=" + redisPort);
                }
                if (setup.floor()) {
                    command.addAll(FloorNodes.properties(i, replication, size - 1, setup == TomcatSetup.FLOOR_SYNC));
                }
                command.add("-cp");
                command.add(home.resolve("bin/bootstrap.jar") + java.io.File.pathSeparator + home.resolve("bin/tomcat-juli.jar"));
                command.add("org.apache.catalina.startup.Bootstrap");
                command.add("start");
                ServerProcess process = ServerProcess.start(name, command, logDir.resolve(name + ".log"), base);
                Node node = new Node(name, http[i], base, process);
                cluster.nodes.add(node);
                cluster.awaitServing(node);
                echo.println("[" + setup.id() + " " + name + "] serving " + node.uri() + " (pid " + process.pid() + ")");
            }
            if (setup.replicated() && size > 1) {
                cluster.probeReplication();
            }
            if (setup.floor() && size > 1) {
                cluster.probeFloor();
            }
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** What each configuration changes in the distribution's defaults, for the report. */
    static String describe(TomcatSetup setup) {
        return switch (setup) {
            case OFF -> "no change: StandardManager";
            case DELTA, BACKUP, BACKUP_ASYNC -> "`<Cluster>` of Tomcat's clustering how-to (SimpleTcpCluster, NioReceiver, PooledParallelSender,"
                    + " TcpPingInterceptor, TcpFailureDetector, MessageDispatchInterceptor, ReplicationValve, JvmRouteBinderValve,"
                    + " ClusterSessionListener) with static membership on 127.0.0.1 instead of multicast, manager "
                    + switch (setup) {
                        case DELTA -> "DeltaManager (defaults: asynchronous sends)";
                        case BACKUP -> "BackupManager with its default `mapSendOptions` 6 (SEND_OPTIONS_SYNCHRONIZED_ACK |"
                                + " SEND_OPTIONS_USE_ACK: each update waits until the backup has received and processed it)";
                        default -> "BackupManager with `mapSendOptions=\"8\"` (SEND_OPTIONS_ASYNCHRONOUS: each update queued"
                                + " and sent by the channel's MessageDispatchInterceptor thread, no acknowledgement)";
                    };
            case OURS_ASYNC, OURS_SYNC, OURS_ASYNC_CHANNEL, OURS_SYNC_CHANNEL, OURS_ASYNC_CHANNEL_ONLY, OURS_ASYNC_KEY,
                 OURS_ASYNC_TLS -> "docs/install-tomcat.md:"
                    + " sessionrep-tomcat.jar in `lib/`, the `<Manager>` of section 3"
                    + " (read from the document; ports replaced, peers = the other nodes"
                    + (setup.sync() ? ", `replicationMode=\"sync\"`" : ", `replicationMode` left out: async")
                    + (setup == TomcatSetup.OURS_ASYNC_CHANNEL ? ", `asyncLane=\"false\"` added" : "")
                    + (setup.channelOnly() ? ", `dataLane=\"false\"` added" : "")
                    + (setup == TomcatSetup.OURS_ASYNC_KEY ? ", `clusterKey=\"file:...\"` added (32 random bytes, base64, made"
                    + " for the run): every channel and lane frame sealed" : "")
                    + (setup == TomcatSetup.OURS_ASYNC_TLS ? ", `tlsKeystore`, `tlsTruststore` and their passwords added (one"
                    + " EC P-256 key pair made for the run with keytool, which every node presents and trusts): mutual TLS"
                    + " on the channel and the lane" : "") + ")";
            case REDIS -> "Spring Session (spring-session-data-redis, Lettuce, no Spring Boot) in the WAR: ContextLoaderListener +"
                    + " `springSessionRepositoryFilter` (DelegatingFilterProxy), RedisSessionRepository with Spring Session's defaults;"
                    + " one local redis-server (no persistence)";
            case FLOOR_ASYNC, FLOOR_SYNC -> "StandardManager and, in the WAR, perf-floor's listener and filter: at the end of each"
                    + " request the request thread writes the byte arrays it set (and the `Integer` version) as they are into a"
                    + " plain TCP socket of its own to the other node, whose reader thread reads them into new arrays and keeps"
                    + " them; no serializer, digest, membership, queue or hand-off"
                    + (setup == TomcatSetup.FLOOR_SYNC ? ", and the request waits for the other node's one-byte acknowledgement"
                    + " (sent once it has stored them)" : "")
                    + ". The least any replicator must do here to hold a second copy of each changed byte in another JVM:"
                    + " a yardstick, not a replicator (the copy cannot serve the session)";
        };
    }

    private static void prepareBase(Layout layout, TomcatSetup setup, Path oursJar, Path home, Path base, String name, int httpPort,
                                    int index, int[] replication, Path war, NodeSecrets secrets) throws IOException {
        for (String dir : List.of("lib", "logs", "temp", "webapps", "work", "conf/Catalina/localhost")) {
            Files.createDirectories(base.resolve(dir));
        }
        try (Stream<Path> conf = Files.list(home.resolve("conf"))) {
            for (Path file : conf.filter(Files::isRegularFile).toList()) {
                Files.copy(file, base.resolve("conf").resolve(file.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Path serverXml = base.resolve("conf/server.xml");
        String server = Files.readString(serverXml);
        String engine = "<Engine name=\"Catalina\" defaultHost=\"localhost\">";
        String edited = server
                .replace("<Server port=\"8005\"", "<Server port=\"-1\"") // no shutdown port: stopped by signals
                .replaceFirst("<Connector port=\"8080\"", "<Connector port=\"" + httpPort + "\" address=\"127.0.0.1\"")
                .replace(engine, "<Engine name=\"Catalina\" defaultHost=\"localhost\" jvmRoute=\"" + name + "\">"
                        + (setup.tomcatCluster() ? "\n" + clusterXml(setup, index, replication) : ""));
        if (!edited.contains("jvmRoute=\"" + name + "\"") || !edited.contains("port=\"" + httpPort + "\"")) {
            throw new IllegalStateException("server.xml of " + home + " changed: cannot apply the edits");
        }
        Files.writeString(serverXml, edited);
        if (setup.ours()) {
            Files.copy(oursJar, base.resolve("lib").resolve("sessionrep-tomcat.jar"));
            Files.writeString(base.resolve("conf/Catalina/localhost/session-test.xml"),
                    oursContext(layout, setup, index, replication, secrets));
        }
        Files.copy(war, base.resolve("webapps/session-test.war"));
    }

    /**
     * The {@code <Context>} of node-a from docs/install-tomcat.md section 3 (the block TomcatDistributionIT
     * also reads), with this node's replication port, every other node as a peer and, for async, the
     * {@code replicationMode="sync"} line left out as the document says; a {@link TomcatSetup#secured()} setup adds
     * {@code secrets}' attributes (null for the others).
     */
    static String oursContext(Layout layout, TomcatSetup setup, int index, int[] replication, NodeSecrets secrets)
            throws IOException {
        String doc = Files.readString(layout.tomcatInstallDoc());
        String marker = "the context of node-a -->";
        int at = doc.indexOf(marker);
        if (at < 0) {
            throw new IllegalStateException("docs/install-tomcat.md has no block marked '" + marker + "'");
        }
        int start = doc.indexOf("```xml\n", at) + "```xml\n".length();
        String block = doc.substring(start, doc.indexOf("```", start));
        StringBuilder peers = new StringBuilder();
        for (int i = 0; i < replication.length; i++) {
            if (i != index) {
                peers.append(peers.length() == 0 ? "" : ",").append("127.0.0.1:").append(replication[i]);
            }
        }
        String context = block.replaceFirst("bindPort=\"\\d+\"", "bindPort=\"" + replication[index] + "\"")
                .replaceFirst("peers=\"[^\"]*\"", "peers=\"" + peers + "\"");
        if (!setup.sync()) {
            context = context.replaceFirst("\\s*replicationMode=\"sync\"", "");
        }
        if (setup == TomcatSetup.OURS_ASYNC_CHANNEL) {
            context = withAttributes(context, "asyncLane=\"false\"");
        }
        if (setup.channelOnly()) {
            context = withAttributes(context, "dataLane=\"false\"");
        }
        if (setup.secured()) {
            if (secrets == null) {
                throw new IllegalArgumentException(setup.id() + " needs its cluster's secrets");
            }
            context = withAttributes(context, secrets.managerAttributes());
        }
        if (!context.contains("ReplicatedSessionManager") || context.contains("7800") || context.contains("7801")
                || setup.sync() != context.contains("replicationMode=\"sync\"")) {
            throw new IllegalStateException("docs/install-tomcat.md's Manager block changed: cannot adapt it:\n" + block);
        }
        return context;
    }

    /** The {@code <Manager>} of {@code context} with {@code attributes} added right after its class name. */
    private static String withAttributes(String context, String attributes) {
        return context.replaceFirst("(className=\"io\\.sessionrep\\.tomcat\\.ReplicatedSessionManager\")",
                "$1 " + java.util.regex.Matcher.quoteReplacement(attributes));
    }

    /** Tomcat's documented default cluster, with static membership on 127.0.0.1 (no multicast here). */
    static String clusterXml(TomcatSetup setup, int index, int[] ports) {
        StringBuilder members = new StringBuilder();
        for (int i = 0; i < ports.length; i++) {
            members.append("            <").append(i == index ? "LocalMember" : "Member")
                    .append(" className=\"org.apache.catalina.tribes.membership.StaticMember\" host=\"127.0.0.1\" port=\"")
                    .append(ports[i]).append("\" uniqueId=\"").append(uniqueId(i)).append("\"/>\n");
        }
        String manager = switch (setup) {
            case DELTA -> "<Manager className=\"org.apache.catalina.ha.session.DeltaManager\" expireSessionsOnShutdown=\"false\""
                    + " notifyListenersOnReplication=\"true\"/>";
            case BACKUP -> "<Manager className=\"org.apache.catalina.ha.session.BackupManager\" notifyListenersOnReplication=\"true\"/>";
            case BACKUP_ASYNC -> "<Manager className=\"org.apache.catalina.ha.session.BackupManager\" notifyListenersOnReplication=\"true\""
                    + " mapSendOptions=\"8\"/>";
            default -> throw new IllegalArgumentException(setup.id() + " has no Tomcat <Cluster>");
        };
        return """
                      <Cluster className="org.apache.catalina.ha.tcp.SimpleTcpCluster" channelSendOptions="8">
                        %s
                        <Channel className="org.apache.catalina.tribes.group.GroupChannel">
                          <Membership className="org.apache.catalina.tribes.membership.StaticMembershipService">
                %s          </Membership>
                          <Receiver className="org.apache.catalina.tribes.transport.nio.NioReceiver" address="127.0.0.1" port="%d"
                                    autoBind="0" selectorTimeout="5000" maxThreads="6"/>
                          <Sender className="org.apache.catalina.tribes.transport.ReplicationTransmitter">
                            <Transport className="org.apache.catalina.tribes.transport.nio.PooledParallelSender"/>
                          </Sender>
                          <Interceptor className="org.apache.catalina.tribes.group.interceptors.TcpPingInterceptor"/>
                          <Interceptor className="org.apache.catalina.tribes.group.interceptors.TcpFailureDetector"/>
                          <Interceptor className="org.apache.catalina.tribes.group.interceptors.MessageDispatchInterceptor"/>
                        </Channel>
                        <Valve className="org.apache.catalina.ha.tcp.ReplicationValve" filter=""/>
                        <Valve className="org.apache.catalina.ha.session.JvmRouteBinderValve"/>
                        <ClusterListener className="org.apache.catalina.ha.session.ClusterSessionListener"/>
                      </Cluster>
                """.formatted(manager, members, ports[index]);
    }

    private static String uniqueId(int index) {
        StringBuilder id = new StringBuilder("{83");
        for (int i = 1; i < 15; i++) {
            id.append(",0");
        }
        return id.append(',').append(index + 1).append('}').toString();
    }

    private void awaitServing(Node node) throws Exception {
        HttpClient http = SessionClient.newHttpClient();
        long deadline = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < deadline) {
            if (!node.process().isAlive()) {
                throw new IllegalStateException(setup.id() + " " + node.name() + " exited; see " + node.process().log());
            }
            try {
                SessionReply reply = new HttpUser(http, Duration.ofSeconds(5), setup.cookie()).verify(node.uri());
                if (reply.status() == 404 && reply.error() != null) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(setup.id() + " " + node.name() + " did not serve " + node.uri() + " within " + START
                + "; see " + node.process().log());
    }

    /**
     * A session created on the first node is readable, with its state, on every other node. A new session is
     * created every {@link #PROBE_RETRY}: a peer may miss the replication of sessions created while its
     * cluster was still forming (Tomcat's DeltaManager did once, 20261126-delta-1x1), and later ones count.
     */
    private void probeReplication() throws Exception {
        HttpClient http = SessionClient.newHttpClient();
        for (int i = 1; i < nodes.size(); i++) {
            long deadline = System.nanoTime() + START.toNanos();
            SessionReply seen = null;
            HttpUser user = null;
            while (seen == null && System.nanoTime() < deadline) {
                user = new HttpUser(http, Duration.ofSeconds(10), setup.cookie());
                SessionReply created = user.initialize(nodes.get(0).uri(), 1, 1);
                if (created.status() != 200) {
                    throw new IllegalStateException(setup.id() + ": initialize on node-a answered " + created);
                }
                String cookie = user.cookie();
                long retry = Math.min(deadline, System.nanoTime() + PROBE_RETRY.toNanos());
                while (System.nanoTime() < retry) {
                    user.cookie(cookie);
                    seen = user.verify(nodes.get(i).uri());
                    if (seen.status() == 200 && created.checksum() != null && created.checksum().equals(seen.checksum())) {
                        break;
                    }
                    seen = null;
                    Thread.sleep(500);
                }
            }
            if (seen == null) {
                throw new IllegalStateException(setup.id() + ": a session of node-a never became readable on " + nodes.get(i).name()
                        + " within " + START + "; see " + nodes.get(i).process().log());
            }
            user.destroy(nodes.get(i).uri());
        }
    }

    /**
     * The floor copies: a session initialized on the first node (1 x 1 KiB) shows up as 1 KiB received on each
     * other node's counters ({@link FloorNodes#status}).
     */
    private void probeFloor() throws Exception {
        HttpClient http = SessionClient.newHttpClient();
        HttpUser user = new HttpUser(http, Duration.ofSeconds(10), setup.cookie());
        SessionReply created = user.initialize(nodes.get(0).uri(), 1, 1);
        if (created.status() != 200) {
            throw new IllegalStateException(setup.id() + ": initialize on node-a answered " + created);
        }
        for (int i = 1; i < nodes.size(); i++) {
            long deadline = System.nanoTime() + PROBE_RETRY.toNanos();
            String host = "127.0.0.1:" + nodes.get(i).httpPort();
            String status = FloorNodes.status(http, host, CONTEXT);
            while (!status.contains("\"valueBytesReceived\":1024,") && System.nanoTime() < deadline) {
                Thread.sleep(100);
                status = FloorNodes.status(http, host, CONTEXT);
            }
            if (!status.contains("\"valueBytesReceived\":1024,")) {
                throw new IllegalStateException(setup.id() + ": the 1 KiB set on node-a did not reach " + nodes.get(i).name()
                        + " within " + PROBE_RETRY + ": " + status + "; see " + nodes.get(0).process().log());
            }
        }
        user.destroy(nodes.get(0).uri());
    }

    /** What each node of a floor configuration says it did (its counters); else null. */
    @Override
    public String workDone() {
        return setup.floor() ? FloorNodes.workDone(hosts(), CONTEXT) : null;
    }

    List<Node> nodes() {
        return List.copyOf(nodes);
    }

    TomcatSetup setup() {
        return setup;
    }

    /** The Redis server of the Spring Session configuration, else null. */
    RedisServer redis() {
        return redis;
    }

    @Override
    public List<Long> pids() {
        return nodes.stream().map(n -> n.process().pid()).toList();
    }

    @Override
    public List<String> hosts() {
        return nodes.stream().map(n -> "127.0.0.1:" + n.httpPort()).toList();
    }

    @Override
    public String path() {
        return PATH;
    }

    /** kill -9 of node {@code index}, awaited. */
    void kill(int index) {
        nodes.get(index).process().close();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Node node : nodes) {
            if (orderlyStop && node.process().isAlive()) {
                node.process().stop();
            }
            node.process().close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    /** The console log of every node (for a failed scenario's message). */
    String logTails() {
        StringBuilder b = new StringBuilder();
        for (Node n : nodes) {
            try {
                List<String> lines = Files.readAllLines(n.process().log(), StandardCharsets.UTF_8);
                b.append(n.name()).append(":\n").append(String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size())));
            } catch (IOException e) {
                b.append(n.name()).append(": ").append(e);
            }
        }
        return b.toString();
    }
}
