package io.sessionrep.testservlet.filter;

import io.sessionrep.core.metrics.ReplicationMetrics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What only the web.xml filter ({@link io.sessionrep.core.filter.ReplicationFilter}) has, in two servers of
 * one container kind in this JVM (subclasses: embedded Jetty 12.1, embedded Tomcat 11), over real JGroups on
 * 127.0.0.1, the filter configured only through its init-params (as web.xml would): its session listeners
 * ({@code session-listeners}), sessions created on an async thread, id-change events, planted ids, expiry,
 * its JMX meters. The container's own sessions are never used. What every install does (fail-over, moving
 * between nodes, in-place mutation, forward and async, id change, invalidation, sync mode) is
 * {@code ContainerReplicationContract}, run against the filter by {@link FilterReplicationTest}.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FilterContractTest {
    static final String COOKIE = "SRSESSIONID";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();
    private Node a;
    private Node b;
    private String cluster;

    /**
     * One running server of the container under test, the filter, {@link ProbeServlet} at /probe and
     * {@code io.sessionrep.core.health.ReadinessServlet} at /ready.
     */
    interface Node {
        int port();

        void stop() throws Exception;
    }

    /**
     * Starts a server whose root context has: init-param {@code node} = {@code name}; {@link ProbeServlet} at
     * {@code /probe} (async supported); {@code ReplicationFilter} on {@code /*} (REQUEST, async supported)
     * with the init-params {@code filterParameters}.
     */
    abstract Node start(String name, java.util.Map<String, String> filterParameters) throws Exception;

    static java.util.Map<String, String> filterParameters(String name, String cluster, int bindPort, int peerPort) {
        java.util.Map<String, String> p = new java.util.LinkedHashMap<>();
        p.put("node-name", name);
        p.put("machine-id", "machine-" + name);
        p.put("cluster-name", cluster);
        p.put("bind-port", String.valueOf(bindPort));
        p.put("peers", "127.0.0.1:" + peerPort);
        p.put("serialization-allowlist", "io.sessionrep.testservlet.filter.");
        p.put("session-listeners", Probes.Listener.class.getName());
        return p;
    }

    @BeforeAll
    void startTwoNodes() throws Exception {
        int[] ports = freePorts(2);
        cluster = "filter-embedded-" + UUID.randomUUID().toString().substring(0, 8);
        a = start("node-a", filterParameters("node-a", cluster, ports[0], ports[1]));
        b = start("node-b", filterParameters("node-b", cluster, ports[1], ports[0]));
        // the cluster has formed when a session made on a can be read on b
        await("cluster formed").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300)).until(() -> {
            Call made = call(a, "set", "probe", "x", null);
            return "x".equals(call(b, "get", "probe", null, made.cookie).answer);
        });
    }

    @AfterAll
    void stop() throws Exception {
        if (a != null) {
            a.stop();
        }
        if (b != null) {
            b.stop();
        }
    }

    @Test
    void listenersFireOnceOnTheNodeThatServes() throws Exception {
        Call created = call(a, "bind", "bound", null, null);
        String id = created.session;
        assertEquals(1, Probes.count("created", id));
        assertTrue(Probes.EVENTS.contains("created:node-a:" + id));
        assertTrue(Probes.EVENTS.contains("bound:node-a:" + id));
        assertTrue(Probes.EVENTS.contains("added-bound:node-a:" + id));

        Call onB = call(b, "get", "bound", null, created.cookie); // take-over: b activates the value
        assertNotEquals("null", onB.answer);
        assertTrue(Probes.EVENTS.contains("activated:node-b:" + id), Probes.EVENTS.toString());
        assertEquals(1, Probes.count("created", id), "a take-over is not a new session");

        call(b, "invalidate", null, null, onB.cookie);
        assertEquals(1, Probes.count("destroyed", id));
        assertTrue(Probes.EVENTS.contains("destroyed:node-b:" + id));
        assertTrue(Probes.EVENTS.contains("unbound:node-b:" + id));
        assertTrue(Probes.EVENTS.contains("removed-bound:node-b:" + id));
        assertEquals(0, Probes.count("passivated", id), "not passivated per replication (documented)");

        Call afterOnA = call(a, "get", "bound", null, created.cookie);
        assertEquals("-", afterOnA.session, "invalidated everywhere: node-a has no session either");
        assertEquals(0, Probes.count("destroyed:node-a", id));
    }

    /**
     * The session admin MBean of the filter install: a user's sessions on both nodes (principal set with the explicit
     * API) found from one node without a whole id listed, then ended everywhere.
     */
    @Test
    void theSessionAdminMBeanFindsAndEndsAUsersSessionsOnBothNodes() throws Exception {
        String user = "user-" + UUID.randomUUID().toString().substring(0, 6);
        Call onA = call(a, "principal", null, user, null);
        Call onB = call(b, "principal", null, user, null);
        ObjectName admin = new ObjectName("sessionrep:cluster=" + cluster + ",context=/,node=node-b,type=sessions");
        String[] oneString = {String.class.getName()};
        String found = (String) JMX.invoke(admin, "findSessionsOfPrincipal", new Object[]{user}, oneString);
        assertTrue(found.contains(io.sessionrep.core.LogIds.shortForm(onA.session()) + " owner=node-a")
                && found.contains(io.sessionrep.core.LogIds.shortForm(onB.session()) + " owner=node-b"), found);
        assertTrue(found.endsWith("2 session(s); answered by node-b, node-a"), found);
        assertTrue(!found.contains(onA.session()) && !found.contains(onB.session()), "no whole id is listed");

        String ended = (String) JMX.invoke(admin, "expireSessionsOfPrincipal", new Object[]{user}, oneString);
        assertTrue(ended.startsWith("2 session(s) invalidated"), ended);
        for (Node node : java.util.List.of(a, b)) {
            await("ended on every node").atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertEquals("-", call(node, "get", "x", null, onA.cookie()).session());
                assertEquals("-", call(node, "get", "x", null, onB.cookie()).session());
            });
        }
    }

    /** The contract's async scenario starts from an existing session; here the async thread creates it. */
    @Test
    void aSessionCreatedOnTheAsyncThreadSetsTheCookieAndReplicatesAtCompletion() throws Exception {
        Call async = call(a, "async", "late", "async-value", null);
        assertEquals("async", async.answer);
        assertNotNull(async.cookie, "a session created on the async thread sets the cookie");
        Call onB = call(b, "get", "late", null, async.cookie);
        assertEquals("async-value", onB.answer, "the change made on the async thread replicated at completion");
    }

    /** The id change itself (replication under the new id, the old one retired) is in the contract. */
    @Test
    void changeSessionIdTellsTheIdListenersAndTheOldIdServesNothing() throws Exception {
        Call created = call(a, "set", "who", "me", null);
        Call changed = call(a, "change", null, null, created.cookie);
        assertNotEquals(created.session, changed.session);
        assertEquals(changed.answer, changed.session);
        assertTrue(Probes.EVENTS.contains("id-changed-from-" + created.session + ":node-a:" + changed.session));
        assertEquals("-", call(b, "get", "who", null, created.cookie).session, "the old id is gone");
    }

    @Test
    void anIdNoNodeKnowsIsNeverAdopted() throws Exception {
        String planted = "AAAAAAAAAAAAAAAAAAAAAAAAAAA.node-a";
        assertEquals("-", call(a, "get", "x", null, planted).session);
        Call created = call(a, "set", "x", "y", planted);
        assertNotEquals("AAAAAAAAAAAAAAAAAAAAAAAAAAA", created.session);
        assertTrue(created.session.matches("[A-Za-z0-9_-]{27}"), created.session);
        assertEquals("-", call(b, "get", "x", null, "not a valid id").session);
    }

    @Test
    void anIdleSessionExpiresWithListenersOnTheServingNode() throws Exception {
        Call created = call(a, "timeout", null, "1", null);
        Thread.sleep(1500);
        assertEquals("-", call(a, "get", "x", null, created.cookie).session, "expired");
        assertEquals(1, Probes.count("destroyed", created.session));
        assertEquals("-", call(b, "get", "x", null, created.cookie).session, "expired everywhere");
    }

    @Test
    void metersAreMBeansUntilTheApplicationStops() throws Exception {
        String cluster = "filter-jmx-" + UUID.randomUUID().toString().substring(0, 8);
        int port = freePorts(1)[0];
        Node solo = start("node-j", filterParameters("node-j", cluster, port, port));
        try {
            call(solo, "set", "colour", "blue", null);
            Set<ObjectName> names = mbeans(cluster);
            assertTrue(names.stream().allMatch(n -> "/".equals(n.getKeyProperty("context"))
                    && "node-j".equals(n.getKeyProperty("node"))), names.toString());
            ObjectName primary = names.stream()
                    .filter(n -> ReplicationMetrics.SESSIONS_PRIMARY.equals(n.getKeyProperty("name"))).findFirst()
                    .orElseThrow(() -> new AssertionError("no sessions.primary gauge in " + names));
            assertEquals(1, ((Number) JMX.getAttribute(primary, "Value")).intValue());
        } finally {
            solo.stop();
        }
        assertEquals(Set.of(), mbeans(cluster), "destroying the filter unregisters its MBeans");
    }

    @Test
    void metricsNoneRegistersNoMBean() throws Exception {
        String cluster = "filter-no-jmx-" + UUID.randomUUID().toString().substring(0, 8);
        int port = freePorts(1)[0];
        Map<String, String> parameters = filterParameters("node-n", cluster, port, port);
        parameters.put("metrics", "none");
        Node solo = start("node-n", parameters);
        try {
            assertNotEquals("-", call(solo, "set", "colour", "blue", null).session, "the filter runs");
            assertEquals(Set.of(), mbeans(cluster));
        } finally {
            solo.stop();
        }
    }

    /**
     * The readiness endpoint finds the filter's node through the servlet context: 503 with the reason while a
     * configured peer is up but not in the view (a plain server socket), 200 once its port refuses.
     */
    @Test
    void theReadinessEndpointAnswersForTheFiltersNode() throws Exception {
        assertEquals("200 ready\n", ready(a));
        assertEquals("200 ready\n", ready(b));
        String cluster = "filter-ready-" + UUID.randomUUID().toString().substring(0, 8);
        int port = freePorts(1)[0];
        Node solo;
        try (ServerSocket stranger = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String peer = "127.0.0.1:" + stranger.getLocalPort();
            solo = start("node-r", filterParameters("node-r", cluster, port, stranger.getLocalPort()));
            await().atMost(Duration.ofSeconds(10)).until(() -> ready(solo).equals("503 not ready\nconfigured peer "
                    + peer + " is up (accepts connections) but not in this node's view\n"));
        }
        try {
            await("ready once the peer's port refuses").atMost(Duration.ofSeconds(15))
                    .until(() -> ready(solo).equals("200 ready\n"));
        } finally {
            solo.stop();
        }
    }

    /** GET /ready: the status and the body. */
    private static String ready(Node server) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/ready")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode() + " " + response.body();
    }

    private static Set<ObjectName> mbeans(String cluster) throws Exception {
        return JMX.queryNames(new ObjectName("sessionrep:cluster=" + cluster + ",*"), null);
    }

    // ------------------------------------------------------------------ harness

    record Call(String node, String session, String answer, String setCookie, String cookie) {
    }

    /** GET /probe with the cookie value {@code cookie} (or none); the cookie to send next. */
    static Call call(Node server, String op, String name, String value, String cookie)
            throws IOException, InterruptedException {
        int port = server.port();
        String query = "op=" + op + (name != null ? "&name=" + name : "") + (value != null ? "&value=" + value : "");
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/probe?" + query))
                .timeout(Duration.ofSeconds(20));
        if (cookie != null) {
            request.header("Cookie", COOKIE + "=" + cookie);
        }
        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        String setCookie = null;
        for (String header : response.headers().allValues("set-cookie")) {
            if (header.startsWith(COOKIE + "=")) {
                setCookie = header.substring(COOKIE.length() + 1, header.indexOf(';'));
            }
        }
        String[] parts = response.body().split("\\|", -1);
        return new Call(parts[0], parts[1], parts[2], setCookie, setCookie != null ? setCookie : cookie);
    }

    static int[] freePorts(int n) throws IOException {
        return io.sessionrep.testsupport.FreePorts.onLoopback(n);
    }
}
