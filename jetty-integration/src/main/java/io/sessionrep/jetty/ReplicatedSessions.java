package io.sessionrep.jetty;

import io.micrometer.core.instrument.MeterRegistry;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ReplicationConfig;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;

/**
 * Embedded-Jetty entry point: makes the sessions of one ee10 context replicated.
 *
 * <p>STUB: being implemented in the jetty-integration work.
 */
public final class ReplicatedSessions {

    private ReplicatedSessions() {
    }

    /**
     * Configures {@code context}'s session handler so that its sessions are replicated with
     * {@code config}. Call before the server starts; the cluster node starts and stops with the context.
     */
    public static ReplicatedSessions install(ServletContextHandler context, ReplicationConfig config,
                                             MeterRegistry meters) {
        throw new UnsupportedOperationException("being implemented");
    }

    /** The running replication engine (after the context started). */
    public SessionReplicator replicator() {
        throw new UnsupportedOperationException("being implemented");
    }
}
