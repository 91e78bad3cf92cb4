package io.sessionrep.jetty.it;

import io.sessionrep.core.LogIds;
import io.sessionrep.core.ReplicationNode;
import io.sessionrep.testsupport.SessionServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.ee10.servlet.security.ConstraintMapping;
import org.eclipse.jetty.ee10.servlet.security.ConstraintSecurityHandler;
import org.eclipse.jetty.security.Constraint;
import org.eclipse.jetty.security.HashLoginService;
import org.eclipse.jetty.security.UserStore;
import org.eclipse.jetty.security.authentication.BasicAuthenticator;
import org.eclipse.jetty.util.security.Credential;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Jetty module records the container's authenticated user as its session's principal by itself: two embedded
 * Jetty nodes over real JGroups channels, {@code /secure} behind BASIC authentication with a {@link HashLoginService};
 * alice logs in on node A and bob on node B, alice's sessions are found from node B through the session admin MBean
 * (her user only, no whole id) and ended there, and her cookie then has no session on either node while bob's
 * session lives on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JettyContainerPrincipalTest {
    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();
    private static final Duration REPLICATION = Duration.ofSeconds(10);
    private static final String[] STRING = {String.class.getName()};
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private TestCluster cluster;

    @AfterEach
    void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** {@code /secure}: the tests' session servlet, for any user that BASIC authentication let in. */
    private static void secure(ServletContextHandler context) {
        context.addServlet(new ServletHolder(new SessionServlet("secure")), "/secure");
        UserStore users = new UserStore();
        users.addUser("alice", Credential.getCredential("alice-pw"), new String[]{"user"});
        users.addUser("bob", Credential.getCredential("bob-pw"), new String[]{"user"});
        HashLoginService login = new HashLoginService("shop");
        login.setUserStore(users);
        ConstraintMapping mapping = new ConstraintMapping();
        mapping.setPathSpec("/secure");
        mapping.setConstraint(Constraint.from("user"));
        ConstraintSecurityHandler security = new ConstraintSecurityHandler();
        security.setAuthenticator(new BasicAuthenticator());
        security.setLoginService(login);
        security.setRealmName("shop");
        security.addConstraintMapping(mapping);
        context.setSecurityHandler(security);
    }

    /** One request; {@code cookie} the session id to send (null: none), {@code user} logs in (null: anonymous). */
    private HttpResponse<String> get(URI uri, String cookie, String user) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
        if (cookie != null) {
            request.header("Cookie", "JSESSIONID=" + cookie);
        }
        if (user != null) {
            String credentials = user + ":" + user + "-pw";
            request.header("Authorization", "Basic "
                    + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Logs {@code user} in on {@code node} and puts a cart in the session it creates; that session's id. */
    private String logIn(JettyNode node, String user, String cart) throws Exception {
        HttpResponse<String> reply = get(node.uri("/secure", "op=set&name=cart&value=" + cart), null, user);
        assertEquals(200, reply.statusCode(), reply.body());
        String setCookie = reply.headers().firstValue("Set-Cookie").orElse(null);
        assertNotNull(setCookie, "the log-in request created a session");
        return setCookie.substring("JSESSIONID=".length(), setCookie.indexOf(';'));
    }

    private static ObjectName mbean(JettyNode node) throws Exception {
        return new ObjectName("sessionrep:cluster=" + node.config.clusterName() + ",context=/,node=" + node.name()
                + ",type=sessions");
    }

    @Test
    void aUserLoggedInOnOneNodeIsFoundAndLoggedOutFromTheOther() throws Exception {
        cluster = TestCluster.start("principal", 2, (i, b) -> b, UnaryOperator.identity(),
                JettyContainerPrincipalTest::secure);
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);
        assertEquals(401, get(a.uri("/secure", "op=get&name=cart"), null, null).statusCode(), "BASIC guards /secure");
        String alices = logIn(a, "alice", "lamp");
        String bobs = logIn(b, "bob", "book");
        HttpResponse<String> anonymous = get(a.uri("op=set&name=cart&value=cup"), null, null);
        assertEquals("ok", anonymous.body());
        await("every session has its backup").atMost(REPLICATION).until(() -> a.replicator().backupCount()
                + b.replicator().backupCount() == 3);

        String found = (String) JMX.invoke(mbean(b), "findSessionsOfPrincipal", new Object[]{"alice"}, STRING);
        String alice = LogIds.shortForm(ReplicationNode.clusterId(alices));
        assertTrue(found.startsWith(alice + " owner=node-a"), found);
        assertTrue(found.contains("principal=alice"), found);
        assertTrue(found.endsWith("1 session(s); answered by node-b, node-a"), found);
        assertFalse(found.contains(ReplicationNode.clusterId(alices)), "no whole id is listed");
        String all = (String) JMX.invoke(mbean(b), "listClusterSessions", new Object[]{0, 10}, new String[]{"int", "int"});
        assertTrue(all.contains("principal=bob") && all.endsWith("3 session(s); answered by node-b, node-a"), all);

        String ended = (String) JMX.invoke(mbean(b), "expireSessionsOfPrincipal", new Object[]{"alice"}, STRING);
        assertTrue(ended.startsWith("1 session(s) invalidated; answered by node-b, node-a"), ended);
        for (JettyNode node : List.of(a, b)) {
            await("alice's session is gone on " + node.name()).atMost(REPLICATION).untilAsserted(() ->
                    assertEquals("no-session", get(node.uri("op=get&name=cart"), alices, null).body()));
        }
        assertEquals("book", get(b.uri("op=get&name=cart"), bobs, null).body(), "bob's session lives on");
        assertTrue(((String) JMX.invoke(mbean(a), "findSessionsOfPrincipal", new Object[]{"alice"}, STRING))
                .startsWith("0 session(s)"));
    }
}
