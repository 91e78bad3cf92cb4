package io.sessionrep.testsupport;

import io.sessionrep.core.SessionEvents;
import io.sessionrep.core.SessionReplicator;

import java.net.URI;

/**
 * One embedded servlet container (Jetty, Tomcat) in the test's JVM, on 127.0.0.1, whose application is the
 * {@link SessionServlet} at {@code /session} with replicated sessions.
 */
public abstract class EmbeddedNode implements AutoCloseable {
    private final String name;

    protected EmbeddedNode(String name) {
        this.name = name;
    }

    /** The node name: the route suffix of the session ids it issues. */
    public final String name() {
        return name;
    }

    /** The {@link SessionServlet} of the node with the query string {@code query}. */
    public abstract URI uri(String query);

    /** The replication engine of the node's application. */
    public abstract SessionReplicator replicator();

    /**
     * Where the node's engine reports what other nodes did to its sessions (the integration's
     * {@link SessionEvents}), for tests that deliver such a report late, as a slow thread can.
     */
    public abstract SessionEvents sessionEvents();

    /** Whether this node holds a copy (primary or backup) of the cluster session {@code clusterId}, not invalidated. */
    public boolean hasLocalCopy(String clusterId) {
        return replicator().hasLocalCopy(clusterId);
    }

    /** Whether the container on this node holds the session live (not: a backup copy). */
    public abstract boolean holdsLive(String clusterId) throws Exception;

    public abstract boolean isRunning();

    /** Sum of this node's counters called {@code meter} that carry the given tags (key, value, ...). */
    public abstract double count(String meter, String... tags);

    /** Orderly stop (not a crash): the node leaves the cluster. */
    public abstract void stop() throws Exception;

    @Override
    public void close() throws Exception {
        stop();
    }

    @Override
    public String toString() {
        return name;
    }
}
