package io.sessionrep.jetty.it;

import io.sessionrep.core.LogIds;
import io.sessionrep.core.ReplicationNode;
import io.sessionrep.testsupport.Browser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The session admin MBean ({@code sessionrep:...,type=sessions}) of three embedded Jetty nodes over real JGroups
 * channels: principals set through the explicit API ({@code SessionPrincipals.set}) on sessions of every node, found
 * from a third node, listed without a whole id, invalidated everywhere by principal and by short id.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JettySessionAdminTest {
    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();
    private static final Duration REPLICATION = Duration.ofSeconds(10);
    private static final String[] STRING = {String.class.getName()};
    private TestCluster cluster;

    @AfterEach
    void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static ObjectName mbean(JettyNode node) throws Exception {
        return new ObjectName("sessionrep:cluster=" + node.config.clusterName() + ",context=/,node=" + node.name()
                + ",type=sessions");
    }

    private static String signIn(Browser user, JettyNode node, String name) throws Exception {
        Browser.Reply reply = user.get(node, "op=principal&value=" + name);
        assertEquals("ok", reply.body());
        assertEquals("ok", user.get(node, "op=set&name=cart&value=lamp").body());
        return ReplicationNode.clusterId(reply.setCookie());
    }

    @Test
    void theMBeanFindsAndEndsAPrincipalsSessionsOnEveryNode() throws Exception {
        cluster = TestCluster.start("admin", 3, (i, b) -> b);
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);
        JettyNode c = cluster.node(2);
        Browser danOnA = new Browser();
        Browser danOnB = new Browser();
        Browser eve = new Browser();
        String dan1 = signIn(danOnA, a, "dan");
        String dan2 = signIn(danOnB, b, "dan");
        String eves = signIn(eve, c, "eve");
        await("every session has its backup").atMost(REPLICATION).until(() -> a.replicator().backupCount()
                + b.replicator().backupCount() + c.replicator().backupCount() == 3);

        String dans = (String) JMX.invoke(mbean(c), "findSessionsOfPrincipal", new Object[]{"dan"}, STRING);
        assertTrue(dans.contains(LogIds.shortForm(dan1) + " owner=node-a") && dans.contains(LogIds.shortForm(dan2)
                + " owner=node-b"), dans);
        assertTrue(dans.endsWith("2 session(s); answered by node-c, node-a, node-b"), dans);
        String all = (String) JMX.invoke(mbean(a), "listClusterSessions", new Object[]{0, 10}, new String[]{"int", "int"});
        for (String id : List.of(dan1, dan2, eves)) {
            assertTrue(all.contains(LogIds.shortForm(id)), all);
            assertFalse(all.contains(id) || dans.contains(id), "no whole id is listed");
        }
        assertEquals(Set.of(LogIds.shortForm(dan1)), Set.of(((String) JMX.invoke(mbean(a), "listSessionIds", null, null))));
        assertEquals(1, JMX.getAttribute(mbean(a), "ActiveSessions"));
        assertEquals("lamp", JMX.invoke(mbean(c), "getSessionAttribute", new Object[]{LogIds.shortForm(eves), "cart"},
                new String[]{String.class.getName(), String.class.getName()}));

        String ended = (String) JMX.invoke(mbean(c), "expireSessionsOfPrincipal", new Object[]{"dan"}, STRING);
        assertTrue(ended.startsWith("2 session(s) invalidated; answered by node-c, node-a, node-b"), ended);
        for (JettyNode node : List.of(a, b, c)) {
            await("dan's sessions are gone on " + node.name()).atMost(REPLICATION).untilAsserted(() -> {
                assertEquals("no-session", danOnA.get(node, "op=get&name=cart").body());
                assertEquals("no-session", danOnB.get(node, "op=get&name=cart").body());
            });
        }
        assertTrue(((String) JMX.invoke(mbean(b), "countClusterSessions", null, null)).startsWith("1 sessions;"));

        String one = (String) JMX.invoke(mbean(a), "expireClusterSession", new Object[]{LogIds.shortForm(eves)}, STRING);
        assertTrue(one.startsWith("1 session(s) invalidated"), one);
        await("eve's session is gone").atMost(REPLICATION).untilAsserted(() ->
                assertEquals("no-session", eve.get(b, "op=get&name=cart").body()));
    }
}
