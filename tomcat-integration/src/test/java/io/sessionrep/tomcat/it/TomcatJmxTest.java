package io.sessionrep.tomcat.it;

import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.JmxMeters;
import io.sessionrep.testsupport.Browser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.ObjectName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The meters as MBeans of the platform MBeanServer (where Tomcat's JMX proxy and jconsole look), with two
 * replicated web applications in one Tomcat: the same node name (the Engine's jvmRoute), clusters of their
 * own.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TomcatJmxTest {
    private static final Duration REPLICATION = Duration.ofSeconds(10);
    private final List<String> clusterNames = new ArrayList<>();
    private TomcatCluster cluster;

    @AfterEach
    void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void eachApplicationHasItsOwnMBeansUntilItStops() throws Exception {
        cluster = TomcatCluster.start("jmx", 2, (i, attributes) -> {
            if (i == 0) {
                clusterNames.add(attributes.get("clusterName")); // ROOT's, then /other's
            }
        }, true, UnaryOperator.identity());
        TomcatNode a = cluster.node(0);
        JmxMeters root = new JmxMeters(clusterNames.get(0), "node-a");
        JmxMeters other = new JmxMeters(clusterNames.get(1), "node-a");
        JmxMeters rootOnB = new JmxMeters(clusterNames.get(0), "node-b");

        assertEquals("ok", new Browser().get(a, "op=set&name=color&value=blue").body());
        await("update sent, seen in JMX").atMost(REPLICATION)
                .until(() -> root.value(ReplicationMetrics.UPDATES_SENT, "kind", "full") == 1);
        assertEquals(1, root.value(ReplicationMetrics.SESSIONS_PRIMARY));
        await("backup on node-b").atMost(REPLICATION)
                .until(() -> rootOnB.value(ReplicationMetrics.SESSIONS_BACKUP) == 1);
        assertEquals(0, other.value(ReplicationMetrics.SESSIONS_PRIMARY), "/other has meters of its own");
        assertEquals(a.count(ReplicationMetrics.BYTES_SENT), root.value(ReplicationMetrics.BYTES_SENT));
        assertEquals(Set.of("/"), contexts(root.names()));
        assertEquals(Set.of("/other"), contexts(other.names()));

        assertEquals("ok", new Browser().get(a.uri("/other", "op=set&name=color&value=red")).body());
        assertEquals(1, other.value(ReplicationMetrics.SESSIONS_PRIMARY));
        assertEquals(1, root.value(ReplicationMetrics.SESSIONS_PRIMARY));

        a.stop();
        assertEquals(Set.of(), root.names(), "stopped applications leave no MBean behind");
        assertEquals(Set.of(), other.names());
        assertFalse(rootOnB.names().isEmpty(), "node-b's stay");
    }

    @Test
    void metricsNoneRegistersNoMBean() throws Exception {
        cluster = TomcatCluster.start("no-jmx", 1, (i, attributes) -> {
            attributes.put("metrics", "none");
            clusterNames.add(attributes.get("clusterName"));
        });
        TomcatNode a = cluster.node(0);
        assertEquals("ok", new Browser().get(a, "op=set&name=color&value=blue").body());
        assertEquals(1, a.replicator().members().size());
        assertTrue(a.manager.getMeterRegistry().find(ReplicationMetrics.SESSIONS_PRIMARY).gauge().value() == 1,
                "still counted, in a registry of the manager's own");
        assertEquals(Set.of(), new JmxMeters(clusterNames.get(0), "node-a").names());
    }

    private static Set<String> contexts(Set<ObjectName> names) {
        Set<String> contexts = new java.util.HashSet<>();
        names.forEach(n -> contexts.add(n.getKeyProperty("context")));
        return contexts;
    }
}
