package io.sessionrep.core.filter;

import io.sessionrep.core.SessionReplicator;

/**
 * What the filter keeps package-private, for the tests that run {@code ContainerReplicationContract}
 * against the filter install (io.sessionrep.testservlet.filter): the replication engine of a started filter.
 */
public final class FilterInternals {

    private FilterInternals() {
    }

    /** The replicator of {@code filter}, started by the container ({@code init}); null before or after. */
    public static SessionReplicator replicator(ReplicationFilter filter) {
        FilterSessionManager sessions = filter.sessions();
        return sessions == null ? null : sessions.replicator();
    }

    /** What the engine of a started {@code filter} reports to (its session manager); null before or after. */
    public static io.sessionrep.core.SessionEvents sessionEvents(ReplicationFilter filter) {
        return filter.sessions();
    }
}
