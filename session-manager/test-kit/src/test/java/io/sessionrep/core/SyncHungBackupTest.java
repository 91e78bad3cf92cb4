package io.sessionrep.core;

import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.testing.SessionIds;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.wire.Message;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Sync mode, write-quota 2: the session's first backup, whose update the request thread sends over the transport's
 * direct path, hangs (alive, never answering: its messages from a are dropped, on both paths); the second stores the
 * update. The request must return once the second has stored it, not after sync-timeout: the core tells the direct
 * path that the reply is no longer needed, and the transport gives it up (here the test transport at once; the
 * JGroups lane after a short grace, {@code SyncBackupCrashTest} in replication-transport).
 */
class SyncHungBackupTest extends SessionReplicatorContract {
    private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(60);

    SyncHungBackupTest() {
        super(ContractNetwork.inMemory());
    }

    @Test
    void withTwoBackupsAHungFirstOneDoesNotHoldTheRequestOnceTheSecondStoredIt() {
        SessionReplicator a = node("a", this::syncQuota2);
        node("b", this::syncQuota2);
        SessionReplicator c = node("c", this::syncQuota2);
        String id = SessionIds.backedUpBy(a, 2, List.of("b", "c"));

        transports.get("a").dropWhen((target, bytes) -> target.name().equals("b")
                && decoded(bytes) instanceof Message.Update);
        TestSession s = newSession(id).set("cart", "one book");
        for (String cart : List.of("two books", "three books")) {
            s.set("cart", cart);
            assertTimeoutPreemptively(SYNC_TIMEOUT.dividedBy(4), () -> a.requestEnd(s, s.tracker),
                    "the request waited for b, which never answers, although c had stored the update");
            assertEquals(a.primaryVersion(id), c.backupVersion(id), "when the request returns, c holds its update");
        }
        assertEquals(0, a.metrics().syncTimeouts.count(), "c stored every update: no miss");
    }

    private io.sessionrep.core.config.ReplicationConfig.Builder syncQuota2(
            io.sessionrep.core.config.ReplicationConfig.Builder options) {
        return options.replicationMode(ReplicationMode.SYNC).syncTimeout(SYNC_TIMEOUT).writeQuota(2);
    }
}
