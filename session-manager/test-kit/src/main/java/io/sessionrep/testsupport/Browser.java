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
    private volatile String cookie;

    /** A user whose session cookie is the containers' JSESSIONID. */
    public Browser() {
        this("JSESSIONID");
    }

    /** A user whose session cookie is called {@code cookieName} (the filter install's is SRSESSIONID). */
    public Browser(String cookieName) {
        this.cookieName = cookieName;
    }

    /**
     * The response to one request. {@code setCookie} is the session cookie value set by it, if any;
     * {@code retryAfter} and {@code refused} the headers {@code Retry-After} and {@code X-Sessionrep-Refused}.
     */
    public record Reply(int status, String body, String node, String setCookie, String retryAfter, String refused) {
    }

    /** A request to the node's {@link SessionServlet}: {@code query} is its {@code op=...} query string. */
    public Reply get(EmbeddedNode node, String query) throws IOException, InterruptedException {
        return get(node.uri(query));
    }

    /**
     * A request with the user's cookie for {@code path}, relative to the node's servlet (so inside its context):
     * a static file, a page that does not exist, another servlet mapping.
     */
    public Reply getPath(EmbeddedNode node, String path) throws IOException, InterruptedException {
        return get(node.uri("op=get").resolve(path));
    }

    public Reply get(URI uri) throws IOException, InterruptedException {
        return get(uri, cookie == null ? java.util.List.of() : java.util.List.of(cookie));
    }

    /**
     * A request that names the session ids {@code values}, in that order, each as a session cookie of its own
     * (one {@code Cookie} header, as a client with several cookies of that name sends them), instead of the
     * user's cookie. A session cookie it sets is remembered as usual.
     */
    public Reply getNaming(EmbeddedNode node, String query, java.util.List<String> values)
            throws IOException, InterruptedException {
        return get(node.uri(query), values);
    }

    private Reply get(URI uri, java.util.List<String> values) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
        if (!values.isEmpty()) {
            StringBuilder header = new StringBuilder();
            for (String value : values) {
                header.append(header.length() == 0 ? "" : "; ").append(cookieName).append('=').append(value);
            }
            request.header("Cookie", header.toString());
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
        return new Reply(response.statusCode(), response.body(), served.orElse(null), setCookie,
                response.headers().firstValue("Retry-After").orElse(null),
                response.headers().firstValue(io.sessionrep.core.OwnershipTimeoutException.HEADER).orElse(null));
    }

    /** A request sent in the background: its headers (and cookie) can arrive long before its body. */
    public final class Pending {
        private final java.util.concurrent.CompletableFuture<HttpResponse<java.io.InputStream>> response;

        private Pending(java.util.concurrent.CompletableFuture<HttpResponse<java.io.InputStream>> response) {
            this.response = response;
        }

        /** Waits for the headers; takes the session cookie they set. */
        public int awaitHeaders() throws Exception {
            HttpResponse<java.io.InputStream> r = response.get(30, java.util.concurrent.TimeUnit.SECONDS);
            for (String header : r.headers().allValues("Set-Cookie")) {
                if (header.startsWith(cookieName + "=")) {
                    int end = header.indexOf(';');
                    cookie = header.substring(cookieName.length() + 1, end < 0 ? header.length() : end);
                }
            }
            return r.statusCode();
        }

        /** Waits for the whole body. */
        public String body() throws Exception {
            try (java.io.InputStream in = response.get(30, java.util.concurrent.TimeUnit.SECONDS).body()) {
                return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            }
        }
    }

    /** Sends a request to the node's servlet without waiting for it (see {@link Pending}). */
    public Pending start(EmbeddedNode node, String query) {
        HttpRequest.Builder request = HttpRequest.newBuilder(node.uri(query)).timeout(Duration.ofSeconds(30));
        if (cookie != null) {
            request.header("Cookie", cookieName + "=" + cookie);
        }
        return new Pending(http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofInputStream()));
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
