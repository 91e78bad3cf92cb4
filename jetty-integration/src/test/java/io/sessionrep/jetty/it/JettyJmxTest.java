package io.sessionrep.jetty.it;

import io.sessionrep.core.config.MetricsExport;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.JmxMeters;
import io.sessionrep.jetty.ReplicatedSessionCacheFactory;
import io.sessionrep.jetty.ReplicatedSessionDataStoreFactory;
import io.sessionrep.testsupport.Browser;
import io.sessionrep.testsupport.SessionServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.session.DefaultSessionIdManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The meters as MBeans of the platform MBeanServer, read as jconsole or Jetty's jmx module would. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JettyJmxTest {
    private static final Duration REPLICATION = Duration.ofSeconds(10);
    private final Browser user = new Browser();
    private TestCluster cluster;
    private Server server;

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void metersAreMBeansWhileTheContextRunsAndGoneWhenItStops() throws Exception {
        cluster = TestCluster.start("jmx", 2, (i, b) -> b);
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);
        JmxMeters jmxA = new JmxMeters(a.config.clusterName(), "node-a");
        JmxMeters jmxB = new JmxMeters(b.config.clusterName(), "node-b");

        assertEquals("ok", user.get(a, "op=set&name=color&value=blue").body());
        await("update sent, seen in JMX").atMost(REPLICATION)
                .until(() -> jmxA.value(ReplicationMetrics.UPDATES_SENT, "kind", "full") == 1);
        assertEquals(1, jmxA.value(ReplicationMetrics.SESSIONS_PRIMARY));
        await("backup held by node-b").atMost(REPLICATION)
                .until(() -> jmxB.value(ReplicationMetrics.SESSIONS_BACKUP) == 1);
        assertEquals(a.count(ReplicationMetrics.BYTES_SENT), jmxA.value(ReplicationMetrics.BYTES_SENT),
                "JMX and the application's registry count the same");
        assertTrue(jmxA.names().stream().allMatch(n -> "/".equals(n.getKeyProperty("context"))),
                jmxA.names().toString());

        a.stop();
        assertEquals(Set.of(), jmxA.names(), "a stopped context leaves no MBean behind");
        assertTrue(jmxB.value(ReplicationMetrics.SESSIONS_BACKUP) >= 0, "node-b's MBeans stay");
        b.stop();
        assertEquals(Set.of(), jmxB.names());
    }

    @Test
    void metricsNoneRegistersNoMBean() throws Exception {
        cluster = TestCluster.start("no-jmx", 2, (i, b) -> b.metrics(MetricsExport.NONE));
        JettyNode a = cluster.node(0);
        assertEquals("ok", user.get(a, "op=set&name=color&value=blue").body());
        await("update sent").atMost(REPLICATION).until(() -> a.count(ReplicationMetrics.UPDATES_SENT) == 1);
        assertEquals(Set.of(), new JmxMeters(a.config.clusterName(), "node-a").names());
        assertEquals(Set.of(), new JmxMeters(a.config.clusterName(), "node-b").names());
    }

    /** As the Jetty module installs it: factories as server beans, no registry of the application's. */
    @Test
    void theModulesFactoryExportsToJmxByDefault() throws Exception {
        String clusterName = "jmx-module-" + UUID.randomUUID().toString().substring(0, 8);
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        DefaultSessionIdManager ids = new DefaultSessionIdManager(server);
        ids.setWorkerName("node-m");
        server.addBean(ids, true);
        server.addBean(new ReplicatedSessionCacheFactory());
        ReplicatedSessionDataStoreFactory store = new ReplicatedSessionDataStoreFactory();
        store.setOption("cluster-name", clusterName);
        store.setOption("bind-address", "127.0.0.1");
        store.setOption("metrics", null); // what etc/sessionrep.xml passes when sessionrep.metrics is not set
        store.validate();
        server.addBean(store);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.SESSIONS);
        context.setContextPath("/shop");
        context.addServlet(new ServletHolder(new SessionServlet("node-m")), "/session");
        server.setHandler(context);
        server.start();

        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + connector.getLocalPort() + "/shop/session?op=set&name=color&value=blue")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals("ok", response.body());
        JmxMeters jmx = new JmxMeters(clusterName, "node-m");
        assertEquals(1, jmx.value(ReplicationMetrics.SESSIONS_PRIMARY));
        assertTrue(jmx.names().stream().allMatch(n -> "/shop".equals(n.getKeyProperty("context"))),
                jmx.names().toString());

        server.stop();
        assertEquals(Set.of(), jmx.names());
    }
}
