package io.sessionrep.tomcat.it;

import io.sessionrep.core.ClusterAnswer;
import io.sessionrep.core.LogIds;
import io.sessionrep.core.ReplicationNode;
import io.sessionrep.core.SessionAdmin;
import io.sessionrep.core.SessionRow;
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
import java.util.stream.Collectors;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operator's session operations on two Tomcat nodes over real JGroups channels: sessions whose principal is the
 * container's (a request authenticated as a user) on both nodes, found from either node and through the manager's
 * MBean, listed without a whole id, invalidated everywhere by principal (the next request with such a cookie gets no
 * session on either node) and by short id; a principal survives the fail-over of its session's owner.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TomcatSessionAdminTest {
    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();
    private static final Duration REPLICATION = Duration.ofSeconds(10);
    private TomcatCluster cluster;

    @AfterEach
    void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static String login(Browser user, TomcatNode node, String name) throws Exception {
        Browser.Reply reply = user.get(node, "op=set&name=cart&value=book&as-user=" + name);
        assertEquals("ok", reply.body());
        return ReplicationNode.clusterId(reply.setCookie());
    }

    @Test
    void aPrincipalsSessionsAreFoundFromEitherNodeAndInvalidatedEverywhere() throws Exception {
        cluster = TomcatCluster.start("admin", 2, (i, attributes) -> { });
        TomcatNode a = cluster.node(0);
        TomcatNode b = cluster.node(1);
        Browser annOnA = new Browser();
        Browser annOnB = new Browser();
        Browser bob = new Browser();
        String ann1 = login(annOnA, a, "ann");
        String ann2 = login(annOnB, b, "ann");
        String bobs = login(bob, a, "bob");
        await("every session has its backup").atMost(REPLICATION).until(() ->
                a.replicator().backupCount() + b.replicator().backupCount() == 3);

        for (TomcatNode from : List.of(a, b)) {
            ClusterAnswer<List<SessionRow>> anns = from.manager.sessionAdmin().sessionsOf("ann", 100);
            assertTrue(anns.complete(), anns.coverage());
            assertEquals(Set.of(LogIds.shortForm(ann1), LogIds.shortForm(ann2)),
                    anns.result().stream().map(SessionRow::shortId).collect(Collectors.toSet()));
            assertEquals(Set.of("node-a", "node-b"), anns.result().stream().map(SessionRow::owner).collect(Collectors.toSet()));
            for (SessionRow row : anns.result()) {
                assertEquals("ann", row.principal());
                assertEquals(1, row.backups().size(), row.toString());
                assertTrue(row.sizeBytes() > 0, row.toString());
            }
        }
        ObjectName managerA = new ObjectName(a.jmxDomain() + ":type=Manager,host=localhost,context=/");
        ObjectName managerB = new ObjectName(b.jmxDomain() + ":type=Manager,host=localhost,context=/");
        String listed = (String) JMX.invoke(managerA, "listClusterSessions", new Object[]{0, 100},
                new String[]{"int", "int"});
        assertTrue(listed.startsWith(LogIds.shortForm(bobs) + " owner=node-a"), "newest first: " + listed);
        assertTrue(listed.contains("3 session(s); answered by node-a, node-b"), listed);
        String localIds = (String) JMX.invoke(managerA, "listSessionIds", null, null);
        assertEquals(Set.of(LogIds.shortForm(ann1), LogIds.shortForm(bobs)), Set.of(localIds.split(" ")));
        for (String id : List.of(ann1, ann2, bobs)) {
            assertFalse(listed.contains(id) || localIds.contains(id), "no whole id is listed");
        }
        assertEquals("book", JMX.invoke(managerA, "getSessionAttribute", new Object[]{LogIds.shortForm(bobs), "cart"},
                new String[]{String.class.getName(), String.class.getName()}));
        assertEquals("3 sessions; answered by node-b, node-a", JMX.invoke(managerB, "countClusterSessions", null, null));

        String ended = (String) JMX.invoke(managerB, "expireSessionsOfPrincipal", new Object[]{"ann"},
                new String[]{String.class.getName()});
        assertTrue(ended.startsWith("2 session(s) invalidated"), ended);
        for (TomcatNode node : List.of(a, b)) {
            await("ann's sessions are gone on " + node.name()).atMost(REPLICATION).untilAsserted(() -> {
                assertEquals("no-session", annOnA.get(node, "op=get&name=cart").body());
                assertEquals("no-session", annOnB.get(node, "op=get&name=cart").body());
            });
        }
        assertEquals("book", bob.get(b, "op=get&name=cart").body(), "bob's session lives on (moved to node-b)");
        assertEquals(1, b.manager.sessionAdmin().count().result());

        JMX.invoke(managerA, "expireSession", new Object[]{LogIds.shortForm(bobs)}, new String[]{String.class.getName()});
        await("bob's session is gone").atMost(REPLICATION).untilAsserted(() ->
                assertEquals("no-session", bob.get(a, "op=get&name=cart").body()));
        assertEquals(0, a.manager.sessionAdmin().count().result());
    }

    @Test
    void thePrincipalSurvivesTheFailOverOfItsOwner() throws Exception {
        cluster = TomcatCluster.start("admin-failover", 2, (i, attributes) -> { });
        TomcatNode a = cluster.node(0);
        TomcatNode b = cluster.node(1);
        Browser carol = new Browser();
        String id = login(carol, a, "carol");
        await("backup on node-b").atMost(REPLICATION).until(() -> b.replicator().hasBackup(id));
        a.stop();

        SessionAdmin fromB = b.manager.sessionAdmin();
        await("node-a left").atMost(REPLICATION).until(() -> fromB.count().answered().equals(List.of("node-b")));
        List<SessionRow> carols = fromB.sessionsOf("carol", 10).result();
        assertEquals(1, carols.size(), carols.toString());
        assertEquals(LogIds.shortForm(id), carols.get(0).shortId());
        assertEquals("book", carol.get(b, "op=get&name=cart").body(), "taken over by node-b");
        SessionRow owned = fromB.sessionsOf("carol", 10).result().get(0);
        assertEquals("node-b", owned.owner());
        assertEquals(1, fromB.invalidateSessionsOf("carol").result());
        assertEquals("no-session", carol.get(b, "op=get&name=cart").body());
        assertNull(fromB.attribute(LogIds.shortForm(id), "cart"));
    }
}
