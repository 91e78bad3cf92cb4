package io.sessionrep.core;

import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.ForwardingTransport;
import io.sessionrep.core.transport.Member;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sync-mode invalidation whose backup is not seen handling it in time: the invalidation still arrives, and the
 * next ones do not wait for that backup again (expiry invalidates sessions one after the other on one thread). Node
 * a's transport never sees an invalidation handled: it waits the time-out it is given, as the JGroups transport
 * does over a data lane to a hung node, then delivers it as a plain one-way message (in memory), as that one does.
 */
class SyncInvalidationTest extends SessionReplicatorContract {
    private static final Duration SYNC_TIMEOUT = Duration.ofMillis(300);
    private static final AtomicInteger directTries = new AtomicInteger();

    SyncInvalidationTest() {
        super(directPathOfAHangs());
    }

    @BeforeEach
    void reset() {
        directTries.set(0);
    }

    private static ContractNetwork directPathOfAHangs() {
        return ContractNetwork.inMemory().wrapping("a", transport -> new ForwardingTransport(transport) {
            @Override
            public void sendAndAwaitHandled(Member target, byte[] message, Duration timeout) throws TimeoutException {
                directTries.incrementAndGet();
                try {
                    Thread.sleep(timeout.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                send(target, message); // as the contract says: not seen handled in time, delivered all the same
                throw new TimeoutException("hung");
            }
        });
    }

    @Test
    void aBackupThatDoesNotAnswerGetsTheInvalidationOverTheChannelAndIsNotWaitedForAgain() {
        SessionReplicator a = node("a", o -> o.replicationMode(ReplicationMode.SYNC).syncTimeout(SYNC_TIMEOUT));
        SessionReplicator b = node("b", o -> o.replicationMode(ReplicationMode.SYNC).syncTimeout(SYNC_TIMEOUT));
        int sessions = 20;
        for (int n = 1; n <= sessions; n++) {
            TestSession s = newSession("s" + n).set("user", "user " + n);
            a.requestEnd(s, s.tracker);
        }
        settle(a);
        for (int n = 1; n <= sessions; n++) {
            assertTrue(b.hasBackup("s" + n));
        }

        long started = System.nanoTime();
        for (int n = 1; n <= sessions; n++) {
            a.invalidate("s" + n);
        }
        long waitedMillis = (System.nanoTime() - started) / 1_000_000;
        settle(a);

        for (int n = 1; n <= sessions; n++) {
            assertFalse(b.hasLocalCopy("s" + n), "session " + n + ": the invalidation arrived over the channel");
        }
        assertEquals(1, directTries.get(), "only the first invalidation waited for the hung direct path");
        assertTrue(waitedMillis < sessions * SYNC_TIMEOUT.toMillis() / 2,
                "the " + sessions + " invalidations waited " + waitedMillis + " ms, not sync-timeout each");
    }

    /** Two backups (write-quota 2) whose direct path hangs: the invalidation waits sync-timeout in all, not per backup. */
    @Test
    void withTwoHungBackupsTheInvalidationWaitsSyncTimeoutOnceAndReachesBoth() {
        SessionReplicator a = node("a", o -> o.replicationMode(ReplicationMode.SYNC).writeQuota(2).syncTimeout(SYNC_TIMEOUT));
        SessionReplicator b = node("b", o -> o.replicationMode(ReplicationMode.SYNC).writeQuota(2));
        SessionReplicator c = node("c", o -> o.replicationMode(ReplicationMode.SYNC).writeQuota(2));
        TestSession s = newSession("s1").set("user", "alice");
        a.requestEnd(s, s.tracker);
        settle(a);
        assertTrue(b.hasBackup("s1") && c.hasBackup("s1"));

        a.invalidate("s1");
        settle(a);

        assertEquals(1, directTries.get(), "the second backup was not tried: no time was left of sync-timeout");
        assertFalse(b.hasLocalCopy("s1"));
        assertFalse(c.hasLocalCopy("s1"));
    }
}
