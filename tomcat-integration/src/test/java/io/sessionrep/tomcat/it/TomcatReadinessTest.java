package io.sessionrep.tomcat.it;

import io.sessionrep.testsupport.Browser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The readiness of a Tomcat node: the endpoint ({@code ReadinessServlet} mapped at {@code /ready}, finding the
 * manager's node through the servlet context), the manager's MBean attributes {@code ready} and
 * {@code notReadyReasons}, and the readiness MBean of domain sessionrep. Not ready while a configured peer is up
 * but not in the view (here a plain server socket), ready once it is gone.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TomcatReadinessTest {
    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();
    private TomcatCluster cluster;

    @AfterEach
    void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void notReadyWhileAConfiguredPeerIsUpButNotInTheViewThenReady() throws Exception {
        String[] clusterName = new String[1];
        try (ServerSocket stranger = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String peer = "127.0.0.1:" + stranger.getLocalPort();
            cluster = TomcatCluster.start("ready", 1, (i, attributes) -> {
                attributes.put("peers", attributes.get("peers") + "," + peer);
                clusterName[0] = attributes.get("clusterName");
            });
            TomcatNode a = cluster.node(0);
            ObjectName manager = new ObjectName(a.jmxDomain() + ":type=Manager,host=localhost,context=/");
            ObjectName readiness = new ObjectName("sessionrep:cluster=" + clusterName[0]
                    + ",context=/,node=node-a,type=readiness");
            String reason = "configured peer " + peer + " is up (accepts connections) but not in this node's view";

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                Browser.Reply reply = new Browser().get(a.readyUri());
                assertEquals(503, reply.status(), reply.body());
                assertEquals("not ready\n" + reason + "\n", reply.body());
            });
            assertEquals(false, JMX.getAttribute(manager, "ready"));
            assertEquals(reason, JMX.getAttribute(manager, "notReadyReasons"));
            assertEquals(false, JMX.getAttribute(readiness, "Ready"));
            assertEquals(reason, JMX.getAttribute(readiness, "NotReadyReasons"));
        }

        TomcatNode a = cluster.node(0);
        await("ready once the peer's port refuses").atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            Browser.Reply reply = new Browser().get(a.readyUri());
            assertEquals(200, reply.status(), reply.body());
            assertEquals("ready\n", reply.body());
        });
        ObjectName manager = new ObjectName(a.jmxDomain() + ":type=Manager,host=localhost,context=/");
        ObjectName readiness = new ObjectName("sessionrep:cluster=" + clusterName[0]
                + ",context=/,node=node-a,type=readiness");
        assertEquals(true, JMX.getAttribute(manager, "ready"));
        assertEquals("", JMX.getAttribute(manager, "notReadyReasons"));
        assertEquals(true, JMX.getAttribute(readiness, "Ready"));
        assertEquals("", JMX.getAttribute(readiness, "NotReadyReasons"));

        a.stop();
        assertFalse(JMX.isRegistered(readiness), "unregistered when the application stops");
    }

    @Test
    void twoNodesWithAReplicatedSessionAreReady() throws Exception {
        cluster = TomcatCluster.start("ready-two", 2, (i, attributes) -> { });
        TomcatNode a = cluster.node(0);
        assertEquals("ok", new Browser().get(a, "op=set&name=color&value=blue").body());
        await().atMost(Duration.ofSeconds(10)).until(() -> new Browser().get(a.readyUri()).status() == 200
                && new Browser().get(cluster.node(1).readyUri()).status() == 200);
        assertTrue(a.manager.isReady());
        assertEquals(1, a.replicator().primaryCount());
    }
}
