package io.sessionrep.transport.jgroups;

import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.SessionReplicatorContract;
import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.TestSession;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Request ends over real JGroups transports with the lane. Sync: the updates take the lane, the backup holds
 * every version when the request end returns, and a lane that breaks leaves its updates to the channel without
 * losing one or counting a miss; invalidations take it too, and the channel when it is broken. Async: the sender's
 * batches take it, invalidations too.
 */
class LaneReplicationTest extends SessionReplicatorContract {

    LaneReplicationTest() {
        super(new GrowingStaticCluster("lane"));
    }

    private JGroupsTransport jgroups(String node) {
        return (JGroupsTransport) transports.get(node).delegate();
    }

    @Test
    void deltasTakeTheLaneAndTheBackupHoldsEachVersionWhenTheRequestEnds() {
        SessionReplicator a = node("a", o -> o.replicationMode(ReplicationMode.SYNC));
        SessionReplicator b = node("b", o -> o.replicationMode(ReplicationMode.SYNC));
        TestSession s = newSession("s1");
        for (int i = 1; i <= 20; i++) {
            s.set("counter", i).set("page", "page " + i);
            a.requestEnd(s, s.tracker);
            assertEquals(i, b.backupVersion("s1"), "acknowledged: the backup holds version " + i);
        }
        assertEquals(20, jgroups("a").counters().laneExchanges(), "every update took the lane, the first full copy too");
        assertEquals(0, counter(ReplicationMetrics.SYNC_TIMEOUTS, "a"));
    }

    @Test
    void asyncBatchesTakeTheLaneUpdatesAndInvalidationAlike() {
        SessionReplicator a = node("a", o -> o.replicationMode(ReplicationMode.ASYNC).asyncLane(true));
        SessionReplicator b = node("b", o -> o.replicationMode(ReplicationMode.ASYNC).asyncLane(true));
        TestSession s = newSession("s1");
        for (int i = 1; i <= 20; i++) {
            s.set("counter", i).set("page", "page " + i);
            a.requestEnd(s, s.tracker);
        }
        settle(a);
        assertEquals(20, b.backupVersion("s1"));
        long exchanges = jgroups("a").counters().laneExchanges();
        assertTrue(exchanges >= 1, "the async sender's batches took the lane");

        a.invalidate("s1");
        settle(a);
        assertFalse(b.hasLocalCopy("s1"), "the invalidation arrived");
        assertEquals(exchanges + 1, jgroups("a").counters().laneExchanges(), "over the lane");
    }

    @Test
    void aSyncInvalidationTakesTheLaneAndTheBackupHasDroppedItsCopyWhenInvalidateReturns() {
        SessionReplicator a = node("a", o -> o.replicationMode(ReplicationMode.SYNC));
        SessionReplicator b = node("b", o -> o.replicationMode(ReplicationMode.SYNC));
        for (int n = 1; n <= 20; n++) {
            TestSession s = newSession("s" + n);
            s.set("counter", n);
            a.requestEnd(s, s.tracker);
            assertTrue(b.hasLocalCopy("s" + n));
            long exchanges = jgroups("a").counters().laneExchanges();
            long sent = jgroups("a").counters().messagesSent();

            a.invalidate("s" + n);
            assertFalse(b.hasLocalCopy("s" + n), "session " + n + " already gone from its backup when invalidate returned");
            assertEquals(sent + 1, jgroups("a").counters().messagesSent(), "one message");
            assertEquals(exchanges + 1, jgroups("a").counters().laneExchanges(),
                    "over the lane: nothing left in the channel for the next update's lane exchange to wait for");
        }
    }

    @Test
    void whenTheLaneIsBrokenASyncInvalidationTakesTheChannel() {
        SessionReplicator a = node("a", o -> o.replicationMode(ReplicationMode.SYNC));
        SessionReplicator b = node("b", o -> o.replicationMode(ReplicationMode.SYNC));
        TestSession s = newSession("s1");
        s.set("counter", 1);
        a.requestEnd(s, s.tracker);
        assertTrue(b.hasLocalCopy("s1"));

        jgroups("b").breakLane();
        a.invalidate("s1");
        settle(a);
        assertFalse(b.hasLocalCopy("s1"), "the invalidation arrived over the channel");
    }

    @Test
    void whenTheLaneBreaksTheUpdatesTakeTheChannelAndNoneIsLost() {
        SessionReplicator a = node("a", o -> o.replicationMode(ReplicationMode.SYNC));
        SessionReplicator b = node("b", o -> o.replicationMode(ReplicationMode.SYNC));
        TestSession s = newSession("s1");
        for (int i = 1; i <= 5; i++) {
            s.set("counter", i);
            a.requestEnd(s, s.tracker);
        }
        assertEquals(5, jgroups("a").counters().laneExchanges());

        jgroups("b").breakLane(); // a's idle connection is closed under it, and new ones are refused
        for (int i = 6; i <= 15; i++) {
            s.set("counter", i);
            a.requestEnd(s, s.tracker);
            assertEquals(i, b.backupVersion("s1"), "version " + i + " acknowledged over the channel");
        }

        assertEquals(5, jgroups("a").counters().laneExchanges(), "nothing more over the broken lane");
        assertTrue(jgroups("a").counters().lanePauses() >= 1, "a left b's lane for the channel");
        assertEquals(0, counter(ReplicationMetrics.SYNC_TIMEOUTS, "a"), "no request missed its acknowledgement");
    }
}
