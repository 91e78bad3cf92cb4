package io.sessionrep.core;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.testing.SessionIds;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.ForwardingTransport;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MemberLeftException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Sync mode, write-quota 2: by the time the request waits, one backup's acknowledgement has failed because that
 * backup left (the transport knows it before the view reaches the core) and the other backup has already stored the
 * update. The update is acknowledged: the request returns at once, with no miss and no re-send, whichever of the two
 * acknowledgements the request looks at first.
 */
class SyncAppliedWinsOverDepartureTest extends SessionReplicatorContract {
    private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(60);
    private static volatile boolean cDeparted;

    SyncAppliedWinsOverDepartureTest() {
        super(cDepartsForA());
    }

    /**
     * a's requests to c fail as a departure (c stays in the view). a's update to its first backup, b, a request
     * inline, is answered on the request thread ({@code DroppingTransport}, which wraps every contract node's
     * transport, waits for its reply there as the JGroups transport's lane does), so that b's acknowledgement is
     * complete when the request waits.
     */
    private static ContractNetwork cDepartsForA() {
        cDeparted = false;
        return ContractNetwork.inMemory().wrapping("a", transport -> new ForwardingTransport(transport) {
            @Override
            public CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout) {
                return cDeparted && target.name().equals("c")
                        ? CompletableFuture.failedFuture(new MemberLeftException("c left (the test)"))
                        : super.request(target, message, timeout);
            }
        });
    }

    @Test
    void aBackupThatStoredTheUpdateIsNotOutweighedByAnotherThatLeft() {
        SessionReplicator a = node("a", this::syncQuota2);
        SessionReplicator b = node("b", this::syncQuota2);
        node("c", this::syncQuota2);
        String id = SessionIds.backedUpBy(a, 2, List.of("b", "c"));
        TestSession s = newSession(id).set("cart", "one book");
        a.requestEnd(s, s.tracker);

        cDeparted = true;
        s.set("cart", "two books");
        assertTimeoutPreemptively(SYNC_TIMEOUT.dividedBy(4), () -> a.requestEnd(s, s.tracker),
                "b had stored the update, yet the request waited for c to leave the view");
        assertEquals(a.primaryVersion(id), b.backupVersion(id), "when the request returns, b holds its update");
        assertEquals(0, a.metrics().syncTimeouts.count(), "b stored the update: no miss");
    }

    private ReplicationConfig.Builder syncQuota2(ReplicationConfig.Builder options) {
        return options.replicationMode(ReplicationMode.SYNC).syncTimeout(SYNC_TIMEOUT).writeQuota(2);
    }
}
