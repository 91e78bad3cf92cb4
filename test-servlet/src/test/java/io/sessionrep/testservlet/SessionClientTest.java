package io.sessionrep.testservlet;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * What the load clients see of answers that are not the servlet's: a 503 page the session manager wrote is a 503
 * (counted as refused by {@link NonStickyLoad}), not an exception that ends the client's thread.
 */
class SessionClientTest {
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private URI serve(int status, String body) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/session", exchange -> {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/session");
    }

    private static SessionClient client() {
        return new SessionClient(HttpClient.newHttpClient(), Duration.ofSeconds(10), SessionClient.COOKIE);
    }

    @Test
    void anErrorPageThatIsNotTheServletsJsonIsItsStatusWithoutFields() throws Exception {
        URI uri = serve(503, "<html><body>session not handed over in time</body></html>");
        SessionReply reply = client().process(uri, 1);
        assertEquals(503, reply.status());
        assertNull(reply.version());
    }

    @Test
    void aServletAnswerIsReadAndA200ThatIsNotJsonIsAnError() throws Exception {
        URI uri = serve(200, "{\"node\":\"node-a\",\"version\":\"3\"}");
        SessionReply reply = client().process(uri, 2);
        assertEquals(3, reply.version());
        assertEquals("node-a", reply.node());
        stop();
        URI broken = serve(200, "not json");
        assertThrows(IllegalArgumentException.class, () -> client().process(broken, 2));
    }
}
