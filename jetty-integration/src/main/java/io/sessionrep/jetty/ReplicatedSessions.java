package io.sessionrep.jetty;

import io.micrometer.core.instrument.MeterRegistry;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.SessionHandler;

import java.util.Objects;
import java.util.function.Function;

/**
 * Embedded-Jetty entry point: makes the sessions of one ee10 context replicated. It only wires Jetty's own
 * session layers:
 * <ul>
 *   <li>the context's {@link SessionHandler} (created if the context has none) keeps managing requests,
 *       cookies and listeners;</li>
 *   <li>its cache becomes a {@link ReplicatedSessionCache} (live sessions, change tracking, eviction on
 *       cluster events);</li>
 *   <li>its data store a {@link ReplicatedSessionDataStore} (the cluster; owns the {@link SessionReplicator},
 *       which starts and stops with the context);</li>
 *   <li>the server's {@link DefaultSessionIdManager} gets {@code node-name} as its workerName, so session
 *       ids carry the route suffix ({@code <id>.<node-name>}) and Jetty itself re-issues the cookie with
 *       this node's suffix when a request arrives with another node's (fail-over): Jetty compares the
 *       requested extended id with its own and sets the cookie when they differ.</li>
 * </ul>
 */
public final class ReplicatedSessions {

    private final ReplicatedContext installed;

    private ReplicatedSessions(ReplicatedContext installed) {
        this.installed = installed;
    }

    /**
     * Configures {@code context}'s session handler so that its sessions are replicated with
     * {@code config}. Call before the server starts; the cluster node starts and stops with the context.
     * The meters go to {@code meters} (null: none of the application's) and, with {@code metrics=jmx} (the
     * default), to JMX MBeans that are unregistered when the context stops.
     *
     * @throws ConfigException when {@code node-name} cannot be a route suffix (it contains a dot)
     */
    public static ReplicatedSessions install(ServletContextHandler context, ReplicationConfig config,
                                             MeterRegistry meters) {
        return install(context, config, new ReplicatedSessionDataStore(config, meters));
    }

    /**
     * As {@link #install(ServletContextHandler, ReplicationConfig, MeterRegistry)}, replicating over the
     * transport that {@code transports} builds each time the context starts (the JGroups transport by
     * default; tests use this to observe it).
     */
    public static ReplicatedSessions install(ServletContextHandler context, ReplicationConfig config,
                                             MeterRegistry meters,
                                             Function<ReplicationConfig, ReplicationTransport> transports) {
        return install(context, config, new ReplicatedSessionDataStore(config, meters, transports));
    }

    private static ReplicatedSessions install(ServletContextHandler context, ReplicationConfig config,
                                              ReplicatedSessionDataStore store) {
        Objects.requireNonNull(context, "context");
        SessionHandler sessions = context.getSessionHandler();
        if (sessions == null) {
            sessions = new SessionHandler();
            context.setSessionHandler(sessions);
        }
        return new ReplicatedSessions(ReplicatedContext.install(context, sessions, store, config));
    }

    /**
     * Whether the node is settled in its cluster, and if not why ({@link io.sessionrep.core.Readiness}); "not
     * started" before the context starts and after it stops.
     */
    public io.sessionrep.core.Readiness readiness() {
        return installed.readiness();
    }

    /** The running replication engine (after the context started). */
    public SessionReplicator replicator() {
        return installed.replicator();
    }
}
