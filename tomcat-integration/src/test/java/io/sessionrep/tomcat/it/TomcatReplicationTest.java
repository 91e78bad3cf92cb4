package io.sessionrep.tomcat.it;

import io.sessionrep.core.testing.SlowRequests;
import io.sessionrep.core.metrics.ReplicationMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Behaviour of the Tomcat integration: real embedded Tomcat 11 servers and real JGroups channels on
 * 127.0.0.1, one user whose cookie travels from node to node (as behind a load balancer).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TomcatReplicationTest {
    private static final String VALUE_BYTES_SENT = ReplicationMetrics.VALUE_BYTES_SENT;
    private static final String UPDATES_SENT = ReplicationMetrics.UPDATES_SENT;
    private static final String SYNC_TIMEOUTS = ReplicationMetrics.SYNC_TIMEOUTS;
    private static final Duration REPLICATION = Duration.ofSeconds(10);
    private static final int KIB = 1024;

    private final Browser user = new Browser();
    private TomcatCluster cluster;

    @AfterEach
    void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void failOverToBackupServesTheSessionAndRewritesTheRouteSuffix() throws Exception {
        cluster = TomcatCluster.start("failover", 2, (i, a) -> { });
        TomcatNode a = cluster.node(0);
        TomcatNode b = cluster.node(1);

        Browser.Reply created = user.get(a, "op=set&name=color&value=blue");
        assertEquals("ok", created.body());
        assertNotNull(created.setCookie(), "a new session sets its cookie");
        assertTrue(created.setCookie().endsWith(".node-a"), "route from the Engine's jvmRoute: " + created.setCookie());
        String id = user.sessionId();
        await("backup on node-b").atMost(REPLICATION).until(() -> b.hasLocalCopy(id));

        a.stop(); // orderly: must not invalidate the session cluster-wide

        Browser.Reply failedOver = user.get(b, "op=get&name=color");
        assertEquals("blue", failedOver.body());
        assertEquals("node-b", failedOver.node());
        assertEquals(id + ".node-b", failedOver.setCookie(), "cookie re-issued with the new primary's route");
        assertEquals(0, a.sessionEvents.count("destroyed", id), "stopping node-a destroyed nothing");

        Browser.Reply sticky = user.get(b, "op=get&name=color");
        assertEquals("blue", sticky.body());
        assertNull(sticky.setCookie(), "no cookie churn once the route matches");
    }

    @Test
    void userMovingBetweenLiveNodesAlwaysSeesTheLatestState() throws Exception {
        cluster = TomcatCluster.start("bounce", 2, (i, a) -> a.put("replicationMode", "sync"));
        TomcatNode a = cluster.node(0);
        TomcatNode b = cluster.node(1);

        user.get(a, "op=set&name=color&value=blue");
        String id = user.sessionId();

        Browser.Reply onB = user.get(b, "op=set&name=color&value=red");
        assertEquals(id + ".node-b", onB.setCookie(), "node-b took the session over");
        await("node-a dropped its live copy").atMost(REPLICATION).until(() -> !a.holdsLive(id));

        Browser.Reply backOnA = user.get(a, "op=get&name=color");
        assertEquals("red", backOnA.body(), "node-a took it back from node-b, not from a stale live copy");
        assertEquals(id + ".node-a", backOnA.setCookie());
        await("node-b dropped its live copy").atMost(REPLICATION).until(() -> !b.holdsLive(id));

        user.get(a, "op=set&name=color&value=green");
        assertEquals("green", user.get(b, "op=get&name=color").body());
    }

    @Test
    void secondRequestReplicatesOnlyTheChangedAttribute() throws Exception {
        cluster = TomcatCluster.start("delta", 2, (i, a) -> a.put("replicationMode", "sync"));
        TomcatNode a = cluster.node(0);

        double start = a.count(VALUE_BYTES_SENT);
        user.get(a, "op=fill&number=2&size=" + 10 * KIB);
        double first = settled(a, VALUE_BYTES_SENT) - start;

        double beforeChange = a.count(VALUE_BYTES_SENT);
        user.get(a, "op=change&name=attr0&size=" + 10 * KIB);
        double second = settled(a, VALUE_BYTES_SENT) - beforeChange;

        double beforeRead = a.count(VALUE_BYTES_SENT);
        assertEquals(10 * KIB, user.get(a, "op=get&name=attr1").body().length());
        double readOnly = settled(a, VALUE_BYTES_SENT) - beforeRead;

        String sizes = "first=" + first + " second=" + second + " read-only=" + readOnly;
        assertTrue(first >= 20 * KIB && first < 21 * KIB, "first copy is complete (~20 KiB): " + sizes);
        assertTrue(second >= 10 * KIB && second < 11 * KIB, "second copy is the changed attribute only: " + sizes);
        assertEquals(0, readOnly, "a read of an immutable value sends no attribute: " + sizes);
    }

    @Test
    void invalidateRemovesTheSessionEverywhereForGood() throws Exception {
        cluster = TomcatCluster.start("invalidate", 3, (i, a) -> a.put("writeQuota", "2"));
        TomcatNode a = cluster.node(0);
        TomcatNode b = cluster.node(1);
        TomcatNode c = cluster.node(2);

        user.get(a, "op=set&name=color&value=blue");
        String id = user.sessionId();
        String oldCookie = user.cookie();
        await("copies on node-b and node-c").atMost(REPLICATION)
                .until(() -> b.hasLocalCopy(id) && c.hasLocalCopy(id));

        assertEquals("invalidated", user.get(a, "op=invalidate").body());
        await("copies removed").atMost(REPLICATION)
                .until(() -> !a.hasLocalCopy(id) && !b.hasLocalCopy(id) && !c.hasLocalCopy(id));

        assertEquals("no-session", user.get(b, "op=get&name=color").body());
        assertEquals("no-session", user.get(c, "op=get&name=color").body());
        assertEquals("no-session", user.get(a, "op=get&name=color").body());
        assertFalse(a.hasLocalCopy(id) || b.hasLocalCopy(id) || c.hasLocalCopy(id), "not resurrected");
        assertEquals(oldCookie, user.cookie(), "no request above created a session");

        Browser.Reply fresh = user.get(b, "op=set&name=color&value=green");
        assertNotNull(fresh.setCookie());
        assertNotEquals(id, user.sessionId(), "the invalidated id is never adopted again");
        assertTrue(fresh.setCookie().endsWith(".node-b"), fresh.setCookie());
    }

    @Test
    void backgroundExpiryOnThePrimaryRemovesTheSessionEverywhere() throws Exception {
        cluster = TomcatCluster.start("expiry", 2, (i, a) -> a.put("replicationMode", "sync"));
        TomcatNode a = cluster.node(0);
        TomcatNode b = cluster.node(1);

        user.get(a, "op=set&name=color&value=blue");
        user.get(a, "op=max-inactive&value=1");
        String id = user.sessionId();
        assertTrue(b.hasLocalCopy(id));

        Thread.sleep(1_500);
        a.manager.processExpires(); // what Tomcat's background thread runs (every 60 s by default)

        assertFalse(a.holdsLive(id), "expired on node-a");
        assertEquals(1, a.sessionEvents.count("destroyed", id), "sessionDestroyed on the node that expired it");
        await("copy removed on node-b").atMost(REPLICATION).until(() -> !b.hasLocalCopy(id));
        assertEquals("no-session", user.get(b, "op=get&name=color").body());
        assertEquals(0, b.sessionEvents.count("destroyed", id));
    }

    @Test
    void renewedSessionIdReplicatesUnderTheNewIdAndRetiresTheOldOne() throws Exception {
        cluster = TomcatCluster.start("renew", 2, (i, a) -> a.put("replicationMode", "sync"));
        TomcatNode a = cluster.node(0);
        TomcatNode b = cluster.node(1);

        user.get(a, "op=set&name=color&value=blue");
        String oldId = user.sessionId();
        Browser.Reply renewed = user.get(a, "op=renew");
        String newId = user.sessionId();
        assertNotEquals(oldId, newId);
        assertEquals(newId + ".node-a", renewed.body(), "HttpServletRequest.changeSessionId() returns the full id");
        assertEquals(newId + ".node-a", renewed.setCookie());
        assertTrue(b.hasLocalCopy(newId), "new id replicated before the response");
        await("old id retired on node-b").atMost(REPLICATION).until(() -> !b.hasLocalCopy(oldId));
        assertEquals(0, a.sessionEvents.count("destroyed", oldId), "a renewal is not a destruction");

        a.stop();
        assertEquals("blue", user.get(b, "op=get&name=color").body());
    }

    @Test
    void syncModeBackupHoldsTheUpdateWhenTheResponseArrives() throws Exception {
        // requests (what sync replication waits on) leave 300 ms late: a response that did not wait for
        // the backup's acknowledgement would arrive 300 ms before the backup has the update
        cluster = TomcatCluster.start("sync", 2, (i, a) -> {
            a.put("replicationMode", "sync");
            a.put("syncTimeout", "5s");
        }, false, network -> new SlowRequests(network, Duration.ofMillis(300)));
        TomcatNode a = cluster.node(0);
        TomcatNode b = cluster.node(1);

        user.get(a, "op=set&name=color&value=blue");
        String id = user.sessionId();
        assertTrue(b.hasLocalCopy(id), "backup present when the response arrived");
        long version = b.replicator().backupVersion(id);

        user.get(a, "op=set&name=color&value=red");
        assertTrue(b.replicator().backupVersion(id) > version, "the update was stored before the response");
        assertEquals(0, a.count(SYNC_TIMEOUTS), "acknowledged, not timed out");
        a.stop();
        assertEquals("red", user.get(b, "op=get&name=color").body());
    }

    @Test
    void sessionListenersFireOnceOnTheServingNode() throws Exception {
        cluster = TomcatCluster.start("listeners", 2, (i, a) -> a.put("replicationMode", "sync"));
        TomcatNode a = cluster.node(0);
        TomcatNode b = cluster.node(1);

        user.get(a, "op=set&name=color&value=blue");
        String id = user.sessionId();
        assertEquals(1, a.sessionEvents.count("created", id), "created once, where it was created");

        assertEquals("blue", user.get(b, "op=get&name=color").body()); // take-over by node-b
        await("node-a dropped its live copy").atMost(REPLICATION).until(() -> !a.holdsLive(id));
        assertEquals(0, b.sessionEvents.count("created", id), "a take-over is not a creation");
        assertEquals(0, a.sessionEvents.count("destroyed", id), "losing ownership is not a destruction");

        assertEquals("invalidated", user.get(b, "op=invalidate").body());
        assertEquals(1, b.sessionEvents.count("destroyed", id), "destroyed once, where it was invalidated");
        await("copy removed on node-a").atMost(REPLICATION).until(() -> !a.hasLocalCopy(id));
        assertEquals(0, a.sessionEvents.count("destroyed", id));
        assertEquals(1, a.sessionEvents.count("created", id));
        assertEquals(0, b.sessionEvents.count("created", id));
    }

    @Test
    void takeOverTellsActivationListenersOnceOnTheNewNode() throws Exception {
        cluster = TomcatCluster.start("activation", 2, (i, a) -> a.put("replicationMode", "sync"));
        TomcatNode a = cluster.node(0);
        TomcatNode b = cluster.node(1);
        user.get(a, "op=probe&name=probe");
        int before = ActivationProbe.ACTIVATIONS.get();

        a.stop();
        assertEquals("ActivationProbe", user.get(b, "op=get&name=probe").body());
        assertEquals("ActivationProbe", user.get(b, "op=get&name=probe").body());
        assertEquals(before + 1, ActivationProbe.ACTIVATIONS.get(), "sessionDidActivate once, on take-over");
    }

    @Test
    void mutableAttributeChangedInPlaceReplicates() throws Exception {
        cluster = TomcatCluster.start("mutable", 2, (i, a) -> a.put("replicationMode", "sync"));
        TomcatNode a = cluster.node(0);
        TomcatNode b = cluster.node(1);

        assertEquals("[apple]", user.get(a, "op=list-add&name=cart&value=apple").body());
        assertEquals("[apple, pear]", user.get(a, "op=list-add&name=cart&value=pear").body());

        a.stop();
        assertEquals("[apple, pear]", user.get(b, "op=get&name=cart").body());
    }

    @Test
    void forwardedRequestReplicatesOnceForTheOuterRequest() throws Exception {
        cluster = TomcatCluster.start("forward", 2, (i, a) -> a.put("replicationMode", "sync"));
        TomcatNode a = cluster.node(0);
        TomcatNode b = cluster.node(1);
        user.get(a, "op=set&name=color&value=blue");
        double before = settled(a, UPDATES_SENT);

        assertEquals("ok", user.get(a, "op=forward&name=color&value=red").body());
        await("exactly one update").during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                .until(() -> a.count(UPDATES_SENT) - before == 1);

        a.stop();
        assertEquals("red", user.get(b, "op=get&name=color").body());
    }

    @Test
    void asyncServletRequestReplicatesOnceWhenItCompletes() throws Exception {
        cluster = TomcatCluster.start("async-servlet", 2, (i, a) -> {
            a.put("replicationMode", "sync");
            a.put("syncTimeout", "5s");
        });
        TomcatNode a = cluster.node(0);
        TomcatNode b = cluster.node(1);
        user.get(a, "op=set&name=color&value=blue");
        double before = settled(a, UPDATES_SENT);

        assertEquals("ok", user.get(a, "op=async-set&name=color&value=red").body());
        await("exactly one update").during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                .until(() -> a.count(UPDATES_SENT) - before == 1);

        a.stop();
        assertEquals("red", user.get(b, "op=get&name=color").body());
    }

    @Test
    void crossContextIncludeReplicatesTheOtherApplicationsSession() throws Exception {
        cluster = TomcatCluster.start("cross", 2, (i, a) -> {
            a.put("replicationMode", "sync");
            a.put("syncTimeout", "5000ms"); // a 2-core CI machine under load must not turn this into a timeout
        }, true,
                UnaryOperator.identity());
        TomcatNode a = cluster.node(0);
        TomcatNode b = cluster.node(1);

        user.get(a, "op=cross-set&name=color&value=blue");
        String id = user.sessionId();
        assertTrue(b.otherManager.replicator().hasLocalCopy(id),
                "the session of /other, used only through the include, was replicated before the response");

        a.stop();
        assertEquals("blue", user.getOther(b, "op=get&name=color").body(), "/other taken over by node-b");
    }

    /** The counter's value once it stopped moving (what a request sent after its response, included). */
    private static double settled(TomcatNode node, String counter) {
        double[] last = {node.count(counter)};
        await(counter + " settled").during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    double now = node.count(counter);
                    boolean same = now == last[0];
                    last[0] = now;
                    return same;
                });
        return last[0];
    }
}
