package io.sessionrep.testsupport;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * One user: remembers the session cookie (JSESSIONID unless told otherwise) and sends it explicitly to
 * whichever node it is told to (no cookie jar: the cookie follows the user across nodes, as behind a load
 * balancer).
 */
public final class Browser {
    private final String cookieName;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private String cookie;

    /** A user whose session cookie is the containers' JSESSIONID. */
    public Browser() {
        this("JSESSIONID");
    }

    /** A user whose session cookie is called {@code cookieName} (the filter install's is SRSESSIONID). */
    public Browser(String cookieName) {
        this.cookieName = cookieName;
    }

    /** The response to one request. {@code setCookie} is the session cookie value set by it, if any. */
    public record Reply(int status, String body, String node, String setCookie) {
    }

    /** A request to the node's {@link SessionServlet}: {@code query} is its {@code op=...} query string. */
    public Reply get(EmbeddedNode node, String query) throws IOException, InterruptedException {
        return get(node.uri(query));
    }

    public Reply get(URI uri) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
        if (cookie != null) {
            request.header("Cookie", cookieName + "=" + cookie);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        String setCookie = null;
        for (String header : response.headers().allValues("Set-Cookie")) {
            if (header.startsWith(cookieName + "=")) {
                int end = header.indexOf(';');
                setCookie = header.substring(cookieName.length() + 1, end < 0 ? header.length() : end);
            }
        }
        if (setCookie != null) {
            cookie = setCookie;
        }
        Optional<String> served = response.headers().firstValue("X-Node");
        return new Reply(response.statusCode(), response.body(), served.orElse(null), setCookie);
    }

    /** The cookie value: the extended session id, {@code <id>.<node-name>}. */
    public String cookie() {
        return cookie;
    }

    /** The cluster id: the cookie without its route suffix. */
    public String sessionId() {
        return cookie.substring(0, cookie.lastIndexOf('.'));
    }
}
