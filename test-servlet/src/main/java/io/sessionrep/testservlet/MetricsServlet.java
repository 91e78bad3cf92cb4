package io.sessionrep.testservlet;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.function.Supplier;

/**
 * Read-only {@code GET /metrics}: the node's meters in the Prometheus text exposition format (version 0.0.4),
 * as a Prometheus server scrapes them. Micrometer names become Prometheus names with dots as underscores,
 * counters ending in {@code _total} ({@code sessionrep.replication.updates.sent} is
 * {@code sessionrep_replication_updates_sent_total{kind="delta",node="node-a"}}), gauges unchanged
 * ({@code sessionrep_sessions_primary{node="node-a"}}), timers as {@code _seconds_count/_sum/_max}.
 */
public final class MetricsServlet extends HttpServlet {

    /** The content type of the Prometheus text format. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final Supplier<String> scrape;

    public MetricsServlet(Supplier<String> scrape) {
        this.scrape = scrape;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String text = scrape.get();
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType(CONTENT_TYPE);
        response.setHeader("Cache-Control", "no-store");
        response.getWriter().print(text);
    }
}
