package io.sessionrep.core;

import io.sessionrep.core.testing.TestSession;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rebalance on membership changes: the write quota is restored without waiting for a request when a backup or
 * a primary leaves, a joining node receives its share and the former backups are released, backup placement
 * across machines (co-location forbidden or used only as a last resort).
 *
 * <p>Part of the replicator contract (fixture: {@link SessionReplicatorContract}), run over the in-memory
 * network ({@code InMemoryReplicatorTest}, test-kit), real JGroups channels
 * ({@code JGroupsReplicatorTest}) and sealed ones ({@code ClusterKeyReplicatorTest}),
 * both in replication-transport.
 */
public abstract class MembershipContract extends SessionReplicatorContract {
    protected MembershipContract(ContractNetwork network) {
        super(network);
    }


    @Test
    void whenABackupLeavesThePrimaryRestoresTheQuotaWithoutWaitingForARequest() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        SessionReplicator c = node("c");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            TestSession s = newSession("s" + i).set("n", i);
            a.requestEnd(s, s.tracker);
            ids.add(s.id());
        }
        settle(a);
        SessionReplicator backupThatStays = c;
        stopNode(b);
        await().atMost(Duration.ofSeconds(20)).until(() -> a.sessionsBelowQuota() == 0
                && ids.stream().allMatch(backupThatStays::hasBackup)); // c is the only other node left
    }

    @Test
    void aJoiningNodeReceivesItsShareAndFormerBackupsAreReleased() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            TestSession s = newSession("s" + i).set("n", i);
            a.requestEnd(s, s.tracker);
            ids.add(s.id());
        }
        settle(a);
        assertEquals(60, b.backupCount());
        SessionReplicator c = node("c");
        // the rebalance is under way as soon as c joined: wait for it to settle (each session's copy moved
        // or stayed, the former backups released), not for the first moment the counts add up
        await().atMost(Duration.ofSeconds(20)).until(() -> c.backupCount() > 10 && b.backupCount() > 10
                && ids.stream().allMatch(id -> b.hasBackup(id) ^ c.hasBackup(id)));
        assertEquals(60, b.backupCount() + c.backupCount(), "share spread: b=" + b.backupCount() + " c=" + c.backupCount());
    }

    @Test
    void whenAPrimaryLeavesItsFirstBackupPromotesItsCopiesAndRestoresTheQuota() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        SessionReplicator c = node("c");
        for (int i = 0; i < 40; i++) {
            TestSession s = newSession("s" + i).set("n", i);
            a.requestEnd(s, s.tracker);
        }
        settle(a);
        stopNode(a);
        await().atMost(Duration.ofSeconds(20)).until(() -> b.primaryCount() + c.primaryCount() == 40
                && b.sessionsBelowQuota() == 0 && c.sessionsBelowQuota() == 0);
        settle(b, c);
        for (int i = 0; i < 40; i++) {
            String id = "s" + i;
            assertTrue(b.isPrimary(id) ^ c.isPrimary(id), id + " has exactly one primary");
            SessionReplicator backup = b.isPrimary(id) ? c : b;
            assertTrue(backup.hasBackup(id), id + " is backed up again");
        }
    }

    @Test
    void colocatedPeersAreNeverUsedWhenColocationIsForbiddenAndTheShortfallIsReported() {
        SessionReplicator a = node("a", o -> o.machineId("host-1").allowColocation(false));
        SessionReplicator b = node("b", o -> o.machineId("host-1").allowColocation(false));
        TestSession s = newSession("s1").set("x", 1);
        a.requestEnd(s, s.tracker);
        settle(a);
        assertFalse(b.hasBackup("s1"));
        assertEquals(1, a.sessionsBelowQuota());
        assertTrue(a.quotaWarning().contains("write-quota 1 cannot be met") && a.quotaWarning().contains("b (same machine-id 'host-1'"),
                a.quotaWarning());
        SessionReplicator c = node("c", o -> o.machineId("host-2").allowColocation(false));
        await().atMost(Duration.ofSeconds(20)).until(() -> c.hasBackup("s1"));
        assertEquals("", a.quotaWarning());
        assertEquals(0, a.sessionsBelowQuota());
    }

    @Test
    void colocatedPeerIsUsedOnlyWhenNoOtherMachineIsAvailable() {
        SessionReplicator a = node("a", o -> o.machineId("host-1"));
        SessionReplicator b = node("b", o -> o.machineId("host-1"));
        SessionReplicator c = node("c", o -> o.machineId("host-2"));
        for (int i = 0; i < 30; i++) {
            TestSession s = newSession("s" + i).set("x", i);
            a.requestEnd(s, s.tracker);
        }
        settle(a);
        assertEquals(30, c.backupCount(), "the other machine is always preferred");
        assertEquals(0, b.backupCount());
    }
}
