package io.sessionrep.testservlet.discovery;

import io.sessionrep.testservlet.LocalCluster;
import io.sessionrep.testservlet.NodeProcess;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A cluster of node JVMs launched all at once ({@link LocalCluster.Builder#startTogether()}), as after a full
 * restart or a StatefulSet started in parallel, and how long it took to become one view:
 * <ul>
 *   <li>{@link #readyMs()}: from the launch until the last node printed READY;</li>
 *   <li>{@link #viewsAtReady()}: the distinct views the nodes reported right then (more than one: the cluster
 *       had split);</li>
 *   <li>{@link #awaitOneView}: from the launch until every node's {@code GET /cluster} listed all nodes.</li>
 * </ul>
 * Times end when the answers that showed it were all in: they include one round of {@code GET /cluster} to every
 * node (tens of milliseconds, up to about a second while eight JVMs that just started share two cores) and up
 * to 50 ms of polling. Closing it kills the nodes.
 */
final class ColdStart implements AutoCloseable {

    /** Small node JVMs: eight of them share two cores. */
    static final List<String> NODE_JVM = List.of("-Xms16m", "-Xmx64m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-Djava.net.preferIPv4Stack=true");

    private final LocalCluster cluster;
    private final long launchedNanos;
    private final long readyMs;
    private final List<Set<String>> viewsAtReady;
    /** When the answers of {@link #viewsAtReady} were all in, from the launch. */
    private final long viewsReadMs;

    private ColdStart(LocalCluster cluster, long launchedNanos, long readyMs, List<Set<String>> viewsAtReady,
                      long viewsReadMs) {
        this.cluster = cluster;
        this.launchedNanos = launchedNanos;
        this.readyMs = readyMs;
        this.viewsAtReady = viewsAtReady;
        this.viewsReadMs = viewsReadMs;
    }

    /** Launches every node of {@code builder} at once and returns when all are READY. */
    static ColdStart launch(LocalCluster.Builder builder) throws IOException, InterruptedException {
        long launched = System.nanoTime();
        LocalCluster cluster = builder.startTogether();
        long ready = sinceMs(launched);
        try {
            List<Set<String>> views = distinctViews(cluster);
            return new ColdStart(cluster, launched, ready, views, sinceMs(launched));
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    LocalCluster cluster() {
        return cluster;
    }

    long readyMs() {
        return readyMs;
    }

    List<Set<String>> viewsAtReady() {
        return viewsAtReady;
    }

    /**
     * Waits until every node's view holds all nodes, at most {@code timeout} after the last READY line.
     *
     * @return milliseconds from the launch
     * @throws IllegalStateException when the views did not agree in time (with what each node saw)
     */
    long awaitOneView(Duration timeout) throws InterruptedException {
        List<String> names = names();
        if (viewsAtReady.size() == 1 && viewsAtReady.get(0).equals(Set.copyOf(names))) {
            return viewsReadMs; // one view already when the last node was READY
        }
        cluster.awaitView(timeout, names);
        return sinceMs(launchedNanos);
    }

    List<String> names() {
        return cluster.nodes().stream().map(NodeProcess::name).toList();
    }

    /** The views the nodes report now, each as a set of member names, without repeats. */
    private static List<Set<String>> distinctViews(LocalCluster cluster) throws IOException, InterruptedException {
        Set<Set<String>> views = new LinkedHashSet<>();
        for (NodeProcess node : cluster.nodes()) {
            views.add(new LinkedHashSet<>(cluster.view(node).members()));
        }
        return new ArrayList<>(views);
    }

    private static long sinceMs(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    @Override
    public void close() {
        cluster.close();
    }
}
