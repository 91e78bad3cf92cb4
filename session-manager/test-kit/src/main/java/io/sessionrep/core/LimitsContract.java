package io.sessionrep.core;

import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.TestSession;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a node refuses or does not send, and keeps working: classes outside the serialization allowlist,
 * malformed messages, sessions over max-session-size, write-quota 0.
 *
 * <p>Part of the replicator contract (fixture: {@link SessionReplicatorContract}), run over the in-memory
 * network ({@code InMemoryReplicatorTest}, test-kit), real JGroups channels
 * ({@code JGroupsReplicatorTest}) and sealed ones ({@code ClusterKeyReplicatorTest}),
 * both in replication-transport.
 */
public abstract class LimitsContract extends SessionReplicatorContract {
    protected LimitsContract(ContractNetwork network) {
        super(network);
    }


    /** Serializable, but in a package the receiving node does not allow. */
    record Gadget(String payload) implements java.io.Serializable {
    }

    @Test
    void classOutsideTheAllowlistIsRefusedAndCountedAndTheRestArrives() {
        SessionReplicator a = node("a", o -> o.serializationAllowlist(List.of("io.sessionrep.")));
        SessionReplicator b = node("b"); // allows only the JDK types
        TestSession s = newSession("s1").set("user", "alice").set("gadget", new Gadget("x"));
        a.requestEnd(s, s.tracker);
        settle(a);
        assertEquals(1, counter(ReplicationMetrics.REJECTED, "b"));
        stopNode(a);
        RestoredSession restored = b.takeOver("s1").orElseThrow();
        assertEquals("alice", restored.attributes().get("user"));
        assertFalse(restored.attributes().containsKey("gadget"));
    }

    @Test
    void malformedMessagesAreCountedAndTheNodeKeepsWorking() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        transports.get("a").send(member(a, "b"), new byte[] {0x53, 2, 1, 0, 0, 0, 9});
        transports.get("a").send(member(a, "b"), new byte[] {1, 2, 3});
        settle(a, b);
        assertEquals(2, counter(ReplicationMetrics.REJECTED, "b"));
        TestSession s = newSession("s1").set("x", 1);
        a.requestEnd(s, s.tracker);
        settle(a);
        assertEquals(1, b.backupVersion("s1"));
    }

    @Test
    void sessionsOverMaxSizeAreNotReplicatedButTheRequestSucceeds() {
        SessionReplicator a = node("a", o -> o.maxSessionSize(4096));
        SessionReplicator b = node("b");
        TestSession s = newSession("s1").set("big", new byte[8192]);
        a.requestEnd(s, s.tracker);
        settle(a);
        assertEquals(1, counter(ReplicationMetrics.TOO_LARGE, "a"));
        assertFalse(b.hasBackup("s1"));
        s.set("big", new byte[100]);
        a.requestEnd(s, s.tracker);
        settle(a);
        assertTrue(b.hasBackup("s1"));
    }

    @Test
    void writeQuotaZeroReplicatesNothing() {
        SessionReplicator a = node("a", o -> o.writeQuota(0));
        SessionReplicator b = node("b");
        TestSession s = newSession("s1").set("x", 1);
        a.requestEnd(s, s.tracker);
        settle(a);
        assertFalse(b.hasBackup("s1"));
    }
}
