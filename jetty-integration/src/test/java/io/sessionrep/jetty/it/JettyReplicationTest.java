package io.sessionrep.jetty.it;

import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.testsupport.ContainerReplicationContract;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Behaviour of the Jetty integration end to end: real embedded Jetty 12.1 ee10 servers and real JGroups
 * channels on 127.0.0.1, one user whose cookie travels from node to node. The scenarios every container
 * shares are in {@link ContainerReplicationContract}; here are those only the Jetty tests run.
 */
class JettyReplicationTest extends ContainerReplicationContract<JettyNode> {
    private static final String BYTES_SENT = ReplicationMetrics.BYTES_SENT;
    private static final String BYTES_RECEIVED = ReplicationMetrics.BYTES_RECEIVED;
    private static final String REJECTED = ReplicationMetrics.REJECTED;

    @Override
    protected TestCluster startCluster(String testName, int size, Map<String, String> options,
                                       UnaryOperator<ReplicationTransport> decorate) throws Exception {
        return TestCluster.start(testName, size, (i, builder) -> builder.apply(options), decorate);
    }

    /** Jetty's session id is the cluster id; the route suffix is only in the cookie (the extended id). */
    @Override
    protected String servletSessionId(String clusterId, String nodeName) {
        return clusterId;
    }

    /** Jetty's session handler loads the requested session before the servlet runs. */
    @Override
    protected boolean resolvesTheSessionBeforeTheApplication() {
        return true;
    }

    /** Jetty would count the request as a user of the live copy until its end: it gets no session. */
    @Override
    protected boolean ignoredRequestsSeeTheLiveCopy() {
        return false;
    }

    /** Measured in whole messages (BYTES_SENT): the attributes and the framing around them. */
    @Test
    void secondRequestReplicatesOnlyTheChangedAttribute() throws Exception {
        cluster = startCluster("delta", 2, SYNC);
        Sent sent = sentPerRequest(cluster.node(0), BYTES_SENT);
        assertTrue(sent.first() >= 20 * KIB && sent.first() < 24 * KIB, "first copy is complete (~20 KiB): " + sent);
        assertTrue(sent.second() >= 10 * KIB && sent.second() < 12 * KIB,
                "second copy is the changed attribute only: " + sent);
        assertTrue(sent.readOnly() < 1 * KIB, "a read of an immutable value sends no attribute: " + sent);
    }

    @Test
    void sessionExpiredOnItsPrimaryIsRemovedEverywhere() throws Exception {
        cluster = TestCluster.start("expiry", 2, (i, b) -> b.replicationMode(ReplicationMode.SYNC));
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
    void asyncModeBackupReceivesTheUpdateShortlyAfter() throws Exception {
        cluster = TestCluster.start("async", 2, (i, b) -> b.replicationMode(ReplicationMode.ASYNC));
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
    void classOutsideTheAllowlistIsRefusedAndCountedWhileTheRestArrives() throws Exception {
        cluster = TestCluster.start("allowlist", 2, (i, builder) -> builder
                .replicationMode(ReplicationMode.SYNC)
                .serializationAllowlist(i == 0
                        ? List.of("io.sessionrep.testsupport.")
                        : List.of("io.sessionrep.testsupport.allowed.")));
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
}
