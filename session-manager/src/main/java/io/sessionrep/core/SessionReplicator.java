package io.sessionrep.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;

import java.time.Clock;
import java.util.Optional;

/**
 * The container-neutral replication engine of one node (one web application). Container integrations
 * keep their own live sessions and call this class at four points:
 * <ul>
 *   <li>{@link #requestEnd} when the outermost request that used a session completes;</li>
 *   <li>{@link #takeOver} when a request names a session this node does not hold live (fail-over);</li>
 *   <li>{@link #invalidate} when the container invalidates or expires a session;</li>
 *   <li>{@link #close} on orderly shutdown.</li>
 * </ul>
 * and receive {@link SessionEvents} when another node takes over or invalidates a session they hold.
 *
 * <p>STUB: being implemented.
 */
public final class SessionReplicator implements AutoCloseable {

    private SessionReplicator() {
    }

    /**
     * Starts the engine on a transport that it starts and owns from now on.
     *
     * @param appClassLoader loads the application's attribute classes on deserialization
     */
    public static SessionReplicator start(ReplicationConfig config, ReplicationTransport transport,
                                          ClassLoader appClassLoader, MeterRegistry meters, SessionEvents events) {
        return start(config, transport, appClassLoader, meters, events, Clock.systemUTC());
    }

    /** As above, with an injected clock (tests of expiry and tombstones). */
    public static SessionReplicator start(ReplicationConfig config, ReplicationTransport transport,
                                          ClassLoader appClassLoader, MeterRegistry meters, SessionEvents events,
                                          Clock clock) {
        throw new UnsupportedOperationException("being implemented");
    }

    /**
     * Replicates what the request(s) changed. Async mode: snapshots the changed attributes on the calling
     * thread and returns; sync mode: also waits for the first backup's acknowledgement, at most
     * {@code sync-timeout}. Never throws for replication problems (they are counted and logged); the
     * request must succeed whatever happens to its replication.
     */
    public void requestEnd(SessionSnapshot session, ChangeTracker changes) {
        throw new UnsupportedOperationException("being implemented");
    }

    /**
     * A request names a session this node does not hold live. Promotes the local backup copy if there is
     * one, else fetches the newest copy from the cluster; this node becomes the primary and the old
     * owner is told to drop its live copy. Empty when no node knows the id, or it was invalidated.
     * Blocks at most a bounded time (a fetch round trip, bounded by {@code sync-timeout} x 2, min 1s).
     */
    public Optional<RestoredSession> takeOver(String sessionId) {
        throw new UnsupportedOperationException("being implemented");
    }

    /** The container invalidated or expired the session here: every copy in the cluster is removed. */
    public void invalidate(String sessionId) {
        throw new UnsupportedOperationException("being implemented");
    }

    /** True when this node holds a copy (primary or backup) of a session that is not invalidated. */
    public boolean hasLocalCopy(String sessionId) {
        throw new UnsupportedOperationException("being implemented");
    }

    /** This node's name, also the route suffix of session ids. */
    public String nodeName() {
        throw new UnsupportedOperationException("being implemented");
    }

    /** Flushes queued replication (bounded wait), leaves the cluster, stops threads. */
    @Override
    public void close() {
        throw new UnsupportedOperationException("being implemented");
    }
}
