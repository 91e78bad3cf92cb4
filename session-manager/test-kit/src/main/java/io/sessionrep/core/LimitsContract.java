package io.sessionrep.core;

import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a node refuses or does not send, and keeps working: classes outside the serialization allowlist,
 * malformed messages, sessions over max-session-size, a backup over max-backup-bytes, write-quota 0.
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

    /**
     * A backup that holds its max-backup-bytes refuses new copies; the primary must hear of it (else it counts
     * the session as backed up while no copy exists) and the backup must get the copy once it has room.
     */
    @ParameterizedTest
    @EnumSource(ReplicationMode.class)
    void aBackupOverMaxBackupBytesRefusesACopyAndThePrimaryCountsItUntilTheBackupHoldsOne(ReplicationMode mode) {
        SessionReplicator a = node("a", o -> o.replicationMode(mode));
        SessionReplicator b = node("b", o -> o.maxBackupBytes(1024 * 1024));
        TestSession filler = newSession("s0").set("data", new byte[700 * 1024]);
        a.requestEnd(filler, filler.tracker);
        TestSession s = newSession("s1").set("data", new byte[600 * 1024]);
        a.requestEnd(s, s.tracker);
        settle(a, b);
        assertTrue(b.hasBackup("s0"));
        assertFalse(b.hasBackup("s1"), "s1 does not fit beside s0 in b's 1 MiB");
        assertEquals(1, counter(ReplicationMetrics.BACKUPS_REFUSED, "b"));
        assertEquals(1, counter(ReplicationMetrics.COPIES_REFUSED, "a"), "the primary heard of the refusal");
        assertEquals(1, a.sessionsBelowQuota(), "s1 has no copy anywhere but on its primary");
        assertEquals(mode == ReplicationMode.SYNC ? 1 : 0, counter(ReplicationMetrics.SYNC_TIMEOUTS, "a"),
                "sync: a request whose only backup refused was not acknowledged, and is counted so");

        a.invalidate("s0"); // b drops its copy: room for s1
        s.set("user", "alice");
        a.requestEnd(s, s.tracker);
        settle(a, b, a); // async: b asks for a full copy (Resync), a sends it
        assertTrue(b.hasBackup("s1"));
        assertEquals(0, a.sessionsBelowQuota(), "b holds s1 now");
        assertEquals(1, counter(ReplicationMetrics.COPIES_REFUSED, "a"));
        stopNode(a);
        RestoredSession restored = b.takeOver("s1").orElseThrow();
        assertEquals("alice", restored.attributes().get("user"));
    }

    /** Sync with two backups: the request is acknowledged once one of them applied it, whatever the other says. */
    @Test
    void aSyncRequestWithTwoBackupsIsAcknowledgedByTheOneThatAppliedIt() {
        SessionReplicator a = node("a", o -> o.replicationMode(ReplicationMode.SYNC).writeQuota(2));
        SessionReplicator b = node("b", o -> o.maxBackupBytes(1024 * 1024));
        SessionReplicator c = node("c");
        TestSession filler = newSession("s0").set("data", new byte[700 * 1024]); // both hold it
        a.requestEnd(filler, filler.tracker);
        TestSession s = newSession("s1").set("data", new byte[600 * 1024]); // does not fit beside s0 in b's 1 MiB
        a.requestEnd(s, s.tracker);
        settle(a, b, c);
        assertFalse(b.hasBackup("s1"));
        assertTrue(c.hasBackup("s1"));
        assertEquals(0, counter(ReplicationMetrics.SYNC_TIMEOUTS, "a"), "c applied s1: acknowledged");

        stopNode(c);
        TestSession t = newSession("s2").set("data", new byte[600 * 1024]);
        a.requestEnd(t, t.tracker); // b alone is left, and it refuses
        assertEquals(1, counter(ReplicationMetrics.SYNC_TIMEOUTS, "a"), "no backup applied s2: counted");
    }

    @Test
    void aRefusalFromANodeThatIsNotTheSessionsBackupIsIgnored() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        SessionReplicator c = node("c");
        aliceReplicatedBy(a);
        SessionReplicator backup = b.hasBackup("s1") ? b : c; // write-quota 1: one of them holds the copy
        SessionReplicator other = backup == b ? c : b;
        byte[] refused = WireCodec.encode(new Message.Refused("s1"));
        transports.get(other.nodeName()).send(member(other, "a"), refused);
        settle(other);
        assertEquals(0, counter(ReplicationMetrics.COPIES_REFUSED, "a"), "only a backup of s1 can refuse it");
        assertEquals(0, a.sessionsBelowQuota());
        transports.get(backup.nodeName()).send(member(backup, "a"), refused); // the same message from the backup counts
        settle(backup);
        assertEquals(1, counter(ReplicationMetrics.COPIES_REFUSED, "a"));
        assertEquals(1, a.sessionsBelowQuota());
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
