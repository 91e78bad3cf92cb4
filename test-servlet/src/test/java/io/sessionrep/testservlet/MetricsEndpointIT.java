package io.sessionrep.testservlet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A running node JVM serves its meters at {@code GET /metrics} in Prometheus text format, and every meter the
 * Grafana dashboard of the repository queries is among them.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MetricsEndpointIT {

    private LocalCluster cluster;

    @AfterEach
    void cleanUp() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void nodeServesItsReplicationMetersInPrometheusFormat() throws Exception {
        cluster = LocalCluster.builder().size(2).option("replication-mode", "sync").start();
        NodeProcess a = cluster.node("node-a");
        NodeProcess b = cluster.node("node-b");
        cluster.awaitView(Duration.ofSeconds(30), "node-a", "node-b");

        HttpClient http = SessionClient.newHttpClient();
        SessionClient user = new SessionClient(http, Duration.ofSeconds(10));
        assertTrue(user.initialize(a.sessionUri(), 2, 1).ok());
        assertTrue(user.process(a.sessionUri()).ok());

        HttpResponse<String> response = NodeMetrics.scrapeResponse(a);
        assertEquals(200, response.statusCode());
        assertTrue(response.headers().firstValue("content-type").orElse("").startsWith("text/plain"),
                response.headers().toString());
        String scrape = response.body();
        scrape.lines().filter(l -> l.startsWith("sessionrep_") || l.startsWith("# TYPE sessionrep_"))
                .forEach(l -> System.out.println("[metrics] " + l));
        assertTrue(scrape.contains("# TYPE sessionrep_replication_updates_sent_total counter"), scrape);
        assertTrue(scrape.contains("sessionrep_replication_updates_sent_total{kind=\"full\",node=\"node-a\"}"),
                scrape);
        assertTrue(NodeMetrics.value(scrape, "sessionrep_replication_updates_sent_total").orElseThrow() >= 2,
                "initialize (full) and process (delta) replicated:\n" + scrape);
        assertTrue(scrape.contains("# TYPE sessionrep_sessions_primary gauge"), scrape);
        assertEquals(1.0, NodeMetrics.value(scrape, "sessionrep_sessions_primary").orElseThrow(), scrape);
        assertEquals(0.0, NodeMetrics.value(scrape, "sessionrep_sessions_below_quota").orElseThrow(), scrape);
        assertTrue(NodeMetrics.value(scrape, "sessionrep_sync_ack_seconds_count").orElseThrow() >= 2, scrape);

        assertEquals(List.of(), metersTheDashboardUsesThatTheNodeDoesNotServe(scrape),
                "docs/grafana/sessionrep-dashboard.json queries meters this node does not serve");

        await("node-b holds the backup").atMost(Duration.ofSeconds(10))
                .until(() -> NodeMetrics.value(b, "sessionrep_sessions_backup") == 1.0);
        assertEquals(0.0, NodeMetrics.value(b, "sessionrep_sessions_primary"));
    }

    /**
     * The metric names in the dashboard's queries (every {@code sessionrep_...} identifier of an {@code "expr"})
     * that the scrape has no sample of. A node registers all its meters when it starts, so a name missing here is
     * a name the dashboard got wrong (or a meter that was renamed).
     */
    static List<String> metersTheDashboardUsesThatTheNodeDoesNotServe(String scrape) throws IOException {
        String dashboard = Files.readString(DASHBOARD);
        Set<String> used = new TreeSet<>();
        Matcher expr = Pattern.compile("\"expr\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(dashboard);
        while (expr.find()) {
            Matcher name = Pattern.compile("\\bsessionrep_[a-z_]+").matcher(expr.group(1));
            while (name.find()) {
                used.add(name.group());
            }
        }
        assertTrue(used.size() >= 20, "the dashboard's queries were found: " + used);
        Set<String> served = new TreeSet<>();
        scrape.lines().filter(l -> l.startsWith("sessionrep_"))
                .forEach(l -> served.add(l.split("[{ ]", 2)[0]));
        return used.stream().filter(n -> !served.contains(n) && !REGISTERED_AT_FIRST_USE.contains(n)).toList();
    }

    /**
     * Meters a node registers only when the first event happens, so that a fresh node cannot serve them: one
     * counter per class whose values could not be restored (ReplicationMetrics.INCOMPATIBLE, tagged by class).
     */
    private static final Set<String> REGISTERED_AT_FIRST_USE = Set.of("sessionrep_attributes_incompatible_total");

    private static final Path DASHBOARD = repositoryRoot().resolve("docs/grafana/sessionrep-dashboard.json");

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("docs/grafana"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("docs/grafana not found above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }
}
