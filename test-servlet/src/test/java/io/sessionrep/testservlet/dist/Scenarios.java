package io.sessionrep.testservlet.dist;

import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.JmxMeters;
import io.sessionrep.testservlet.SessionClient;
import io.sessionrep.testservlet.SessionReply;

import java.net.http.HttpClient;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The user journeys every install must pass, over HTTP only (a client with explicit cookies). */
final class Scenarios {
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final HttpClient HTTP = SessionClient.newHttpClient();

    private Scenarios() {
    }

    /**
     * On two running nodes a and b: (1) a session created and changed on a is seen intact on b (replication,
     * or a fetch while a lives); (2) a session invalidated on b is gone on both; (3) after a SIGKILL of a, a
     * session whose primary was a is served by b from its backup, same checksum, and the cookie's route
     * names b. Kills a. On the way, the installs' default {@code metrics=jmx} is checked on a: its meters
     * are MBeans of its JVM; and the WAR's readiness endpoint answers 200 on both once the session is replicated.
     */
    static void replicateInvalidateFailOver(DistNode a, DistNode b, String cookie) throws Exception {
        // (1) replication
        SessionClient first = new SessionClient(HTTP, REQUEST_TIMEOUT, cookie);
        SessionReply created = ok(first.initialize(a.sessionUri(), 2, 5), "initialize on " + a.name());
        assertNotNull(created.setCookie(), "a new session sets the cookie");
        assertTrue(created.setCookie().endsWith("." + a.name()), "route names the primary: " + created.setCookie());
        SessionReply processed = ok(first.process(a.sessionUri()), "process on " + a.name());
        assertEquals(1, processed.version());

        SessionClient second = new SessionClient(HTTP, REQUEST_TIMEOUT, cookie);
        ok(second.initialize(a.sessionUri(), 1, 1), "initialize second");
        SessionReply onB = ok(second.verify(b.sessionUri()), "second on " + b.name());
        assertEquals(b.name(), onB.node());
        assertEquals(0, onB.version());
        primaryGaugeInJmx(a);
        ready(a);
        ready(b);

        // (2) invalidation everywhere: destroyed on b, unknown on a and b
        ok(second.destroy(b.sessionUri()), "destroy on " + b.name());
        String destroyed = second.cookie();
        assertEquals(404, second.verify(a.sessionUri()).status(), "invalidated session must be gone on " + a.name());
        second.cookie(destroyed);
        assertEquals(404, second.verify(b.sessionUri()).status(), "invalidated session must be gone on " + b.name());

        // (3) fail-over after a crash of the primary: b holds the backup of the first session
        Thread.sleep(1000); // async replication: let the last update reach the backup before the crash
        a.kill9();
        SessionReply survived = ok(first.verify(b.sessionUri()), "first session on " + b.name() + " after the crash");
        assertEquals(b.name(), survived.node());
        assertEquals(processed.version(), survived.version(), "nothing lost");
        assertEquals(processed.checksum(), survived.checksum(), "same state");
        assertNotNull(survived.setCookie(), "the cookie is rewritten after fail-over");
        assertTrue(survived.setCookie().endsWith("." + b.name()), "route names the new primary: " + survived.setCookie());
        SessionReply again = ok(first.process(b.sessionUri()), "process on the new primary");
        assertEquals(2, again.version());
        assertNull(again.setCookie(), "no cookie change while the primary stays");
    }

    /** The node's {@code sessionrep.sessions.primary} gauge, read through its JVM's local JMX agent, is >= 1. */
    static void primaryGaugeInJmx(DistNode node) throws Exception {
        try (JmxMeters jmx = JmxMeters.attach(node.pid(), node.name())) {
            double primary = jmx.value(ReplicationMetrics.SESSIONS_PRIMARY);
            assertTrue(primary >= 1, node.name() + ": sessions.primary in JMX is " + primary + "; MBeans: "
                    + jmx.names());
            assertTrue(jmx.names().stream().allMatch(n -> Distribution.CONTEXT.equals(n.getKeyProperty("context"))),
                    "context key: " + jmx.names());
        }
    }

    /**
     * The WAR's {@code /ready} (the readiness servlet's class file in {@code WEB-INF/classes}, whatever the install)
     * answers 200 {@code ready} within 30 s.
     */
    static void ready(DistNode node) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        java.net.http.HttpResponse<String> last;
        do {
            last = HTTP.send(java.net.http.HttpRequest.newBuilder(node.readyUri()).timeout(REQUEST_TIMEOUT).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            if (last.statusCode() == 200) {
                assertEquals("ready\n", last.body());
                return;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        throw new AssertionError(node.name() + ": GET /ready answered " + last.statusCode() + " " + last.body());
    }

    static SessionReply ok(SessionReply reply, String what) {
        assertEquals(200, reply.status(), what + ": " + reply);
        return reply;
    }
}
