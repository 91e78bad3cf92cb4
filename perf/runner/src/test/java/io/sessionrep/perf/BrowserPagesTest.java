package io.sessionrep.perf;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The page-load client against two small HTTP servers on 127.0.0.1 that share one session store (as two nodes of
 * a replicated cluster) and serve the test servlet's answers and two static files.
 */
@Timeout(30)
class BrowserPagesTest {

    private static final StaticFiles FILES = new StaticFiles(List.of(new StaticFiles.File("static/a.css", 300),
            new StaticFiles.File("static/b.js", 1200)));

    private final Map<String, Integer> versions = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();
    /** Which node answered each write, in order (one browser: the order it sent them). */
    private final List<String> writesServedBy = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, AtomicInteger> staticServedBy = new ConcurrentHashMap<>();
    private final List<HttpServer> servers = new ArrayList<>();
    /** Node b answers every n-th write 200 without applying it (0: never). */
    private volatile int nodeBForgetsEvery;

    @AfterEach
    void stop() {
        servers.forEach(s -> s.stop(0));
    }

    @Test
    void eachRequestGoesToTheNextNodeAndAPageIsAWriteAndEveryStaticFile() throws Exception {
        BrowserPages.Outcome o = new BrowserPages(List.of(node("a"), node("b")), "session", "JSESSIONID", FILES,
                Duration.ofSeconds(5)).run(1, 2, 5, Duration.ofMillis(800));

        assertTrue(o.pages() >= 2, "pages: " + o.pages());
        assertEquals(o.pages(), o.writesOk());
        assertEquals(0, o.incrementsLost());
        assertEquals(0, o.unreadable());
        assertEquals(Map.of(), o.failures());
        assertEquals(o.pages(), o.writes().getTotalCount());
        assertEquals(o.pages() * 2, o.staticFiles().getTotalCount());
        assertEquals(o.pages(), o.pageLoad().getTotalCount());
        // initialize on a; then each page: write, two files; so the writes go to b, a, b, ... (3 requests a page)
        List<String> writes = List.copyOf(writesServedBy);
        for (int i = 0; i < writes.size(); i++) {
            assertEquals(i % 2 == 0 ? "b" : "a", writes.get(i), "write " + i + " of " + writes);
        }
        assertEquals(o.pages(), staticServedBy.get("a").get(), "one file of each page on each node");
        assertEquals(o.pages(), staticServedBy.get("b").get());
        assertTrue(o.pagesPerSecond() > 0);
    }

    @Test
    void withThreeNodesEachPageStartsOneNodeFurtherSoThatNoTwoWritesInARowMeetOneNode() throws Exception {
        BrowserPages.Outcome o = new BrowserPages(List.of(node("a"), node("b"), node("c")), "session", "JSESSIONID",
                new StaticFiles(List.of(FILES.files().get(0), FILES.files().get(1), new StaticFiles.File("static/a.css", 300))),
                Duration.ofSeconds(5)).run(1, 1, 1, Duration.ofMillis(800));

        assertTrue(o.pages() >= 2, "pages: " + o.pages());
        assertEquals(0, o.incrementsLost());
        List<String> writes = List.copyOf(writesServedBy);
        for (int i = 0; i < writes.size(); i++) {
            assertEquals(List.of("b", "c", "a").get(i % 3), writes.get(i), "write " + i + " of " + writes);
        }
    }

    @Test
    void writesAnsweredButNotKeptAreIncrementsLostWhenTheSessionIsReadBack() throws Exception {
        nodeBForgetsEvery = 1;
        BrowserPages.Outcome o = new BrowserPages(List.of(node("a"), node("b")), "session", "JSESSIONID", FILES,
                Duration.ofSeconds(5)).run(2, 1, 1, Duration.ofMillis(800));

        assertTrue(o.pages() >= 2, "pages: " + o.pages());
        assertEquals(o.pages(), o.writesOk());
        // every write node-b answered was forgotten: the version read back counts node-a's only
        long onB = writesServedBy.stream().filter("b"::equals).count();
        assertTrue(onB > 0, writesServedBy.toString());
        assertEquals(onB, o.incrementsLost());
        assertEquals(Map.of(), o.failures());
        BrowserPages.Outcome twice = o.plus(o);
        assertEquals(2 * o.incrementsLost(), twice.incrementsLost());
        assertEquals(2 * o.staticFiles().getTotalCount(), twice.staticFiles().getTotalCount());
        assertEquals(o.pagesPerSecond(), twice.pagesPerSecond(), 1e-9);
    }

    /** One node: the servlet's modes at /app/session, the static files at /app/static/. */
    private URI node(String name) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(8));
        AtomicInteger writes = new AtomicInteger();
        server.createContext("/app/session", exchange -> {
            String query = exchange.getRequestURI().getQuery();
            String cookie = exchange.getRequestHeaders().getFirst("Cookie");
            String id = cookie == null ? null : cookie.substring(cookie.indexOf('=') + 1);
            if (query.startsWith("mode=initialize")) {
                id = "s" + ids.incrementAndGet();
                versions.put(id, 0);
                exchange.getResponseHeaders().add("Set-Cookie", "JSESSIONID=" + id + "; Path=/app");
            }
            Integer version = id == null ? null : versions.get(id);
            if (version == null) {
                answer(exchange, 404, "{\"node\":\"" + name + "\",\"status\":404,\"error\":\"no session\"}");
                return;
            }
            if (query.startsWith("mode=process")) {
                writesServedBy.add(name);
                version++;
                boolean forget = name.equals("b") && nodeBForgetsEvery > 0 && writes.incrementAndGet() % nodeBForgetsEvery == 0;
                if (!forget) {
                    versions.put(id, version);
                }
            }
            answer(exchange, 200, "{\"node\":\"" + name + "\",\"session\":\"" + id + "\",\"mode\":\"x\",\"version\":" + version
                    + ",\"attributes\":1,\"bytes\":1,\"checksum\":\"c\"}");
        });
        server.createContext("/app/static/", exchange -> {
            staticServedBy.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
            String path = exchange.getRequestURI().getPath().substring("/app/".length());
            StaticFiles.File file = FILES.files().stream().filter(f -> f.path().equals(path)).findFirst().orElse(null);
            answer(exchange, file == null ? 404 : 200, file == null ? "" : "x".repeat((int) file.bytes()));
        });
        server.start();
        servers.add(server);
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/app/");
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
