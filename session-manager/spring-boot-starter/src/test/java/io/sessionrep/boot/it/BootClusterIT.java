package io.sessionrep.boot.it;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sample shop as two real processes on 127.0.0.1 (a static ring of two), on embedded Tomcat and then on
 * embedded Jetty, with nothing but the starter and {@code sessionrep.*} properties: a user signs in on A and fills
 * the cart there, the next request goes to B with the same cookies and sees the user and the cart; after
 * {@code kill -9} of A the session, with A's last change, is still there on B; {@code maximumSessions(1)} holds across
 * the nodes (a user signing in on B ends his session on A); an operator finds a user's session from B through
 * {@code /actuator/sessionrep} and ends it there, and the user's next request on A signs in again. And a bad option stops start-up
 * with Boot's failure report naming it.
 */
class BootClusterIT {

    private final List<BootNode> nodes = new ArrayList<>();

    @AfterEach
    void killNodes() throws InterruptedException {
        for (BootNode node : nodes) {
            node.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tomcat", "jetty"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void sessionFollowsTheUserToTheOtherNodeAndSurvivesAKill(String container) throws Exception {
        int[] ports = BootNode.freePorts(4);
        String peers = "--sessionrep.peers=127.0.0.1:" + ports[2] + ",127.0.0.1:" + ports[3];
        BootNode a = started(BootNode.start(container, "a", ports[0], ports[2], peers));
        BootNode b = started(BootNode.start(container, "b", ports[1], ports[3], peers));
        awaitCluster(a, 2);
        awaitCluster(b, 2);
        awaitReadinessProbe(a, "UP");
        awaitReadinessProbe(b, "UP");

        Browser alice = new Browser();
        HttpResponse<String> login = alice.logIn(a.url(""), "alice", "alice-secret");
        assertEquals(302, login.statusCode(), "login on A: " + login.body());
        assertTrue(login.headers().firstValue("Location").orElse("").endsWith("/cart"),
                "login on A redirects to the cart: " + login.headers().map());
        JsonNode cartOnA = Browser.json(expectOk(alice.get(a.url("/cart")), a));
        expectOk(alice.post(a.url("/cart/items"), cartOnA.path("csrf").asString(), "item=apple&quantity=2"), a);

        JsonNode cartOnB = Browser.json(expectOk(alice.get(b.url("/cart")), b));
        assertEquals("alice", cartOnB.path("user").asString(), "B knows who is signed in: " + cartOnB);
        assertEquals(2, cartOnB.path("items").path("apple").asInt(), "B sees the cart filled on A: " + cartOnB);

        // one session per user in the cluster: bob signs in on A, then again on B; his session on A ends
        Browser bobOnA = new Browser();
        assertEquals(302, bobOnA.logIn(a.url(""), "bob", "bob-secret").statusCode());
        expectOk(bobOnA.get(a.url("/cart")), a);
        Browser bobOnB = new Browser();
        assertEquals(302, bobOnB.logIn(b.url(""), "bob", "bob-secret").statusCode());
        expectOk(bobOnB.get(b.url("/cart")), b);
        HttpResponse<String> olderSession = bobOnA.get(a.url("/cart"));
        assertEquals(302, olderSession.statusCode(), "bob's older session on A ended: " + olderSession.body());
        assertTrue(olderSession.headers().firstValue("Location").orElse("").endsWith("/login"),
                "sent to sign in again: " + olderSession.headers().map());
        expectOk(bobOnB.get(b.url("/cart")), b); // the newer one lives on

        // back to A, one more change there
        expectOk(alice.post(a.url("/cart/items"), cartOnB.path("csrf").asString(), "item=pear&quantity=1"), a);

        // the operator, on B, lists the cluster's sessions, finds alice's (owned by A) and ends it
        Browser ops = new Browser();
        String alicesId = alice.cookie("JSESSIONID");
        JsonNode all = Browser.json(expectOk(ops.asUser("GET", b.url("/actuator/sessionrep/sessions"), "ops",
                "ops-secret"), b));
        assertEquals(List.of("b", "a"), names(all.path("answered")), "both members answered: " + all);
        assertTrue(all.path("result").size() >= 2, "alice's and bob's sessions listed: " + all);
        assertTrue(!all.toString().contains(alicesId.substring(0, alicesId.indexOf('.'))), "no whole id: " + all);
        assertEquals(403, ops.asUser("DELETE", b.url("/actuator/sessionrep/principals/alice"), "bob", "bob-secret")
                .statusCode(), "a shopper may not end sessions");
        JsonNode found = Browser.json(expectOk(ops.asUser("GET", b.url("/actuator/sessionrep/principals/alice"), "ops",
                "ops-secret"), b));
        assertEquals(1, found.path("result").size(), "alice's one session, found from B: " + found);
        JsonNode row = found.path("result").get(0);
        assertEquals("a", row.path("owner").asString(), found.toString());
        assertEquals("alice", row.path("principal").asString(), found.toString());
        assertTrue(row.path("shortId").asString().matches("#[0-9a-f]{8}"), found.toString());
        assertTrue(!found.toString().contains(alicesId.substring(0, alicesId.indexOf('.'))), "no whole id: " + found);
        JsonNode ended = Browser.json(expectOk(ops.asUser("DELETE", b.url("/actuator/sessionrep/principals/alice"),
                "ops", "ops-secret"), b));
        assertEquals(1, ended.path("result").asInt(), "one session ended: " + ended);
        HttpResponse<String> signedOut = awaitStatus(302, alice, a.url("/cart"));
        assertEquals(302, signedOut.statusCode(), "alice's session on A ended: " + signedOut.body());
        assertTrue(signedOut.headers().firstValue("Location").orElse("").endsWith("/login"),
                "alice is sent to sign in again: " + signedOut.headers().map());

        // one session by its short id (the # left out of the path): bob's on B
        String bobsShortId = Browser.json(expectOk(ops.asUser("GET", b.url("/actuator/sessionrep/principals/bob"),
                "ops", "ops-secret"), b)).path("result").get(0).path("shortId").asString();
        JsonNode bobEnded = Browser.json(expectOk(ops.asUser("DELETE", a.url("/actuator/sessionrep/sessions/"
                + bobsShortId.substring(1)), "ops", "ops-secret"), a));
        assertEquals(1, bobEnded.path("result").asInt(), "bob's session ended from A: " + bobEnded);
        assertEquals(302, awaitStatus(302, bobOnB, b.url("/cart")).statusCode(), "bob's session on B ended");

        // alice signs in again on A and fills a cart there, then A dies
        assertEquals(302, alice.logIn(a.url(""), "alice", "alice-secret").statusCode());
        JsonNode again = Browser.json(expectOk(alice.get(a.url("/cart")), a));
        expectOk(alice.post(a.url("/cart/items"), again.path("csrf").asString(), "item=apple&quantity=2"), a);
        expectOk(alice.post(a.url("/cart/items"), again.path("csrf").asString(), "item=pear&quantity=1"), a);
        a.kill();

        JsonNode afterKill = Browser.json(awaitOk(alice, b.url("/cart"), b));
        assertEquals("alice", afterKill.path("user").asString(), "still signed in on B after kill -9 of A: " + afterKill);
        assertEquals(2, afterKill.path("items").path("apple").asInt(), "cart on B after kill -9 of A: " + afterKill);
        assertEquals(1, afterKill.path("items").path("pear").asInt(), "A's last change survived on B: " + afterKill);

        // the meters are in Boot's registry
        JsonNode meters = Browser.json(expectOk(new Browser().get(b.url("/actuator/metrics")), b));
        assertTrue(meters.path("names").toString().contains("\"sessionrep."), "sessionrep meters in /actuator/metrics: "
                + meters);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void badWriteQuotaStopsStartUpNamingTheOption() throws Exception {
        int[] ports = BootNode.freePorts(2);
        BootNode bad = started(BootNode.start("tomcat", "bad", ports[0], ports[1], "--sessionrep.write-quota=abc"));
        int exit = bad.exitCode(45);
        String output = bad.output();
        assertNotEquals(0, exit, output);
        assertTrue(output.contains("APPLICATION FAILED TO START"), output);
        assertTrue(output.contains("sessionrep.write-quota"), "names the property: " + output);
        assertTrue(output.contains("'abc'") || output.contains("abc"), "names the value: " + output);
        assertTrue(output.contains("0..64"), "says what is allowed: " + output);
        assertTrue(!output.contains("Tomcat started on port"), "no web server started: " + output);
    }

    private static List<String> names(JsonNode array) {
        List<String> names = new ArrayList<>();
        array.forEach(name -> names.add(name.asString()));
        return names;
    }

    private BootNode started(BootNode node) {
        nodes.add(node);
        return node;
    }

    /** Waits (at most 60 s) until {@code node}'s cluster view has {@code members} members and it is ready. */
    private static void awaitCluster(BootNode node, int members) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Browser probe = new Browser();
        String last = "(no answer)";
        while (System.nanoTime() < deadline) {
            if (!node.isAlive()) {
                throw new AssertionError(node.name + " exited:\n" + node.tail());
            }
            try {
                HttpResponse<String> view = probe.get(node.url("/actuator/sessionrep"));
                last = view.statusCode() + " " + view.body();
                JsonNode report = view.statusCode() == 200 ? Browser.json(view) : null;
                if (report != null && report.path("members").size() == members && report.path("ready").asBoolean()) {
                    return;
                }
            } catch (java.io.IOException notListeningYet) {
                last = notListeningYet.toString();
            }
            Thread.sleep(250);
        }
        throw new AssertionError(node.name + " did not see " + members + " members within 60 s; last: " + last
                + "\n" + node.tail());
    }

    /**
     * Waits (at most 10 s) until Boot's readiness probe of {@code node} says {@code status} (the node's readiness
     * reaches it within a second).
     */
    private static void awaitReadinessProbe(BootNode node, String status) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Browser probe = new Browser();
        String last;
        do {
            HttpResponse<String> readiness = probe.get(node.url("/actuator/health/readiness"));
            last = readiness.statusCode() + " " + readiness.body();
            if (Browser.json(readiness).path("status").asString().equals(status)) {
                return;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        throw new AssertionError(node.name + ": readiness probe not " + status + " within 10 s; last: " + last
                + "\n" + node.tail());
    }

    /** GET (at most 5 s) until the answer has {@code status}: an invalidation reaches the other node by message. */
    private static HttpResponse<String> awaitStatus(int status, Browser browser, String url) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        HttpResponse<String> response = browser.get(url);
        while (response.statusCode() != status && System.nanoTime() < deadline) {
            Thread.sleep(100);
            response = browser.get(url);
        }
        return response;
    }

    /** GET until 200 (a request right after a kill may wait out the dead owner, or be refused with 503). */
    private static HttpResponse<String> awaitOk(Browser browser, String url, BootNode node) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        HttpResponse<String> response = browser.get(url);
        while (response.statusCode() != 200 && System.nanoTime() < deadline) {
            Thread.sleep(250);
            response = browser.get(url);
        }
        return expectOk(response, node);
    }

    private static HttpResponse<String> expectOk(HttpResponse<String> response, BootNode node) {
        if (response.statusCode() != 200) {
            throw new AssertionError(response.request().method() + " " + response.uri() + ": " + response.statusCode()
                    + " " + response.headers().map() + " " + response.body() + "\n" + node.name + ":\n" + node.tail());
        }
        return response;
    }
}
