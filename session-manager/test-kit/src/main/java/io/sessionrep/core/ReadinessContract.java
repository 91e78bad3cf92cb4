package io.sessionrep.core;

import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.placement.BackupPlacement;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.Message;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node's {@link Readiness} as the core computes it ({@link SessionReplicator#readiness()}): best effort with
 * fewer nodes than write-quota, a session whose new backup has not confirmed its copy, a session in use when a
 * peer joined. Run over the in-memory network (test-kit) and real JGroups channels (replication-transport).
 */
public abstract class ReadinessContract extends SessionReplicatorContract {
    private static final Duration WITHIN = Duration.ofSeconds(20);

    protected ReadinessContract(ContractNetwork network) {
        super(network);
    }

    @Test
    void aNodeAloneIsReadyAndWriteQuotaCountsOnlyTheBackupsTheViewAllows() {
        SessionReplicator a = node("a", o -> o.writeQuota(2));
        await().atMost(WITHIN).until(() -> a.readiness().ready());
        TestSession s = newSession("s1").set("user", "alice");
        a.requestEnd(s, s.tracker);
        assertEquals(Readiness.READY, a.readiness(), "alone, write-quota 2 cannot be met, and need not be");
        assertEquals(1, gauge(ReplicationMetrics.READY, "a"));

        SessionReplicator b = node("b", o -> o.writeQuota(2));
        await().atMost(WITHIN).until(() -> a.readiness().ready() && b.readiness().ready());
        settle(a);
        assertTrue(b.hasBackup("s1"), "ready with one backup of two: the view allows one");
        assertEquals(1, a.sessionsBelowQuota(), "the gauge still counts it below write-quota 2");
    }

    @Test
    void aSessionWhoseNewBackupHasNotConfirmedItsCopyKeepsItsPrimaryUnready() {
        SessionReplicator a = node("a");
        SessionReplicator c = node("c");
        String id = movingToANewcomer();
        TestSession s = newSession(id).set("user", "alice");
        a.requestEnd(s, s.tracker);
        settle(a);
        assertTrue(c.hasBackup(id));
        await().atMost(WITHIN).until(() -> a.readiness().ready());

        transports.get("a").dropWhen((target, bytes) -> target.name().equals("b")
                && decoded(bytes) instanceof Message.Update);
        SessionReplicator b = node("b");
        await().atMost(WITHIN).untilAsserted(() -> assertTrue(a.readiness().reasons().stream()
                .anyMatch(r -> r.startsWith("1 session waits for a new backup to confirm its copy")), a.readiness()::toString));
        assertFalse(b.hasBackup(id), "the copy to b was lost");
        assertTrue(c.hasBackup(id), "the former backup keeps its copy meanwhile");
        assertEquals(0, gauge(ReplicationMetrics.READY, "a"));

        transports.get("a").dropWhen((target, bytes) -> false);
        await().atMost(WITHIN).pollInterval(Duration.ofMillis(200)).until(() -> {
            a.runMaintenance(); // the periodic pass sends the copy again once the lost one's answer timed out
            return a.readiness().ready();
        });
        assertTrue(b.hasBackup(id), "ready once the new backup holds the copy");
    }

    @Test
    void aSessionInUseWhenAPeerJoinedIsBelowQuotaUntilItsRequestEnds() {
        SessionReplicator a = node("a");
        TestSession s = newSession("s1").set("user", "alice");
        a.requestEnd(s, s.tracker);
        assertEquals(SessionAccess.OWNED, a.enter("s1")); // a request uses it while b joins
        await().atMost(WITHIN).until(() -> a.readiness().ready());

        SessionReplicator b = node("b");
        await().atMost(WITHIN).untilAsserted(() -> assertEquals(
                List.of("1 session owned here has fewer backups than the view allows (write-quota 1)"),
                a.readiness().reasons()));
        assertFalse(b.hasBackup("s1"));

        s.set("user", "bob");
        a.requestEnd(s, s.tracker);
        a.exit("s1");
        await().atMost(WITHIN).until(() -> a.readiness().ready());
        settle(a);
        assertTrue(b.hasBackup("s1"), "the request's end sent b its copy");
    }

    @Test
    void aStoppedNodeIsNotReady() {
        SessionReplicator a = node("a");
        await().atMost(WITHIN).until(() -> a.readiness().ready());
        a.close();
        assertEquals(Readiness.notReady("stopped"), a.readiness());
    }

    /** A session id whose only backup from a is c while the view is {a, c}, and b once b joins. */
    private static String movingToANewcomer() {
        BackupPlacement placement = new BackupPlacement(1, true);
        Member a = new Member("a", "a");
        Member b = new Member("b", "b");
        Member c = new Member("c", "c");
        for (int i = 0; ; i++) {
            String id = "session-" + i;
            if (placement.backups(id, a, List.of(a, c)).equals(List.of(c))
                    && placement.backups(id, a, List.of(a, b, c)).equals(List.of(b))) {
                return id;
            }
        }
    }

    private double gauge(String name, String node) {
        return meters.find(name).tag("node", node).gauge().value();
    }
}
