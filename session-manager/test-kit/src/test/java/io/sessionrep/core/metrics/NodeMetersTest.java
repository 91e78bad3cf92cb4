package io.sessionrep.core.metrics;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.SessionEvents;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.MetricsExport;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.InMemoryNetwork;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The registry of a container install, against the JVM's real platform MBeanServer. */
class NodeMetersTest {
    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();
    private final String cluster = "meters-" + UUID.randomUUID().toString().substring(0, 8);

    private ReplicationConfig config(String node, MetricsExport export) {
        return ReplicationConfig.builder().nodeName(node).clusterName(cluster).metrics(export).build();
    }

    private Set<ObjectName> mbeans() throws Exception {
        return JMX.queryNames(new ObjectName("sessionrep:cluster=" + cluster + ",*"), null);
    }

    private static ObjectName name(String text) throws Exception {
        return new ObjectName(text);
    }

    @Test
    void jmxByDefaultOneMBeanPerMeterNamedByClusterContextNodeAndMeter() throws Exception {
        try (NodeMeters meters = NodeMeters.open(config("node-a", MetricsExport.JMX), "/shop", null)) {
            ReplicationMetrics metrics = new ReplicationMetrics(meters.registry(), "node-a");
            metrics.fullSent.increment();
            metrics.fullSent.increment();
            metrics.gauge(ReplicationMetrics.SESSIONS_PRIMARY, () -> 7);

            String prefix = "sessionrep:cluster=" + cluster + ",context=/shop,node=node-a,name=";
            assertEquals(2L, JMX.getAttribute(
                    name(prefix + "sessionrep.replication.updates.sent,kind=full,type=meters"), "Count"));
            assertEquals(7, ((Number) JMX.getAttribute(name(prefix + "sessionrep.sessions.primary,type=gauges"),
                    "Value")).intValue());
            assertTrue(JMX.isRegistered(name(prefix + "sessionrep.request.end,type=timers")));
            assertTrue(JMX.isRegistered(
                    name(prefix + "sessionrep.messages.rejected,reason=class-not-allowed,type=meters")));
            assertEquals(meters.registry().getMeters().size(), mbeans().size(), "one MBean per meter: " + mbeans());
            assertTrue(mbeans().size() > 20, mbeans().toString());

            metrics.close();
            assertEquals(Set.of(), mbeans(), "closing the node's metrics unregisters its MBeans");
        }
    }

    @Test
    void theApplicationsRegistryGetsTheMetersAsTheyAreAndJmxToo() throws Exception {
        SimpleMeterRegistry application = new SimpleMeterRegistry();
        NodeMeters meters = NodeMeters.open(config("node-a", MetricsExport.JMX), "", application);
        ReplicationMetrics metrics = new ReplicationMetrics(meters.registry(), "node-a");
        metrics.deltaSent.increment();
        assertEquals(1, application.find(ReplicationMetrics.UPDATES_SENT).tags("kind", "delta").counter().count());
        assertEquals(1, application.find(ReplicationMetrics.UPDATES_SENT).counters().iterator().next().getId()
                .getTags().stream().filter(t -> !t.getKey().equals("kind")).count(), "only the node tag, no JMX keys");
        assertEquals(1L, JMX.getAttribute(name("sessionrep:cluster=" + cluster + ",context=/,node=node-a"
                + ",name=sessionrep.replication.updates.sent,kind=delta,type=meters"), "Count"), "root context is /");

        metrics.close();
        meters.close();
        assertTrue(application.getMeters().isEmpty(), "removed from the application's registry too");
        assertTrue(!application.isClosed(), "the application's registry stays open");
        assertEquals(Set.of(), mbeans());
    }

