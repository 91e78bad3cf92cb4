package io.sessionrep.perf;

import io.sessionrep.testservlet.JsonFields;
import io.sessionrep.testservlet.SessionReply;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * One simulated user of the test servlet for the runner's own workloads: a session cookie (of any name:
 * {@code JSESSIONID}, Spring Session's {@code SESSION}) sent to whichever node a request goes to, replaced by
 * any {@code Set-Cookie}. Unlike test-servlet's {@code SessionClient} it accepts any answer: a body that is
 * not the servlet's JSON (a container's error page, an empty 500) gives a reply without fields, so that a
 * peer's failure is counted by its status instead of stopping the measurement. Thread-safe: the clients of
 * one session may share one user (one browser's cookie jar).
 */
final class HttpUser {

    private final HttpClient http;
    private final Duration timeout;
    private final String cookieName;
    private volatile String cookie;

    HttpUser(HttpClient http, Duration timeout, String cookieName) {
        this.http = http;
        this.timeout = timeout;
        this.cookieName = cookieName;
    }

    String cookie() {
        return cookie;
    }

    void cookie(String value) {
        cookie = value;
    }

    SessionReply initialize(URI node, int number, int sizeKiB) throws IOException, InterruptedException {
        return send(node, "mode=initialize&number=" + number + "&size=" + sizeKiB);
    }

    SessionReply process(URI node) throws IOException, InterruptedException {
        return send(node, "mode=process");
    }

    /** {@code process} from version {@code from}: a request the HTTP client resends is answered "replayed". */
    SessionReply process(URI node, int from) throws IOException, InterruptedException {
        return send(node, "mode=process&from=" + from);
    }

    SessionReply verify(URI node) throws IOException, InterruptedException {
        return send(node, "mode=verify");
    }

    SessionReply destroy(URI node) throws IOException, InterruptedException {
        return send(node, "mode=destroy");
    }

    /** What a request for a static file answered: its status and how many body bytes came. */
    record Fetched(int status, int bytes) {
    }

    /** GET of a static file at {@code uri} with this user's cookie, as a browser fetches a page's resources. */
    Fetched fetch(URI uri) throws IOException, InterruptedException {
        HttpResponse<byte[]> response = http.send(request(uri).build(), HttpResponse.BodyHandlers.ofByteArray());
        takeCookie(response);
        return new Fetched(response.statusCode(), response.body().length);
    }

    SessionReply send(URI node, String query) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request(URI.create(node + "?" + query)).build(),
                HttpResponse.BodyHandlers.ofString());
        String set = takeCookie(response);
        Map<String, String> fields;
        try {
            fields = JsonFields.parse(response.body());
        } catch (RuntimeException notTheServlets) {
            fields = Map.of();
        }
        return new SessionReply(response.statusCode(), fields, set);
    }

    private HttpRequest.Builder request(URI uri) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout).GET();
        String current = cookie;
        if (current != null) {
            request.header("Cookie", cookieName + "=" + current);
        }
        return request;
    }

    /** Takes the session cookie of a {@code Set-Cookie}, if any; returns its value ("" when deleted), else null. */
    private String takeCookie(HttpResponse<?> response) {
        String set = null;
        for (String header : response.headers().allValues("set-cookie")) {
            if (header.startsWith(cookieName + "=")) {
                int end = header.indexOf(';');
                String value = header.substring(cookieName.length() + 1, end < 0 ? header.length() : end).trim();
                boolean deleted = value.isEmpty() || header.toLowerCase(Locale.ROOT).contains("max-age=0");
                set = deleted ? "" : value;
            }
        }
        if (set != null) {
            cookie = set.isEmpty() ? null : set;
        }
        return set;
    }
}
