package io.sessionrep.transport.jgroups;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.RestoredSession;
import io.sessionrep.core.SessionEvents;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.testing.TestSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The core engine over real JGroups channels (no container): replication, sync acks, fail-over. */
@Timeout(60)
class ReplicatorOverJGroupsTest {

    @Test
    void syncReplicationIsOnTheBackupWhenRequestEndReturnsAndSurvivesThePrimary() throws Exception {
        try (TestNodes nodes = new TestNodes()) {
            int[] ports = TestNodes.freePorts(2);
            List<SessionReplicator> replicators = new ArrayList<>();
            try {
                for (int i = 0; i < 2; i++) {
                    ReplicationConfig base = nodes.staticNode("n" + i, ports[i], ports[(i + 1) % 2]);
                    ReplicationConfig config = ReplicationConfig.builder().apply(java.util.Map.of())
                            .nodeName(base.nodeName()).machineId(base.machineId()).clusterName(base.clusterName())
                            .bindAddress(base.bindAddress()).bindPort(base.bindPort()).peers(base.peers())
                            .replicationMode(ReplicationMode.SYNC).build();
                    replicators.add(SessionReplicator.start(config, new JGroupsTransport(config),
                            getClass().getClassLoader(), new SimpleMeterRegistry(), SessionEvents.NONE));
                }
                SessionReplicator a = replicators.get(0);
                SessionReplicator b = replicators.get(1);
                await().atMost(Duration.ofSeconds(20)).until(() -> a.members().size() == 2 && b.members().size() == 2);

                TestSession s = new TestSession("sid-1", System.currentTimeMillis());
                for (int i = 1; i <= 50; i++) {
                    s.set("counter", i).set("blob", new byte[5 * 1024]);
                    a.requestEnd(s, s.tracker);
                    assertEquals(i, b.backupVersion("sid-1"), "stored on the backup before requestEnd returned");
                }
                a.close();
                await().atMost(Duration.ofSeconds(10)).until(() -> b.members().size() == 1);
                RestoredSession restored = b.takeOver("sid-1").orElseThrow();
                assertEquals(50, restored.attributes().get("counter"));
                assertTrue(b.isPrimary("sid-1"));
            } finally {
                replicators.forEach(SessionReplicator::close);
            }
        }
    }
}