    @Test
    void noneExportsNothing() throws Exception {
        SimpleMeterRegistry application = new SimpleMeterRegistry();
        try (NodeMeters meters = NodeMeters.open(config("node-a", MetricsExport.NONE), "/shop", application)) {
            assertSame(application, meters.registry());
            new ReplicationMetrics(meters.registry(), "node-a").fullSent.increment();
            assertEquals(Set.of(), mbeans());
        }
        try (NodeMeters meters = NodeMeters.open(config("node-a", MetricsExport.NONE), "/shop", null)) {
            new ReplicationMetrics(meters.registry(), "node-a").fullSent.increment();
            assertEquals(1, meters.registry().find(ReplicationMetrics.UPDATES_SENT).tags("kind", "full").counter()
                    .count(), "still readable");
            assertEquals(Set.of(), mbeans());
        }
    }

    @Test
    void twoApplicationsOfOneNodeDoNotCollideAndStopIndependently() throws Exception {
        NodeMeters shop = NodeMeters.open(config("node-a", MetricsExport.JMX), "/shop", null);
        NodeMeters admin = NodeMeters.open(config("node-a", MetricsExport.JMX), "/admin", null);
        ReplicationMetrics shopMetrics = new ReplicationMetrics(shop.registry(), "node-a");
        new ReplicationMetrics(admin.registry(), "node-a");
        shopMetrics.fullSent.increment();
        int perNode = shop.registry().getMeters().size();
        assertEquals(2 * perNode, mbeans().size());
        String meter = ",node=node-a,name=sessionrep.replication.updates.sent,kind=full,type=meters";
        assertEquals(1L, JMX.getAttribute(name("sessionrep:cluster=" + cluster + ",context=/shop" + meter), "Count"));
        assertEquals(0L, JMX.getAttribute(name("sessionrep:cluster=" + cluster + ",context=/admin" + meter), "Count"));

        shop.close();
        assertEquals(perNode, mbeans().size());
        assertTrue(mbeans().stream().allMatch(n -> n.getKeyProperty("context").equals("/admin")), mbeans().toString());
        admin.close();
        assertEquals(Set.of(), mbeans());
    }

    /** A misconfiguration (same cluster, context and node twice in one JVM): the first keeps its MBeans. */
    @Test
    void aSecondApplicationWithTheSameNamesDoesNotTakeOverNorRemoveTheFirstsMBeans() throws Exception {
        NodeMeters first = NodeMeters.open(config("node-a", MetricsExport.JMX), "/shop", null);
        ReplicationMetrics firstMetrics = new ReplicationMetrics(first.registry(), "node-a");
        firstMetrics.fullSent.increment();
        int perNode = mbeans().size();
        NodeMeters second = NodeMeters.open(config("node-a", MetricsExport.JMX), "/shop", null); // logs a warning
        ReplicationMetrics secondMetrics = new ReplicationMetrics(second.registry(), "node-a");
        secondMetrics.fullSent.increment();
        secondMetrics.fullSent.increment();
        ObjectName full = name("sessionrep:cluster=" + cluster + ",context=/shop,node=node-a"
                + ",name=sessionrep.replication.updates.sent,kind=full,type=meters");
        assertEquals(1L, JMX.getAttribute(full, "Count"), "still the first one's");

        secondMetrics.close();
        second.close();
        assertEquals(perNode, mbeans().size(), "closing the second leaves the first's MBeans");
        assertEquals(1L, JMX.getAttribute(full, "Count"));
        first.close();
        assertEquals(Set.of(), mbeans());
    }

    @Test
    void valuesThatNeedQuotingAreQuoted() throws Exception {
        ReplicationConfig config = ReplicationConfig.builder().nodeName("node-a").clusterName(cluster + ",x=1")
                .build();
        try (NodeMeters meters = NodeMeters.open(config, "/a:b", null)) {
            new ReplicationMetrics(meters.registry(), "node-a");
            Set<ObjectName> names = JMX.queryNames(new ObjectName("sessionrep:node=node-a,*"), null).stream()
                    .filter(n -> n.getKeyProperty("cluster").equals(ObjectName.quote(cluster + ",x=1"))).collect(
                            java.util.stream.Collectors.toSet());
            assertEquals(meters.registry().getMeters().size(), names.size(), names.toString());
            assertTrue(names.stream().allMatch(n -> ObjectName.unquote(n.getKeyProperty("context")).equals("/a:b")));
        }
    }

