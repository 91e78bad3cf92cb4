package io.sessionrep.testservlet.dist;

import io.sessionrep.testservlet.NonStickyLoad;
import io.sessionrep.testservlet.SessionClient;
import io.sessionrep.testservlet.SessionReply;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The web.xml filter install, done as docs/install-filter.md says, in containers that know nothing of
 * sessionrep: the official Jetty 12.1 distribution with only {@code http,ee10-deploy}, and Tomcat 11. The
 * WAR is the test WAR plus the filter declaration in web.xml and sessionrep-filter.jar in WEB-INF/lib;
 * the per-node options are {@code -Dsessionrep.*} system properties.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class FilterInstallIT {
    static final Duration START = Duration.ofSeconds(90);
    static final String COOKIE = "SRSESSIONID";
    static final String FILTER_XML = """
              <filter>
                <filter-name>sessionrep</filter-name>
                <filter-class>io.sessionrep.core.filter.ReplicationFilter</filter-class>
                <async-supported>true</async-supported>
                <init-param><param-name>write-quota</param-name><param-value>1</param-value></init-param>
                <init-param><param-name>replication-mode</param-name><param-value>async</param-value></init-param>
              </filter>
              <filter-mapping>
                <filter-name>sessionrep</filter-name>
                <url-pattern>/*</url-pattern>
              </filter-mapping>
            """;

    private static Path war;

    @BeforeAll
    static void buildWar() throws Exception {
        war = Distribution.filterWar(FILTER_XML);
    }

    /** Two Jetty distribution nodes, no container configuration: replication, invalidation, kill -9 fail-over. */
    @Test
    void filterInTheJettyDistribution() throws Exception {
        int[] ports = Distribution.freePorts(4);
        String cluster = "filter-it-" + ProcessHandle.current().pid();
        Path baseA = filterBase("filter-a", ports[0]);
        Path baseB = filterBase("filter-b", ports[1]);
        try (DistNode a = DistNode.jetty("node-a", baseA, ports[0], jvm("node-a", cluster, ports[2], ports[3]), List.of());
             DistNode b = DistNode.jetty("node-b", baseB, ports[1], jvm("node-b", cluster, ports[3], ports[2]), List.of())) {
            a.awaitJettyStarted(START);
            b.awaitJettyStarted(START);
            a.awaitView(START, "node-a", "node-b");
            b.awaitView(START, "node-a", "node-b");
            assertFalse(Files.exists(baseA.resolve("start.d/sessionrep.ini")), "no container configuration");
            assertFalse(Files.exists(baseA.resolve("lib/sessionrep")), "nothing in the container's class path");
            noFixation(b);
            Scenarios.replicateInvalidateFailOver(a, b, COOKIE);
        }
    }

    /**
     * No affinity with the filter in three Jetty distribution nodes: 5 clients without session affinity for
     * 20 s, then one session shared by one client per node. Every verify shows exactly the process requests
     * answered 200.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"async", "sync"})
    void filterWithoutSessionAffinityLosesNoUpdate(String mode) throws Exception {
        int[] ports = Distribution.freePorts(6);
        String cluster = "filter-rr-" + mode + "-" + ProcessHandle.current().pid();
        String[] names = {"node-a", "node-b", "node-c"};
        List<DistNode> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Path base = filterBase("filter-rr-" + mode + "-" + i, ports[i]);
                List<String> jvm = new ArrayList<>(jvm(names[i], cluster, ports[3 + i], ports[3 + (i + 2) % 3]));
                jvm.add("-Dsessionrep.replication-mode=" + mode);
                nodes.add(DistNode.jetty(names[i], base, ports[i], jvm, List.of()));
            }
            for (DistNode n : nodes) {
                n.awaitJettyStarted(START);
            }
            for (DistNode n : nodes) {
                n.awaitView(START, names);
            }
            List<java.net.URI> uris = nodes.stream().map(DistNode::sessionUri).toList();
            NonStickyLoad.Result roundRobin = NonStickyLoad.roundRobin(uris, COOKIE, 5,
                    java.time.Duration.ofSeconds(Long.getLong("sessionrep.nonsticky.seconds", 20)), 4);
            System.out.println("filter in Jetty distributions, round robin, " + mode + ": " + roundRobin);
            assertTrue(roundRobin.sessions() >= 20, roundRobin.toString());
            assertEquals(0, roundRobin.lost(), roundRobin.toString());
            assertEquals(0, roundRobin.errors(), roundRobin.toString());
            List<java.net.URI> twoPerNode = new ArrayList<>(uris);
            twoPerNode.addAll(uris); // concurrent requests of one session on one node and across nodes
            NonStickyLoad.Result shared = NonStickyLoad.sharedSession(twoPerNode, COOKIE, 10);
            System.out.println("filter in Jetty distributions, shared session, " + mode + ": " + shared);
            assertEquals(0, shared.lost(), shared.toString());
            assertEquals(0, shared.errors(), shared.toString());
        } finally {
            for (DistNode n : nodes) {
                n.close();
            }
        }
    }

    /** One Jetty distribution node and one Tomcat node share sessions through the filter. */
    @Test
    void mixedJettyAndTomcatCluster() throws Exception {
        int[] ports = Distribution.freePorts(4);
        String cluster = "mixed-it-" + ProcessHandle.current().pid();
        Path baseJ = filterBase("mixed-jetty", ports[0]);
        Path tomcatWork = Distribution.work().resolve("mixed-tomcat");
        Distribution.deleteTree(tomcatWork);
        Files.createDirectories(tomcatWork);
        List<String> tomcat = new ArrayList<>();
        tomcat.add(Distribution.java());
        tomcat.addAll(jvm("node-t", cluster, ports[3], ports[2]));
        tomcat.addAll(List.of("-cp", tomcatClassPath(), TomcatNode.class.getName(),
                String.valueOf(ports[1]), war.toString(), tomcatWork.toString()));
        try (DistNode j = DistNode.jetty("node-j", baseJ, ports[0], jvm("node-j", cluster, ports[2], ports[3]), List.of());
             DistNode t = DistNode.start("node-t", "mixed-tomcat", tomcatWork, ports[1], tomcat)) {
            j.awaitJettyStarted(START);
            t.awaitLog("Tomcat start", l -> l.startsWith(TomcatNode.STARTED), START);
            j.awaitView(START, "node-j", "node-t");
            t.awaitView(START, "node-j", "node-t");
            noFixation(t);
            Scenarios.replicateInvalidateFailOver(j, t, COOKIE);
        }
    }

    /** A cookie naming an id no node knows is never adopted: the session gets a fresh id. */
    static void noFixation(DistNode node) throws Exception {
        SessionClient attacker = new SessionClient(SessionClient.newHttpClient(), Scenarios.REQUEST_TIMEOUT, COOKIE);
        String planted = "AAAAAAAAAAAAAAAAAAAAAAAAAAA." + node.name();
        attacker.cookie(planted);
        assertEquals(404, attacker.verify(node.sessionUri()).status(), "unknown id: no session");
        SessionReply created = Scenarios.ok(attacker.initialize(node.sessionUri(), 1, 1), "initialize");
        assertNotNull(created.setCookie());
        assertNotEquals(planted, created.setCookie(), "the offered id must not be adopted");
        assertFalse(created.session().startsWith("AAAAAAAA"), created.session());
        assertTrue(created.session().matches("[A-Za-z0-9_-]{27}"), "160 random bits, url-safe: " + created.session());
    }

    private static Path filterBase(String dir, int httpPort) throws Exception {
        Path base = Distribution.newJettyBase(dir, "http,ee10-deploy", null);
        Distribution.append(base.resolve("start.d/http.ini"), "jetty.http.port=" + httpPort);
        Files.copy(war, base.resolve("webapps/session-test.war"));
        return base;
    }

    /** Per-node options as system properties (the WAR is the same on every node). */
    static List<String> jvm(String node, String cluster, int bindPort, int peerPort) {
        return List.of("-Djava.net.preferIPv4Stack=true", "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-Dsessionrep.node-name=" + node,
                "-Dsessionrep.machine-id=machine-" + node,
                "-Dsessionrep.cluster-name=" + cluster,
                "-Dsessionrep.bind-port=" + bindPort,
                "-Dsessionrep.peers=127.0.0.1:" + peerPort);
    }

    /** Tomcat and the launcher only: sessionrep comes from the WAR. */
    private static String tomcatClassPath() {
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.contains("tomcat-embed-core") || entry.contains("jakarta.annotation-api")
                    || entry.endsWith("test-classes")) {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }
}
