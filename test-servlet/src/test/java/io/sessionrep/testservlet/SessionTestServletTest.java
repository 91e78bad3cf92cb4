package io.sessionrep.testservlet;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The servlet in a real (in-process) Jetty node without replication, over HTTP. */
class SessionTestServletTest {

    private static NodeServer node;
    private static URI uri;
    private static final HttpClient HTTP = SessionClient.newHttpClient();

    @BeforeAll
    static void startNode() throws Exception {
        LauncherOptions options = LauncherOptions.parse("--replication=off", "--http-port=0", "--node-name=node-t");
        node = NodeLauncher.start(options, new SimpleMeterRegistry(), System.err);
        uri = node.sessionUri();
    }

    @AfterAll
    static void stopNode() throws Exception {
        node.close();
    }

    private static SessionClient user() {
        return new SessionClient(HTTP, Duration.ofSeconds(10));
    }

    @Test
    void theStudysCycleInitializeProcessVerifyDestroy() throws Exception {
        SessionClient user = user();

        SessionReply created = user.initialize(uri, 2, 5);
        assertEquals(200, created.status());
        assertEquals("node-t", created.node());
        assertEquals("initialize", created.fields().get("mode"));
        assertNotNull(created.setCookie(), "a new session sets its cookie");
        assertTrue(created.setCookie().endsWith(".node-t"), "route suffix: " + created.setCookie());
        assertEquals(Workload.expected(2, 5, 0), created.state());

        SessionReply processed = user.process(uri);
        assertEquals(Workload.expected(2, 5, 1), processed.state());
        assertEquals(created.session(), processed.session());
        assertNull(processed.setCookie(), "same session: no new cookie");

        SessionReply verified = user.verify(uri);
        assertEquals(processed.state(), verified.state(), "verify changes nothing");
        assertEquals(processed.state(), user.verify(uri).state());

        SessionReply destroyed = user.destroy(uri);
        assertEquals(200, destroyed.status());
        assertEquals(processed.state(), destroyed.state(), "destroy reports the state it removed");

        SessionReply gone = user.verify(uri);
        assertEquals(404, gone.status());
        assertEquals("no session", gone.error());
        assertEquals("node-t", gone.node());
    }

    @Test
    void processFromTheVersionLastSeenIsNotDoneTwice() throws Exception {
        SessionClient user = user();
        user.initialize(uri, 2, 5);
        SessionReply first = user.process(uri, 0);
        assertEquals(Workload.expected(2, 5, 1), first.state());
        assertFalse(first.replayed());

        // the same request again (as the JDK client resends a GET whose answer it lost): answered, not redone
        SessionReply again = user.process(uri, 0);
        assertEquals(first.state(), again.state());
        assertTrue(again.replayed());
        assertEquals("true", again.fields().get("replayed"));

        assertEquals(Workload.expected(2, 5, 2), user.process(uri, 1).state());
        // a version the client did not see: processed as without from (the load's checks report it)
        SessionReply skipped = user.process(uri, 0);
        assertEquals(Workload.expected(2, 5, 3), skipped.state());
        assertFalse(skipped.replayed());
        assertNull(user.process(uri).fields().get("replayed"));
    }

    @Test
    void responsesAreSmallJson() throws Exception {
        SessionClient user = user();
        SessionReply reply = user.initialize(uri, 100, 1024);
        assertEquals(100, reply.state().attributes());
        assertEquals(100L * 1024 * 1024, reply.state().bytes());
        assertEquals(java.util.List.of("node", "session", "mode", "version", "attributes", "bytes", "checksum"),
                java.util.List.copyOf(reply.fields().keySet()));
        user.destroy(uri);
    }

    @Test
    void usersAreIsolatedByTheirCookies() throws Exception {
        SessionClient alice = user();
        SessionClient bob = user();
        alice.initialize(uri, 1, 1);
        bob.initialize(uri, 3, 2);
        alice.process(uri);

        assertNotEquals(alice.cookie(), bob.cookie());
        assertEquals(Workload.expected(1, 1, 1), alice.verify(uri).state());
        assertEquals(Workload.expected(3, 2, 0), bob.verify(uri).state());
    }

    @Test
    void reinitializeKeepsTheSession() throws Exception {
        SessionClient user = user();
        SessionReply first = user.initialize(uri, 4, 1);
        user.process(uri);
        SessionReply again = user.initialize(uri, 2, 1);
        assertEquals(first.session(), again.session());
        assertEquals(Workload.expected(2, 1, 0), again.state());
    }

    @Test
    void withoutASessionProcessVerifyAndDestroyAnswer404() throws Exception {
        for (String mode : new String[]{"process", "verify", "destroy"}) {
            SessionReply reply = user().send(uri, "mode=" + mode);
            assertEquals(404, reply.status(), mode);
            assertEquals(mode, reply.fields().get("mode"));
            assertEquals("no session", reply.error());
            assertNull(reply.setCookie(), mode + " must not create a session");
        }
    }

    @Test
    void badParametersAnswer400WithTheReason() throws Exception {
        SessionReply noMode = user().send(uri, "");
        assertEquals(400, noMode.status());
        assertTrue(noMode.error().startsWith("missing parameter mode"), noMode.error());

        SessionReply tooBig = user().send(uri, "mode=initialize&number=2&size=2048");
        assertEquals(400, tooBig.status());
        assertEquals("size: 2048 is not allowed; expected an integer from 1 to 1024", tooBig.error());
        assertNull(tooBig.setCookie(), "a refused request creates no session");

        SessionReply unknown = user().send(uri, "mode=explode");
        assertEquals(400, unknown.status());
        assertEquals("explode", unknown.fields().get("mode"));
    }

    @Test
    void unknownCookieIsNotAdopted() throws Exception {
        SessionClient user = user();
        user.cookie("made-up-id");
        assertEquals(404, user.verify(uri).status());
        SessionReply created = user.initialize(uri, 1, 1);
        assertNotEquals("made-up-id", created.session());
    }

    @Test
    void replicationOffWarnsAboutIgnoredOptions() throws Exception {
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        LauncherOptions options = LauncherOptions.parse("--replication=off", "--http-port=0", "--node-name=w",
                "--write-quota=2");
        try (NodeServer other = NodeLauncher.start(options, new SimpleMeterRegistry(), new PrintStream(warnings))) {
            assertEquals("READY node=w http=http://127.0.0.1:" + other.port() + "/session",
                    NodeLauncher.readyLine(other));
        }
        assertEquals("replication is off: ignoring [write-quota]", warnings.toString().trim());
    }
}
