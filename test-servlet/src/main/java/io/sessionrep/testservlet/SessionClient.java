package io.sessionrep.testservlet;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One simulated user of the test servlet: holds its own session cookie ({@code JSESSIONID}, or the name
 * given, e.g. the filter install's {@code SRSESSIONID}) and sends it to
 * whichever node a call names, taking the new value from any {@code Set-Cookie} answer (like a browser
 * behind a load balancer that just switched nodes). One instance per user; share the {@link HttpClient}.
 */
public final class SessionClient {

    public static final String COOKIE = "JSESSIONID";

    private final HttpClient http;
    private final Duration requestTimeout;
    private final String cookieName;
    private volatile String cookie;

    public SessionClient(HttpClient http, Duration requestTimeout) {
        this(http, requestTimeout, COOKIE);
    }

    /** A user whose session cookie is called {@code cookieName}. */
    public SessionClient(HttpClient http, Duration requestTimeout, String cookieName) {
        this.http = Objects.requireNonNull(http);
        this.requestTimeout = Objects.requireNonNull(requestTimeout);
        this.cookieName = Objects.requireNonNull(cookieName);
    }

    /** A client for local nodes: HTTP/1.1, 5 s connect timeout, no cookie store (cookies are explicit). */
    public static HttpClient newHttpClient() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /** The current session cookie value (with the container's route suffix, if any), or null. */
    public String cookie() {
        return cookie;
    }

    public void cookie(String value) {
        this.cookie = value;
    }

    public SessionReply initialize(URI sessionUri, int number, int sizeKiB) throws IOException, InterruptedException {
        return send(sessionUri, "mode=initialize&number=" + number + "&size=" + sizeKiB);
    }

    public SessionReply process(URI sessionUri) throws IOException, InterruptedException {
        return send(sessionUri, "mode=process");
    }

    /**
     * {@code process} from version {@code from} (the last one this user saw): if the HTTP client sends it a
     * second time on its own, the servlet does not process it twice ({@link SessionReply#replayed()}).
     */
    public SessionReply process(URI sessionUri, int from) throws IOException, InterruptedException {
        return send(sessionUri, "mode=process&from=" + from);
    }

    public SessionReply verify(URI sessionUri) throws IOException, InterruptedException {
        return send(sessionUri, "mode=verify");
    }

    public SessionReply destroy(URI sessionUri) throws IOException, InterruptedException {
        return send(sessionUri, "mode=destroy");
    }

    /** GET {@code sessionUri?query} with this user's cookie. */
    public SessionReply send(URI sessionUri, String query) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(sessionUri + "?" + query))
                .timeout(requestTimeout)
                .GET();
        String current = cookie;
        if (current != null) {
            request.header("Cookie", cookieName + "=" + current);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        String set = setCookie(response, cookieName);
        if (set != null) {
            cookie = set.isEmpty() ? null : set;
        }
        return new SessionReply(response.statusCode(), fieldsOf(response), set);
    }

    /**
     * The servlet's JSON fields. An error answer the container or the session manager wrote itself (a 503 when
     * a hand-over timed out, a 500 page) is not the servlet's JSON: it has no fields, and its status tells what
     * happened. A 200 that is not the servlet's JSON is still an error of the test.
     */
    private static Map<String, String> fieldsOf(HttpResponse<String> response) {
        if (response.statusCode() == 200) {
            return JsonFields.parse(response.body());
        }
        try {
            return JsonFields.parse(response.body());
        } catch (IllegalArgumentException notTheServletsJson) {
            return Map.of();
        }
    }

    /** The JSESSIONID value an answer sets ("" when it deletes the cookie), or null. */
    static String setCookie(HttpResponse<?> response) {
        return setCookie(response, COOKIE);
    }

    /** The value an answer sets for cookie {@code name} ("" when it deletes the cookie), or null. */
    static String setCookie(HttpResponse<?> response, String name) {
        for (String header : response.headers().allValues("set-cookie")) {
            if (header.startsWith(name + "=")) {
                int end = header.indexOf(';');
                String value = header.substring(name.length() + 1, end < 0 ? header.length() : end).trim();
                boolean deleted = header.toLowerCase(Locale.ROOT).contains("max-age=0");
                return deleted ? "" : value;
            }
        }
        return null;
    }
}
