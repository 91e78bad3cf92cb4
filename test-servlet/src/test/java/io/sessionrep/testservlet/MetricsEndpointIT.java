package io.sessionrep.testservlet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A running node JVM serves its meters at {@code GET /metrics} in Prometheus text format. */
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

        await("node-b holds the backup").atMost(Duration.ofSeconds(10))
                .until(() -> NodeMetrics.value(b, "sessionrep_sessions_backup") == 1.0);
        assertEquals(0.0, NodeMetrics.value(b, "sessionrep_sessions_primary"));
    }
}
