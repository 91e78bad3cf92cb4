package io.sessionrep.tomcat.dist;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** One browser: keeps JSESSIONID and sends it to whichever node it is told to, as behind a balancer. */
final class TomcatUser {
    private static final String APP = "/session-test/session?mode=";

    record Reply(int status, String body, String setCookie) {
        String field(String name) {
            Matcher m = Pattern.compile("\"" + name + "\":\"?([^\",}]*)").matcher(body);
            assertTrue(m.find(), "no " + name + " in " + body);
            return m.group(1);
        }
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    String cookie;

    Reply get(TomcatProcess node, String mode) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + node.httpPort + APP + mode)).timeout(Duration.ofSeconds(20));
        if (cookie != null) {
            request.header("Cookie", "JSESSIONID=" + cookie);
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
