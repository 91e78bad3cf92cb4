package io.sessionrep.tomcat.dist;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * One browser: keeps JSESSIONID and sends it to whichever node it is told to, as behind a balancer. Each
 * request is a GET of {@code app} followed by what {@link #get} is given.
 */
final class User {
    /** The test WAR's servlet, followed by a mode ({@code initialize&number=2&size=5}, {@code verify}, ...). */
    static final String SESSION_TEST = "/session-test/session?mode=";

    private final HttpClient http;
    private final String app;
    String cookie;
    /** An {@code Authorization} header sent with every request (HTTP Basic credentials), or null. */
    String authorization;

    /** A user of the test WAR with a client of its own. */
    User() {
        this(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build(), SESSION_TEST);
    }

    /** A user of {@code app} (a path and the start of a query) sending through {@code http}. */
    User(HttpClient http, String app) {
        this.http = http;
        this.app = app;
    }

    /** A user who sends HTTP Basic credentials with every request. */
    static User signedIn(String name, String password) {
        User user = new User();
        user.authorization = "Basic " + java.util.Base64.getEncoder().encodeToString((name + ":" + password)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return user;
    }

    Reply get(TomcatProcess node, String query) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + node.httpPort + app + query)).timeout(Duration.ofSeconds(20));
        String sent = cookie;
        if (sent != null) {
            request.header("Cookie", "JSESSIONID=" + sent);
        }
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        String set = null;
        for (String header : response.headers().allValues("Set-Cookie")) {
            if (header.startsWith("JSESSIONID=")) {
                int end = header.indexOf(';');
                set = header.substring("JSESSIONID=".length(), end < 0 ? header.length() : end);
            }
        }
        if (set != null) {
            cookie = set;
        }
        return new Reply(response.statusCode(), response.body(), set);
    }
}
