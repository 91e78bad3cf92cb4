package io.sessionrep.perf;

import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.JmxMeters;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Ours' hand-over meters on every node of a Tomcat cluster, read as an operator reads them: the MBeans of the
 * node's JVM, attached by process id as jconsole does ({@link JmxMeters}). {@code sessionrep.handovers} counts
 * sessions handed over between live nodes ({@code direction=granted} on the node that gave one away,
 * {@code acquired} on the one that took it in); {@code sessionrep.ownership.timeouts} the requests refused
 * because a hand-over did not come in time.
 */
final class HandOverMeters implements AutoCloseable {

    /** Sums over the nodes of one reading (or of the difference of two). */
    record Counts(double acquired, double granted, double ownershipTimeouts) {
        Counts minus(Counts before) {
            return new Counts(acquired - before.acquired, granted - before.granted, ownershipTimeouts - before.ownershipTimeouts);
        }

        Counts plus(Counts other) {
            return new Counts(acquired + other.acquired, granted + other.granted, ownershipTimeouts + other.ownershipTimeouts);
        }

        static final Counts NONE = new Counts(0, 0, 0);
    }

    private final List<JmxMeters> nodes;

    private HandOverMeters(List<JmxMeters> nodes) {
        this.nodes = nodes;
    }

    /** Attached to every node of {@code cluster} (one of ours). */
    static HandOverMeters attach(TomcatCluster cluster) throws IOException {
        List<JmxMeters> nodes = new ArrayList<>();
        try {
            for (TomcatCluster.Node node : cluster.nodes()) {
                nodes.add(JmxMeters.attach(node.process().pid(), node.name()));
            }
        } catch (IOException | RuntimeException e) {
            new HandOverMeters(nodes).close();
            throw e;
        }
        return new HandOverMeters(nodes);
    }

    /** The counters now, summed over the nodes; a meter a node does not have fails the reading. */
    Counts read() {
        double acquired = 0;
        double granted = 0;
        double timeouts = 0;
        for (JmxMeters node : nodes) {
            acquired += present(node, node.value(ReplicationMetrics.HANDOVERS, "direction", "acquired"), "acquired hand-overs");
            granted += present(node, node.value(ReplicationMetrics.HANDOVERS, "direction", "granted"), "granted hand-overs");
            timeouts += present(node, node.value(ReplicationMetrics.OWNERSHIP_TIMEOUTS), "ownership time-outs");
        }
        return new Counts(acquired, granted, timeouts);
    }

    private static double present(JmxMeters node, double value, String what) {
        if (value < 0) {
            throw new IllegalStateException("no meter of " + what + " among " + node.names());
        }
        return value;
    }

    @Override
    public void close() {
        for (JmxMeters node : nodes) {
            try {
                node.close();
            } catch (IOException e) {
                // the node is gone already
            }
        }
    }
}
