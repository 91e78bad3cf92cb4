package io.sessionrep.jetty.it;

import io.sessionrep.core.testing.SlowRequests;
import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.jetty.it.allowed.ActivationProbe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Behaviour of the Jetty integration end to end: real embedded Jetty 12.1 ee10 servers and real JGroups
 * channels on 127.0.0.1, one user whose cookie travels from node to node.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class JettyReplicationTest {
    private static final String BYTES_SENT = ReplicationMetrics.BYTES_SENT;
    private static final String UPDATES_SENT = ReplicationMetrics.UPDATES_SENT;
    private static final String BYTES_RECEIVED = ReplicationMetrics.BYTES_RECEIVED;
    private static final String REJECTED = ReplicationMetrics.REJECTED;
    private static final String SYNC_TIMEOUTS = ReplicationMetrics.SYNC_TIMEOUTS;
    private static final Duration REPLICATION = Duration.ofSeconds(10);
    private static final int KIB = 1024;

    private final Browser user = new Browser();
    private TestCluster cluster;

    @AfterEach
    void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void failOverToBackupServesTheSessionAndRewritesTheRouteSuffix() throws Exception {
        cluster = TestCluster.start("failover", 2, b -> b);
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);

        Browser.Reply created = user.get(a, "op=set&name=color&value=blue");
        assertEquals("ok", created.body());
        assertNotNull(created.setCookie(), "a new session sets its cookie");
        assertTrue(created.setCookie().endsWith(".node-a"), created.setCookie());
        String id = user.sessionId();
        await("backup on node-b").atMost(REPLICATION).until(() -> b.hasLocalCopy(id));

        a.stop();

        Browser.Reply failedOver = user.get(b, "op=get&name=color");
        assertEquals("blue", failedOver.body());
        assertEquals("node-b", failedOver.node());
        assertEquals(id + ".node-b", failedOver.setCookie(), "cookie re-issued with the new primary's route");

        Browser.Reply sticky = user.get(b, "op=get&name=color");
        assertEquals("blue", sticky.body());
        assertNull(sticky.setCookie(), "no cookie churn once the route matches");
    }

    @Test
    void userMovingBetweenLiveNodesAlwaysSeesTheLatestState() throws Exception {
        cluster = TestCluster.start("bounce", 2, b -> b.replicationMode(ReplicationMode.SYNC));
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);

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
        assertTrue(a.isRunning() && b.isRunning());
    }

    @Test
    void takeOverTellsActivationListenersOnceOnTheNewNode() throws Exception {
        cluster = TestCluster.start("activation", 2, b -> b.replicationMode(ReplicationMode.SYNC));
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);
        user.get(a, "op=probe&name=probe");
        int before = ActivationProbe.ACTIVATIONS.get();

        a.stop();
        assertEquals("ActivationProbe", user.get(b, "op=get&name=probe").body());
        assertEquals("ActivationProbe", user.get(b, "op=get&name=probe").body());
        assertEquals(before + 1, ActivationProbe.ACTIVATIONS.get(), "sessionDidActivate once, on take-over");
    }

    @Test
    void secondRequestReplicatesOnlyTheChangedAttribute() throws Exception {
        cluster = TestCluster.start("delta", 2, b -> b.replicationMode(ReplicationMode.SYNC));
        JettyNode a = cluster.node(0);

        double start = a.count(BYTES_SENT);
        user.get(a, "op=fill&number=2&size=" + 10 * KIB);
        double first = settled(a, BYTES_SENT) - start;

        double beforeChange = a.count(BYTES_SENT);
        user.get(a, "op=change&name=attr0&size=" + 10 * KIB);
        double second = settled(a, BYTES_SENT) - beforeChange;

        double beforeRead = a.count(BYTES_SENT);
        assertEquals(10 * KIB, user.get(a, "op=get&name=attr1").body().length());
        double readOnly = settled(a, BYTES_SENT) - beforeRead;

        String sizes = "first=" + first + " second=" + second + " read-only=" + readOnly;
        assertTrue(first >= 20 * KIB && first < 24 * KIB, "first copy is complete (~20 KiB): " + sizes);
        assertTrue(second >= 10 * KIB && second < 12 * KIB, "second copy is the changed attribute only: " + sizes);
        assertTrue(readOnly < 1 * KIB, "a read of an immutable value sends no attribute: " + sizes);
    }

    @Test
    void invalidateRemovesTheSessionEverywhereForGood() throws Exception {
        cluster = TestCluster.start("invalidate", 3, b -> b.writeQuota(2));
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);
        JettyNode c = cluster.node(2);

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
    }

    @Test
    void sessionExpiredOnItsPrimaryIsRemovedEverywhere() throws Exception {
        cluster = TestCluster.start("expiry", 2, b -> b.replicationMode(ReplicationMode.SYNC));
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);

        user.get(a, "op=set&name=color&value=blue");
        user.get(a, "op=max-inactive&value=1");
        String id = user.sessionId();
        assertTrue(b.hasLocalCopy(id));

        // one request once the second of inactivity has passed (each request is an access)
        await("expired on node-a").pollDelay(Duration.ofMillis(1500)).atMost(REPLICATION)
                .until(() -> "no-session".equals(user.get(a, "op=get&name=color").body()));
        await("copy removed on node-b").atMost(REPLICATION).until(() -> !b.hasLocalCopy(id));
        assertEquals("no-session", user.get(b, "op=get&name=color").body());
    }

    @Test
    void renewedSessionIdReplicatesUnderTheNewIdAndRetiresTheOldOne() throws Exception {
        cluster = TestCluster.start("renew", 2, b -> b.replicationMode(ReplicationMode.SYNC));
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);

        user.get(a, "op=set&name=color&value=blue");
        String oldId = user.sessionId();
        Browser.Reply renewed = user.get(a, "op=renew");
        String newId = user.sessionId();
        assertNotEquals(oldId, newId);
        assertEquals(newId, renewed.body());
        assertEquals(newId + ".node-a", renewed.setCookie());
        assertTrue(b.hasLocalCopy(newId), "new id replicated");
        await("old id retired on node-b").atMost(REPLICATION).until(() -> !b.hasLocalCopy(oldId));

        a.stop();
        assertEquals("blue", user.get(b, "op=get&name=color").body());
    }

    @Test
    void syncModeBackupHoldsTheUpdateWhenTheResponseArrives() throws Exception {
        // requests (what sync replication waits on) leave 300 ms late: a response that did not wait for
        // the backup's acknowledgement would arrive 300 ms before the backup has the update
        cluster = TestCluster.start("sync", 2,
                (i, b) -> b.replicationMode(ReplicationMode.SYNC).syncTimeout(Duration.ofSeconds(5)),
                network -> new SlowRequests(network, Duration.ofMillis(300)));
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);

        user.get(a, "op=set&name=color&value=blue");
        assertTrue(b.hasLocalCopy(user.sessionId()), "backup present when the response arrived");

        user.get(a, "op=set&name=color&value=red");
        assertEquals(0, a.count(SYNC_TIMEOUTS), "acknowledged, not timed out");
        a.stop();
        assertEquals("red", user.get(b, "op=get&name=color").body());
    }

    @Test
    void asyncModeBackupReceivesTheUpdateShortlyAfter() throws Exception {
        cluster = TestCluster.start("async", 2, b -> b.replicationMode(ReplicationMode.ASYNC));
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);

        user.get(a, "op=set&name=color&value=blue");
        String id = user.sessionId();
        await("first copy on node-b").atMost(REPLICATION).pollInterval(Duration.ofMillis(10))
                .until(() -> b.hasLocalCopy(id));

        double received = b.count(BYTES_RECEIVED);
        user.get(a, "op=set&name=color&value=red");
        await("update on node-b").atMost(REPLICATION).pollInterval(Duration.ofMillis(10))
                .until(() -> b.count(BYTES_RECEIVED) > received);

        a.stop();
        assertEquals("red", user.get(b, "op=get&name=color").body());
    }

    @Test
    void mutableAttributeChangedInPlaceReplicates() throws Exception {
        cluster = TestCluster.start("mutable", 2, b -> b.replicationMode(ReplicationMode.SYNC));
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);

        assertEquals("[apple]", user.get(a, "op=list-add&name=cart&value=apple").body());
        assertEquals("[apple, pear]", user.get(a, "op=list-add&name=cart&value=pear").body());

        a.stop();
        assertEquals("[apple, pear]", user.get(b, "op=get&name=cart").body());
    }

    @Test
    void classOutsideTheAllowlistIsRefusedAndCountedWhileTheRestArrives() throws Exception {
        cluster = TestCluster.start("allowlist", 2, (i, builder) -> builder
                .replicationMode(ReplicationMode.SYNC)
                .serializationAllowlist(i == 0
                        ? List.of("io.sessionrep.jetty.it.")
                        : List.of("io.sessionrep.jetty.it.allowed.")));
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);

        user.get(a, "op=set&name=color&value=blue");
        user.get(a, "op=unlisted&name=secret&value=s3cret");
        await("refusal counted on node-b").atMost(REPLICATION).until(() -> b.count(REJECTED,
                "reason", ReplicationMetrics.REASON_CLASS_NOT_ALLOWED) >= 1);
        user.get(a, "op=note&name=note&value=hello");
        user.get(a, "op=set&name=size&value=large");

        a.stop();
        assertTrue(b.isRunning());
        assertEquals("blue", user.get(b, "op=get&name=color").body());
        assertEquals("large", user.get(b, "op=get&name=size").body());
        assertEquals("Note(hello)", user.get(b, "op=get&name=note").body());
        assertEquals("null", user.get(b, "op=get&name=secret").body(), "the refused value never arrived");
    }

    @Test
    void forwardedRequestReplicatesOnceForTheOuterRequest() throws Exception {
        cluster = TestCluster.start("forward", 2, b -> b.replicationMode(ReplicationMode.SYNC));
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);
        user.get(a, "op=set&name=color&value=blue");
        double before = settled(a, UPDATES_SENT);

        assertEquals("ok", user.get(a, "op=forward&name=color&value=red").body());
        await("exactly one update").during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                .until(() -> a.count(UPDATES_SENT) - before == 1);

        a.stop();
        assertEquals("red", user.get(b, "op=get&name=color").body());
    }

    @Test
    void asyncServletRequestReplicatesOnceBeforeItsResponse() throws Exception {
        cluster = TestCluster.start("async-servlet", 2,
                b -> b.replicationMode(ReplicationMode.SYNC).syncTimeout(Duration.ofSeconds(5)));
        JettyNode a = cluster.node(0);
        JettyNode b = cluster.node(1);
        user.get(a, "op=set&name=color&value=blue");
        double before = settled(a, UPDATES_SENT);

        assertEquals("ok", user.get(a, "op=async-set&name=color&value=red").body());
        await("exactly one update").during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                .until(() -> a.count(UPDATES_SENT) - before == 1);

        a.stop();
        assertEquals("red", user.get(b, "op=get&name=color").body());
    }

    /** The counter's value once it stopped moving (what a request sent after its response, included). */
    private static double settled(JettyNode node, String counter) {
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
