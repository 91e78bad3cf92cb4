package io.sessionrep.tomcat.dist;

import io.sessionrep.core.LogIds;
import io.sessionrep.core.ReplicationNode;
import io.sessionrep.core.SessionPrincipals;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.JmxMeters;
import io.sessionrep.testsupport.FreePorts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * End to end in the real product: the official Tomcat 11 distribution (unpacked from Maven Central by the
 * build), our drop-in jar in {@code lib/}, the sample test WAR, each node a separate Tomcat process with
 * its own {@code CATALINA_BASE}, configured as {@code docs/install-tomcat.md} section 3 tells a user: the
 * {@code <Manager>} elements are read from that document (only their ports are replaced by free ones, as
 * are the HTTP ports in {@code server.xml}). Processes are started with {@code java} and Tomcat's
 * {@code Bootstrap}, as {@code catalina.sh run} does, and killed in {@code finally}.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class TomcatDistributionIT {
    private static final String USERS = """
            <?xml version="1.0" encoding="UTF-8"?>
            <tomcat-users xmlns="http://tomcat.apache.org/xml" version="1.0">
              <role rolename="shopper"/>
              <user username="alice" password="alice-secret" roles="shopper"/>
            </tomcat-users>
            """;
    private static final String[] ONE_STRING = {String.class.getName()};
    private static final String[] TWO_STRINGS = {String.class.getName(), String.class.getName()};
    private final TomcatInstall install = new TomcatInstall("distribution");

    @AfterEach
    void killAll() throws InterruptedException {
        install.killAll();
    }

    @Test
    void twoTomcatProcessesReplicateFailOverAndInvalidate() throws Exception {
        int[] ports = FreePorts.onLoopback(6);
        String contextA = withBasicLogIn(install.guide.context("node-a", ports[2], ports[3]));
        String contextB = withBasicLogIn(install.guide.context("node-b", ports[2], ports[3]));
        TomcatProcess a = install.prepareTestWar("node-a", ports[0], contextA);
        TomcatProcess b = install.prepareTestWar("node-b", ports[1], contextB);
        for (TomcatProcess node : List.of(a, b)) {
            Files.writeString(node.base.resolve("conf/tomcat-users.xml"), USERS);
        }
        a.catalinaOpts.addAll(install.guide.jmxRemoteOptions(ports[4]));
        b.catalinaOpts.addAll(install.guide.jmxRemoteOptions(ports[5]));
        start(a);
        start(b);
        a.awaitServing();
        b.awaitServing();
        a.awaitView(0, List.of("node-b"));

        // replication: the session created on node-a is served by node-b with the same state
        User user = new User();
        Reply created = user.get(a, "initialize&number=2&size=5");
        assertEquals(200, created.status(), created.body());
        assertEquals("node-a", created.field("node"));
        assertTrue(user.cookie.endsWith(".node-a"), "route from jvmRoute: " + user.cookie);
        Reply processed = user.get(a, "process");
        assertEquals("1", processed.field("version"));
        // metrics=jmx by default: the meters are MBeans of Tomcat's JVM, as jconsole would attach and see them
        try (JmxMeters jmx = JmxMeters.attach(a.pid(), "node-a")) {
            assertEquals(1, jmx.value(ReplicationMetrics.SESSIONS_PRIMARY), "MBeans: " + jmx.names());
            assertTrue(jmx.names().stream().allMatch(n -> "/session-test".equals(n.getKeyProperty("context"))),
                    jmx.names().toString());
        }

        // the WAR's readiness endpoint (its class file in WEB-INF/classes) finds the manager's node
        a.awaitReady("/session-test/ready");
        b.awaitReady("/session-test/ready");

        Reply onB = user.get(b, "verify");
        assertEquals("node-b", onB.field("node"), onB.body());
        assertEquals(processed.field("checksum"), onB.field("checksum"), "same state on node-b");
        assertTrue(onB.setCookie() != null && onB.setCookie().endsWith(".node-b"), "cookie route rewritten");
        Reply processedOnB = user.get(b, "process");
        assertEquals("2", processedOnB.field("version"));
        Reply backOnA = user.get(a, "verify");
        assertEquals(processedOnB.field("checksum"), backOnA.field("checksum"), "node-a took the newest back");
        Reply last = user.get(a, "process");
        assertEquals("3", last.field("version"));

        // invalidation everywhere
        User other = new User();
        Reply otherCreated = other.get(a, "initialize&number=2&size=5");
        assertEquals(otherCreated.field("checksum"), other.get(b, "verify").field("checksum"));
        assertEquals(200, other.get(b, "destroy").status());
        assertEquals(404, other.get(a, "verify").status(), "invalidated on node-a too");
        assertEquals(404, other.get(b, "verify").status(), "and not resurrected on node-b");

        endSessionsOverJmx(a, ports[4], b, ports[5], user);

        // fail-over: node-a, the owner, crashes
        a.kill();
        Reply failedOver = user.get(b, "verify");
        assertEquals(200, failedOver.status(), failedOver.body());
        assertEquals("node-b", failedOver.field("node"));
        assertEquals("3", failedOver.field("version"));
        assertEquals(last.field("checksum"), failedOver.field("checksum"), "nothing lost in the crash");
        assertTrue(failedOver.setCookie() != null && failedOver.setCookie().endsWith(".node-b"));
        assertEquals("4", user.get(b, "process").field("version"), "the session goes on on node-b");

        for (TomcatProcess node : List.of(a, b)) {
            List<String> severe = node.logLines(line -> line.contains("SEVERE"));
            assertTrue(severe.isEmpty(), node.name + " logged SEVERE lines: " + severe);
        }
    }

    /**
     * No update lost without session affinity, in the distribution installed as the guide says: three Tomcat
     * processes, 5 clients without session affinity (every request of a session on the next node) for 20 s, and
     * one session shared by one client per node. Every verify shows exactly the process requests answered 200.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"async", "sync"})
    void threeTomcatsWithoutSessionAffinityLoseNoUpdate(String mode) throws Exception {
        int[] ports = FreePorts.onLoopback(6);
        List<TomcatProcess> three = new ArrayList<>();
        String[] names = {"node-a", "node-b", "node-c"};
        for (int i = 0; i < 3; i++) {
            // node-a and node-b as documented; node-c like node-b, on its own port, listing node-a
            String context = i < 2 ? install.guide.context(names[i], ports[3], ports[4])
                    : install.guide.context("node-b", ports[3], ports[5]); // node-b's block: binds ports[5], lists node-a
            three.add(start(install.prepareTestWar(names[i], ports[i], context.replace("replicationMode=\"sync\"",
                    "replicationMode=\"" + mode + "\""))));
        }
        for (TomcatProcess node : three) {
            node.awaitServing();
        }
        three.get(0).awaitView(0, List.of("node-b", "node-c"));
        List<java.net.URI> uris = three.stream()
                .map(n -> java.net.URI.create("http://127.0.0.1:" + n.httpPort + "/session-test/session")).toList();
        io.sessionrep.testservlet.NonStickyLoad.Result roundRobin = io.sessionrep.testservlet.NonStickyLoad.roundRobin(
                uris, "JSESSIONID", 5, Duration.ofSeconds(Long.getLong("sessionrep.nonsticky.seconds", 20)), 4);
        System.out.println("Tomcat distribution, round robin, " + mode + ": " + roundRobin);
        assertTrue(roundRobin.sessions() >= 20, roundRobin.toString());
        assertEquals(0, roundRobin.lost(), roundRobin.toString());
        assertEquals(0, roundRobin.errors(), roundRobin.toString());
        List<java.net.URI> twoPerNode = new java.util.ArrayList<>(uris);
        twoPerNode.addAll(uris); // concurrent requests of one session on one node and across nodes
        io.sessionrep.testservlet.NonStickyLoad.Result shared =
                io.sessionrep.testservlet.NonStickyLoad.sharedSession(twoPerNode, "JSESSIONID", 10);
        System.out.println("Tomcat distribution, shared session, " + mode + ": " + shared);
        assertEquals(0, shared.lost(), shared.toString());
        assertEquals(0, shared.errors(), shared.toString());
        for (TomcatProcess node : three) {
            List<String> severe = node.logLines(line -> line.contains("SEVERE"));
            assertTrue(severe.isEmpty(), node.name + " logged SEVERE lines: " + severe);
        }
    }

    @Test
    void contextWithABadAttributeFailsToStartWithALogLineNamingIt() throws Exception {
        int[] ports = FreePorts.onLoopback(3);
        String context = install.guide.context("node-a", ports[1], ports[2])
                .replace("<Manager ", "<Manager writeQuota=\"-1\" ");
        TomcatProcess node = start(install.prepareTestWar("node-a", ports[0], context));
        node.awaitLog("Tomcat started", line -> line.contains("Server startup in"));

        List<String> named = node.logLines(line -> line.contains("Manager attribute writeQuota=\"-1\""));
        assertTrue(!named.isEmpty() && named.get(0).contains("write-quota")
                && named.get(0).contains("expected an integer from 0 to 64"), "log: " + node.logLines(l -> true));
        assertTrue(!node.logLines(line -> line.contains("Context [/session-test] startup failed")).isEmpty());
        assertEquals(404, new User().get(node, "verify").status(), "the application is not available");
    }

    @Test
    void dropInJarBundlesThirdPartyCodeRelocatedAndNoContainerClasses() throws IOException {
        List<String> classes;
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(install.jar.toFile())) {
            classes = zip.stream().map(java.util.zip.ZipEntry::getName).filter(n -> n.endsWith(".class")).toList();
        }
        assertTrue(classes.contains("io/sessionrep/tomcat/ReplicatedSessionManager.class"));
        for (String shaded : List.of("jgroups/JChannel", "esotericsoftware/kryo/Kryo", "objenesis/Objenesis",
                "micrometer/core/instrument/MeterRegistry", "micrometer/jmx/JmxMeterRegistry",
                "codahale/metrics/jmx/JmxReporter", "slf4j/LoggerFactory", "slf4j/jul/JULServiceProvider")) {
            assertTrue(classes.contains("io/sessionrep/shaded/" + shaded + ".class"), shaded + " relocated");
        }
        List<String> foreign = classes.stream().filter(n -> !n.startsWith("io/sessionrep/")
                && !n.startsWith("META-INF/versions/")).toList();
        assertTrue(foreign.isEmpty(), "only io.sessionrep.* classes (ours and relocated): " + foreign);
        assertTrue(classes.stream().noneMatch(n -> n.contains("/catalina/") || n.startsWith("jakarta/")),
                "no Tomcat or Servlet API classes");
    }

    /**
     * The operator's session operations over JMX remote, as docs/install-tomcat.md section 5 sets it up
     * ({@code CATALINA_OPTS}): alice logs in on node-a (BASIC); Tomcat's manager MBean of node-a lists her session
     * by its short id and reads its attributes, the one of node-b ends another session everywhere by its short id;
     * the session admin MBean of node-b finds alice's session and ends it everywhere. {@code bystander}'s session
     * lives on.
     */
    private static void endSessionsOverJmx(TomcatProcess a, int jmxA, TomcatProcess b, int jmxB, User bystander)
            throws Exception {
        User alice = User.signedIn("alice", "alice-secret");
        assertEquals(200, alice.get(a, "initialize&number=2&size=5").status());
        String alicesId = ReplicationNode.clusterId(alice.cookie);
        User anonymous = new User();
        assertEquals(200, anonymous.get(a, "initialize&number=2&size=5").status());
        try (JMXConnector toA = jmx(jmxA); JMXConnector toB = jmx(jmxB)) {
            MBeanServerConnection onA = toA.getMBeanServerConnection();
            MBeanServerConnection onB = toB.getMBeanServerConnection();
            ObjectName manager = new ObjectName("Catalina:type=Manager,host=localhost,context=/session-test");
            String ids = (String) onA.invoke(manager, "listSessionIds", null, null);
            assertTrue(ids.contains(LogIds.shortForm(alicesId)), ids);
            assertFalse(ids.contains(alicesId), "short ids only: " + ids);
            assertEquals("alice", onA.invoke(manager, "getSessionAttribute",
                    new Object[]{LogIds.shortForm(alicesId), SessionPrincipals.ATTRIBUTE}, TWO_STRINGS),
                    "the manager recorded the user Tomcat authenticated");

            // Tomcat's expireSession, on node-b, of a session node-a holds: gone on both
            onB.invoke(manager, "expireSession",
                    new Object[]{LogIds.shortForm(ReplicationNode.clusterId(anonymous.cookie))}, ONE_STRING);
            awaitNoSession(anonymous, a);
            awaitNoSession(anonymous, b);

            ObjectName admin = onB.queryNames(new ObjectName("sessionrep:type=sessions,node=node-b,*"), null)
                    .iterator().next();
            String found = (String) onB.invoke(admin, "findSessionsOfPrincipal", new Object[]{"alice"}, ONE_STRING);
            assertTrue(found.startsWith(LogIds.shortForm(alicesId) + " owner=node-a backups=[node-b]"), found);
            assertTrue(found.contains("principal=alice")
                    && found.endsWith("1 session(s); answered by node-b, node-a"), found);
            String ended = (String) onB.invoke(admin, "expireSessionsOfPrincipal", new Object[]{"alice"}, ONE_STRING);
            assertTrue(ended.startsWith("1 session(s) invalidated; answered by node-b, node-a"), ended);
            awaitNoSession(alice, a);
            awaitNoSession(alice, b);
        }
        assertEquals(200, bystander.get(a, "verify").status(), "another user's session lives on");
    }

    /** Polls (at most 5 s: an invalidation reaches the other node by message) until the user has no session there. */
    private static void awaitNoSession(User user, TomcatProcess node) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int status = user.get(node, "verify").status();
        while (status != 404 && System.nanoTime() < deadline) {
            Thread.sleep(100);
            status = user.get(node, "verify").status();
        }
        assertEquals(404, status, "the session is gone on " + node.name);
    }

    private static JMXConnector jmx(int port) throws IOException {
        return JMXConnectorFactory.connect(new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port
                + "/jmxrmi"));
    }

    /**
     * The application's own log-in, for the operations on a user's sessions: HTTP Basic credentials, checked
     * against {@code conf/tomcat-users.xml} by the distribution's realm, on any request that sends them.
     */
    private static String withBasicLogIn(String context) {
        String edited = context.replace("<Context>", "<Context preemptiveAuthentication=\"true\">\n"
                + "  <Valve className=\"org.apache.catalina.authenticator.BasicAuthenticator\"/>");
        assertTrue(edited.contains("BasicAuthenticator"), context);
        return edited;
    }

    private static TomcatProcess start(TomcatProcess node) throws IOException {
        node.start();
        return node;
    }
}
