package io.sessionrep.boot.it;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.CookieManager;
import java.net.CookiePolicy;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One user's browser: cookies are kept per host, so the same session cookie goes to every node on 127.0.0.1
 * (as behind a load balancer); redirects are not followed.
 */
final class Browser {

    private static final Pattern CSRF_INPUT = Pattern.compile("name=\"_csrf\"[^>]*value=\"([^\"]+)\"");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager(null, CookiePolicy.ACCEPT_ALL))
            .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(5)).build();

    HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(15)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String url, String csrfToken, String form) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(15))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form));
        if (csrfToken != null) {
            request.header("X-CSRF-TOKEN", csrfToken);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A request with HTTP Basic credentials ({@code method} GET or DELETE): an operator's call. */
    HttpResponse<String> asUser(String method, String url, String user, String password)
            throws IOException, InterruptedException {
        String credentials = java.util.Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(15))
                .header("Authorization", "Basic " + credentials)
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The value of this browser's cookie {@code name} for 127.0.0.1, or null. */
    String cookie(String name) {
        return ((CookieManager) http.cookieHandler().orElseThrow()).getCookieStore().getCookies().stream()
                .filter(c -> c.getName().equals(name)).map(java.net.HttpCookie::getValue).findFirst().orElse(null);
    }

    /** Signs in on the login page of {@code baseUrl}; the redirect it answers (302 to /cart when it worked). */
    HttpResponse<String> logIn(String baseUrl, String user, String password) throws IOException, InterruptedException {
        HttpResponse<String> page = get(baseUrl + "/login");
        Matcher csrf = CSRF_INPUT.matcher(page.body());
        if (page.statusCode() != 200 || !csrf.find()) {
            throw new AssertionError("no login form at " + baseUrl + "/login: " + page.statusCode() + " " + page.body());
        }
        return post(baseUrl + "/login", null, "username=" + enc(user) + "&password=" + enc(password)
                + "&_csrf=" + enc(csrf.group(1)));
    }

    static JsonNode json(HttpResponse<String> response) {
        return JSON.readTree(response.body());
    }

    static String enc(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
