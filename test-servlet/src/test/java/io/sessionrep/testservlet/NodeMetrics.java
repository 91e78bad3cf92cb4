package io.sessionrep.testservlet;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.OptionalDouble;

/** Reads a node's {@code GET /metrics} (Prometheus text format) the way a Prometheus server would. */
public final class NodeMetrics {

    private static final HttpClient HTTP = SessionClient.newHttpClient();

    private NodeMetrics() {
    }

    /** The whole scrape of {@code node}'s {@code /metrics}. */
    public static HttpResponse<String> scrapeResponse(NodeProcess node) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(node.sessionUri().resolve("/metrics"))
                .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    public static String scrape(NodeProcess node) throws IOException, InterruptedException {
        HttpResponse<String> response = scrapeResponse(node);
        if (response.statusCode() != 200) {
            throw new IOException(node.name() + ": GET /metrics answered " + response.statusCode());
        }
        return response.body();
    }

    /**
     * The sum of every sample of metric {@code name} (exactly that name, any labels) in a scrape, or empty
     * when there is none.
     */
    public static OptionalDouble value(String scrape, String name) {
        double sum = 0;
        boolean found = false;
        for (String line : scrape.split("\n")) {
            if (line.startsWith("#") || !line.startsWith(name)) {
                continue;
            }
            String rest = line.substring(name.length());
            if (!rest.startsWith("{") && !rest.startsWith(" ")) {
                continue; // a longer name with this prefix
            }
            int space = rest.lastIndexOf(' ');
            sum += Double.parseDouble(rest.substring(space + 1).trim());
            found = true;
        }
        return found ? OptionalDouble.of(sum) : OptionalDouble.empty();
    }

    /** {@link #value(String, String)} of a fresh scrape of {@code node}; -1 when the metric is absent. */
    public static double value(NodeProcess node, String name) throws IOException, InterruptedException {
        return value(scrape(node), name).orElse(-1);
    }

    /** {@link #value(NodeProcess, String)}, -1 also when the scrape fails (the node is stopped, killed, ...). */
    public static double valueOrMinusOne(NodeProcess node, String name) {
        try {
            return value(node, name);
        } catch (Exception e) {
            return -1;
        }
    }
}
