package io.sessionrep.testservlet.upgrade;

import io.sessionrep.testservlet.LocalCluster;
import io.sessionrep.testservlet.NodeMetrics;
import io.sessionrep.testservlet.NodeProcess;
import io.sessionrep.testservlet.SessionClient;
import io.sessionrep.testservlet.SessionReply;
import io.sessionrep.testservlet.WorkloadState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cluster rolled from the previous release to this build, with real processes: node-a runs the previous
 * release's node jar ({@link PreviousRelease}, wire protocol 2: values in field order), node-b this build. Sessions
 * are created on both, handed over both ways, and failed over both ways by {@code kill -9}: the previous release's
 * node takes over what this build wrote, and this build takes over what it wrote. Then node-a is killed and started
 * again as the previous release while node-b holds every session (written in protocol 3 while node-b was alone), so
 * node-b must send them to node-a in field order; node-b is killed, and node-a serves every session.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class PreviousReleaseIT {
    private static final int SESSIONS_PER_NODE = 10;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private LocalCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** One user: the state the last answer showed. */
    private static final class User {
        final SessionClient client;
        WorkloadState state;

        User(HttpClient http) {
            client = new SessionClient(http, REQUEST_TIMEOUT);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"async", "sync"})
    void aClusterOfThePreviousReleaseAndThisBuildReplicatesHandsOverAndFailsOverBothWays(String mode) throws Exception {
        String previous = PreviousRelease.nodeJar().toString();
        cluster = LocalCluster.builder().size(2)
                .option("replication-mode", mode)
                .option("write-quota", "1")
                .option("sync-timeout", "5000ms")
                .nodeClasspath("node-a", previous)
                .start();
        NodeProcess a = cluster.node("node-a");
        NodeProcess b = cluster.node("node-b");
        HttpClient http = SessionClient.newHttpClient();
        List<User> users = new ArrayList<>();
        for (int i = 0; i < 2 * SESSIONS_PER_NODE; i++) {
            User user = new User(http);
            NodeProcess home = i < SESSIONS_PER_NODE ? a : b;
            user.state = ok(user.client.initialize(home.sessionUri(), 2, 1), "initialize on " + home.name()).state();
            users.add(user);
        }
        for (int round = 0; round < 2; round++) { // each session handed over to the other node and back
            for (int i = 0; i < users.size(); i++) {
                NodeProcess other = (i < SESSIONS_PER_NODE) == (round == 0) ? b : a;
                User user = users.get(i);
                SessionReply reply = ok(user.client.process(other.sessionUri()), "process on " + other.name());
                assertEquals(user.state.version() + 1, reply.version(), "session " + i + " on " + other.name());
                user.state = reply.state();
            }
        }

        assertEquals(137, cluster.kill9(a), "the previous release killed");
        verifyAll(users, b, "this build, after the previous release died");

        cluster.start("node-a"); // the previous release again: node-b sends it every session, in field order
        cluster.awaitView(Duration.ofSeconds(60), "node-a", "node-b");
        a = cluster.node("node-a");
        awaitBackupsOn(a);
        assertEquals(137, cluster.kill9(b), "this build killed");
        verifyAll(users, a, "the previous release, after this build died");
    }

    /** Every session answers on {@code node} with the state its user saw last, and can be processed there. */
    private static void verifyAll(List<User> users, NodeProcess node, String when) throws Exception {
        for (int i = 0; i < users.size(); i++) {
            User user = users.get(i);
            SessionReply verified = ok(user.client.verify(node.sessionUri()), when + ": verify session " + i);
            assertEquals(user.state, verified.state(), when + ": session " + i);
            SessionReply processed = ok(user.client.process(node.sessionUri()), when + ": process session " + i);
            assertEquals(user.state.version() + 1, processed.version(), when + ": session " + i);
            user.state = processed.state();
        }
    }

    /** Waits until {@code node} holds a backup of every session (its gauge), so that the other may die. */
    private void awaitBackupsOn(NodeProcess node) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        double held = 0;
        while (System.nanoTime() < deadline) {
            held = NodeMetrics.value(node, "sessionrep_sessions_backup");
            if (held >= 2 * SESSIONS_PER_NODE) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError(node.name() + " holds " + held + " backups, not " + 2 * SESSIONS_PER_NODE);
    }

    private static SessionReply ok(SessionReply reply, String what) {
        assertTrue(reply.ok(), () -> what + ": HTTP " + reply.status() + " " + reply.fields());
        return reply;
    }
}
