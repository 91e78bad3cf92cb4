package io.sessionrep.core;

import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The end of a session: invalidation removes every copy (late updates do not resurrect it) and evicts the live
 * copy on the other nodes; sessions orphaned by a departed primary expire with the replicated last access
 * time.
 *
 * <p>Part of the replicator contract (fixture: {@link SessionReplicatorContract}), run over the in-memory
 * network ({@code InMemoryReplicatorTest}, test-kit), real JGroups channels
 * ({@code JGroupsReplicatorTest}) and sealed ones ({@code ClusterKeyReplicatorTest}),
 * both in replication-transport.
 */
public abstract class InvalidationExpiryContract extends SessionReplicatorContract {
    protected InvalidationExpiryContract(ContractNetwork network) {
        super(network);
    }


    @Test
    void invalidationRemovesEveryCopyAndLateUpdatesDoNotResurrect() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        SessionReplicator c = node("c");
        aliceReplicatedBy(a);
        a.invalidate("s1");
        settle(a, b, c);
        for (SessionReplicator n : List.of(a, b, c)) {
            assertFalse(n.hasLocalCopy("s1"), n.nodeName());
            assertEquals(Optional.empty(), n.takeOver("s1"), n.nodeName());
        }
        // a late full copy (duplicated or reordered on the network) arrives after the invalidation
        byte[] late = WireCodec.encode(new Message.Update(new io.sessionrep.core.delta.SessionUpdate("s1", 0, 5, true,
                0, 0, 1800, Map.of("user", new byte[] {1}), java.util.Set.of()), false));
        transports.get("a").send(member(a, "b"), late);
        settle(a, b, c);
        assertFalse(b.hasLocalCopy("s1"));
    }

    /** Sync mode: the backups get the invalidation over the direct path when there is one, the others over the channel. */
    @Test
    void inSyncModeAnInvalidationRemovesTheCopiesOfBackupsAndOfNodesThatHoldNone() {
        SessionReplicator a = node("a", o -> o.replicationMode(io.sessionrep.core.config.ReplicationMode.SYNC));
        SessionReplicator b = node("b", o -> o.replicationMode(io.sessionrep.core.config.ReplicationMode.SYNC));
        SessionReplicator c = node("c", o -> o.replicationMode(io.sessionrep.core.config.ReplicationMode.SYNC));
        TestSession s = newSession("s1").set("user", "alice");
        a.requestEnd(s, s.tracker);
        assertEquals(1, (b.hasBackup("s1") ? 1 : 0) + (c.hasBackup("s1") ? 1 : 0), "write-quota 1: one backup");
        a.invalidate("s1");
        settle(a, b, c);
        for (SessionReplicator n : List.of(a, b, c)) {
            assertFalse(n.hasLocalCopy("s1"), n.nodeName());
            assertEquals(Optional.empty(), n.takeOver("s1"), n.nodeName() + ": invalidated, not brought back");
        }
    }

    /**
     * The request end and the backup look an id up in the tombstones only for a session without a primary entry
     * or a held copy there: that relies on every invalidation dropping both, wherever it started, and on the
     * lookup still being made once the entry is gone.
     */
    @Test
    void invalidationElsewhereLeavesNothingAndALateRequestEndOnTheFormerPrimaryBringsNothingBack() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        SessionReplicator c = node("c");
        TestSession s = aliceReplicatedBy(a);
        SessionReplicator backup = b.hasBackup("s1") ? b : c;
        SessionReplicator stranger = backup == b ? c : b;
        assertTrue(a.isPrimary("s1") && backup.hasBackup("s1"));
        stranger.invalidate("s1"); // on a node without a copy: the primary and the backup learn it by message
        settle(a, b, c);
        assertNoEntryOrCopy(a, b, c);
        s.set("user", "bob"); // a request that was still running on a when the invalidation came ends now
        a.requestEnd(s, s.tracker);
        settle(a, b, c);
        assertNoEntryOrCopy(a, b, c);
    }

    private static void assertNoEntryOrCopy(SessionReplicator... nodes) {
        for (SessionReplicator n : nodes) {
            assertFalse(n.isPrimary("s1"), n.nodeName());
            assertFalse(n.hasBackup("s1"), n.nodeName());
        }
    }

    @Test
    void invalidationOnAnotherNodeEvictsTheLiveCopy() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        aliceReplicatedBy(a);
        b.takeOver("s1").orElseThrow();
        b.invalidate("s1");
        settle(a, b);
        assertFalse(a.hasLocalCopy("s1"));
    }

    @Test
    void sessionsOrphanedByADepartedPrimaryExpireWithTheReplicatedLastAccessTime() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        TestSession s = newSession("s1").set("x", 1);
        s.setMaxInactiveSeconds(60);
        a.requestEnd(s, s.tracker);
        TestSession used = newSession("s2").set("x", 2);
        used.setMaxInactiveSeconds(60);
        a.requestEnd(used, used.tracker);
        settle(a);
        clock.advance(Duration.ofSeconds(59));
        b.runMaintenance();
        assertTrue(b.hasLocalCopy("s1"), "primary alive: the primary decides");
        stopNode(a);
        await().atMost(Duration.ofSeconds(10)).until(() -> b.isPrimary("s1") || b.hasBackup("s1"));
        b.runMaintenance();
        assertTrue(b.hasLocalCopy("s1"), "not expired yet");
        b.takeOver("s2").orElseThrow(); // s2 is used again here: the container holds it live from now on
        clock.advance(Duration.ofSeconds(2));
        b.runMaintenance();
        assertFalse(b.hasLocalCopy("s1"), "expired 60 s after its replicated last access");
        assertEquals(Optional.empty(), b.takeOver("s1"));
        assertTrue(b.isPrimary("s2"), "a session the container holds live is expired by the container, not here");
    }
}