    @Test
    void aStoppedReplicatorLeavesNoMeterBehind() throws Exception {
        ReplicationConfig config = config("node-a", MetricsExport.JMX);
        SimpleMeterRegistry application = new SimpleMeterRegistry();
        try (NodeMeters meters = NodeMeters.open(config, "/shop", application)) {
            SessionReplicator replicator = SessionReplicator.start(config,
                    new InMemoryNetwork().transport("node-a", "machine-a"), getClass().getClassLoader(),
                    meters.registry(), SessionEvents.NONE);
            ObjectName primary = name("sessionrep:cluster=" + cluster
                    + ",context=/shop,node=node-a,name=sessionrep.sessions.primary,type=gauges");
            assertEquals(0, ((Number) JMX.getAttribute(primary, "Value")).intValue());
            replicator.close();
            assertEquals(Set.of(), mbeans(), "the gauges would keep the stopped node reachable");
            assertTrue(application.getMeters().isEmpty(), application.getMeters().toString());
        }
    }

    @Test
    void aTimersPercentilesInJmxAreThoseOfItsLatestRecordings() throws Exception {
        try (NodeMeters meters = NodeMeters.open(config("node-a", MetricsExport.JMX), "/shop", null)) {
            ReplicationMetrics metrics = new ReplicationMetrics(meters.registry(), "node-a");
            for (int i = 0; i < 5 * JmxExport.TIMER_SAMPLES; i++) {
                metrics.requestEnd.record(1, TimeUnit.MILLISECONDS); // an old, fast period
            }
            for (int i = 0; i < JmxExport.TIMER_SAMPLES; i++) {
                metrics.requestEnd.record(40, TimeUnit.MILLISECONDS); // the latest recordings, slow
            }

            ObjectName timer = name("sessionrep:cluster=" + cluster
                    + ",context=/shop,node=node-a,name=sessionrep.request.end,type=timers");
            assertEquals(6L * JmxExport.TIMER_SAMPLES, JMX.getAttribute(timer, "Count"));
            assertEquals(40.0, (Double) JMX.getAttribute(timer, "50thPercentile"), 0.01, "in milliseconds");
            assertEquals(40.0, (Double) JMX.getAttribute(timer, "Min"), 0.01, "the old period has left the window");
            metrics.close();
        }
    }

    @Test
    void theReadinessIsAnMBeanBesideTheMetersUntilClosedAndNoneWithoutJmx() throws Exception {
        java.util.concurrent.atomic.AtomicReference<io.sessionrep.core.Readiness> now =
                new java.util.concurrent.atomic.AtomicReference<>(io.sessionrep.core.Readiness.notReady(
                        "restoring write-quota 1 after the last view change"));
        ObjectName readiness = name("sessionrep:cluster=" + cluster + ",context=/shop,node=node-a,type=readiness");
        try (NodeMeters meters = NodeMeters.open(config("node-a", MetricsExport.JMX), "/shop", null)) {
            meters.exportReadiness(now::get);
            assertEquals(false, JMX.getAttribute(readiness, "Ready"));
            assertEquals("restoring write-quota 1 after the last view change",
                    JMX.getAttribute(readiness, "NotReadyReasons"));
            now.set(io.sessionrep.core.Readiness.READY);
            assertEquals(true, JMX.getAttribute(readiness, "Ready"), "asked at each read");
            assertEquals("", JMX.getAttribute(readiness, "NotReadyReasons"));
        }
        assertEquals(Set.of(), mbeans(), "closing unregisters it");
        try (NodeMeters meters = NodeMeters.open(config("node-a", MetricsExport.NONE), "/shop", null)) {
            meters.exportReadiness(now::get);
            assertEquals(Set.of(), mbeans(), "metrics=none: no MBean at all");
        }
    }
}
