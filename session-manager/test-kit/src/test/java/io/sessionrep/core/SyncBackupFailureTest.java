package io.sessionrep.core;

import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.ForwardingTransport;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.TransportException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sync mode: a backup that stays a member but fails the request (here: the transport fails every request from a to
 * it, as when the backup's receiver fails) is a miss at once. Only a backup that left the view is waited for, so
 * that the request can go to the next backup: the request must not sit out sync-timeout looking for a departure.
 */
class SyncBackupFailureTest extends SessionReplicatorContract {
    private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(60);
    private static volatile boolean failRequests;

    SyncBackupFailureTest() {
        super(requestsFromAFail());
    }

    private static ContractNetwork requestsFromAFail() {
        failRequests = false;
        return ContractNetwork.inMemory().wrapping("a", transport -> new ForwardingTransport(transport) {
            @Override
            public CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout) {
                return failRequests
                        ? CompletableFuture.failedFuture(new TransportException("failed by the test"))
                        : super.request(target, message, timeout);
            }
        });
    }

    @Test
    void aBackupThatFailsTheRequestButStaysAMemberIsAMissAtOnce() {
        SessionReplicator a = node("a", o -> o.replicationMode(ReplicationMode.SYNC).syncTimeout(SYNC_TIMEOUT));
        SessionReplicator b = node("b", o -> o.replicationMode(ReplicationMode.SYNC).syncTimeout(SYNC_TIMEOUT));
        TestSession s = newSession("s1").set("cart", "one book");
        a.requestEnd(s, s.tracker);
        assertTrue(b.hasBackup("s1"));
        assertEquals(0, a.metrics().syncTimeouts.count());

        failRequests = true;
        s.set("cart", "two books");
        assertTimeoutPreemptively(SYNC_TIMEOUT.dividedBy(4), () -> a.requestEnd(s, s.tracker),
                "the request waited for b to leave, which it never does");
        assertEquals(1, a.metrics().syncTimeouts.count(), "the miss is counted");
        assertEquals(2, a.members().size(), "b stayed a member");
    }
}
