package io.sessionrep.jetty.it;

import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.config.ReplicationTrigger;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.testsupport.Browser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** replication-trigger in a real Jetty over real JGroups: when state reaches the backup. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class JettyTriggerTest {
    private final Browser user = new Browser();
    private TestCluster cluster;

    @AfterEach
    void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void onShutdownSendsNothingUntilAnOrderlyStopHandsTheSessionsOver() throws Exception {
        cluster = TestCluster.start("on-shutdown", 2,
                (i, b) -> b.replicationTrigger(ReplicationTrigger.ON_SHUTDOWN));
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);
        assertEquals("ok", user.get(a, "op=set&name=color&value=blue").body());
        assertEquals("ok", user.get(a, "op=set&name=color&value=green").body());
        String id = user.sessionId();
        Thread.sleep(300); // give a (wrong) request-end replication the time to arrive; nothing must come
        assertFalse(b.hasLocalCopy(id), "nothing is replicated while node-a runs");

        a.stop(); // orderly: the live session is handed to its backup before node-a leaves

        assertEquals("green", user.get(b, "op=get&name=color").body());
    }

    @Test
    void onAttributeModifyReplicatesEachSetAttributeBeforeItReturns() throws Exception {
        cluster = TestCluster.start("on-attribute-modify", 2, (i, b) -> b
                .replicationTrigger(ReplicationTrigger.ON_ATTRIBUTE_MODIFY).replicationMode(ReplicationMode.SYNC));
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);
        assertEquals("ok", user.get(a, "op=fill&number=3&size=100").body());
        String id = user.sessionId();
        // one replication per setAttribute (3), acknowledged before each call returned; none left for request end
        assertEquals(3, a.count(ReplicationMetrics.UPDATES_SENT));
        assertEquals(3, b.replicator().backupVersion(id));
        assertTrue(a.count(ReplicationMetrics.SYNC_TIMEOUTS) == 0);
    }
}
