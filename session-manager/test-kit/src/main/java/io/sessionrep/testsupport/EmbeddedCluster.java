package io.sessionrep.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;

import static org.awaitility.Awaitility.await;

/**
 * Two or three {@link EmbeddedNode}s of one container in this JVM forming one replication cluster. The
 * container's subclass starts them; this class holds them and stops them (last started first).
 */
public abstract class EmbeddedCluster<N extends EmbeddedNode> implements AutoCloseable {
    protected final List<N> nodes = new ArrayList<>();

    /** A cluster name of the test's own, so that concurrent or leftover clusters never see each other. */
    protected static String uniqueClusterName(String testName) {
        return testName + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Node {@code index} in start order: 0 is node-a. */
    public N node(int index) {
        return nodes.get(index);
    }

    /** Waits until every node started so far satisfies {@code formed} (typically: sees all the others). */
    protected void awaitFormed(Predicate<N> formed) {
        await("cluster of " + nodes.size() + " formed").atMost(Duration.ofSeconds(20))
                .until(() -> nodes.stream().allMatch(formed));
    }

    /** Stops every node, the last started first; the first failure is thrown, later ones suppressed in it. */
    @Override
    public void close() throws Exception {
        Exception failure = null;
        for (int i = nodes.size() - 1; i >= 0; i--) {
            try {
                nodes.get(i).stop();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
