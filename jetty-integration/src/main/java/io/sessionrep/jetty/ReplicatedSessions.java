package io.sessionrep.jetty;

import io.micrometer.core.instrument.MeterRegistry;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.SessionHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.session.DefaultSessionIdManager;
import org.eclipse.jetty.session.SessionIdManager;
import org.eclipse.jetty.util.component.LifeCycle;

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

    private final ReplicatedSessionDataStore store;

    private ReplicatedSessions(ReplicatedSessionDataStore store) {
        this.store = store;
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
        String nodeName = config.nodeName();
        if (nodeName == null || nodeName.isBlank() || nodeName.contains(".")) {
            throw new ConfigException("node-name", "'" + nodeName + "' cannot be a session id route suffix;"
                    + " expected a non-blank name without '.'");
        }
        SessionHandler sessions = context.getSessionHandler();
        if (sessions == null) {
            sessions = new SessionHandler();
            context.setSessionHandler(sessions);
        }
        if (!sessions.isStopped()) {
            throw new IllegalStateException("install before the context starts: " + context);
        }
        ReplicatedSessionCache cache = new ReplicatedSessionCache(sessions);
        cache.setSessionDataStore(store);
        sessions.setSessionCache(cache);
        SessionHandler handler = sessions;
        // 503 when a hand-over does not come in time; the request's session lookups
        context.insertHandler(new OwnershipTimeoutHandler(handler::getSessionCookie));
        RouteSuffix routeSuffix = new RouteSuffix(sessions, nodeName);
        routeSuffix.nameUnnamed(context.getServer());
        sessions.addEventListener(routeSuffix);
        return new ReplicatedSessions(store);
    }

    /**
     * Whether the node is settled in its cluster, and if not why ({@link io.sessionrep.core.Readiness}); "not
     * started" before the context starts and after it stops.
     */
    public io.sessionrep.core.Readiness readiness() {
        return store.readiness();
    }

    /** The running replication engine (after the context started). */
    public SessionReplicator replicator() {
        return store.replicator();
    }

    /**
     * Makes node-name the workerName of the session id manager that the context's session handler will use
     * (the server's, shared by its contexts): names it if nobody did, creates it if there is none, and
     * refuses to start when it already has another name (a user's explicit choice is not rewritten).
     * Applied at install when the context already belongs to a server (before a server-level id manager
     * starts and takes Jetty's default name, node0), and again when the session handler starts.
     */
    private record RouteSuffix(SessionHandler sessions, String nodeName) implements LifeCycle.Listener {
        void nameUnnamed(Server server) {
            if (server != null && sessions.getSessionIdManager() == null
                    && server.getBean(SessionIdManager.class) instanceof DefaultSessionIdManager ids
                    && ids.getWorkerName() == null && !ids.isRunning()) {
                ids.setWorkerName(nodeName);
            }
        }

        @Override
        public void lifeCycleStarting(LifeCycle event) {
            Server server = sessions.getServer();
            nameUnnamed(server);
            SessionIdManager ids = sessions.getSessionIdManager();
            if (ids == null && server != null) {
                ids = server.getBean(SessionIdManager.class);
            }
            if (ids == null) {
                if (server == null) {
                    throw new IllegalStateException("session handler " + sessions + " has no server");
                }
                DefaultSessionIdManager created = new DefaultSessionIdManager(server);
                created.setWorkerName(nodeName);
                // as Jetty's own default: shared by the server's contexts, loaded by the server's loader
                // (the session handler then finds it on the server, as it would find Jetty's own default)
                server.addBean(created, true);
                startWithServerLoader(created, server);
            } else if (!nodeName.equals(ids.getWorkerName())) {
                throw new IllegalStateException("node-name '" + nodeName + "' must be the route suffix of"
                        + " session ids, but the server's session id manager has workerName '"
                        + ids.getWorkerName() + "': set DefaultSessionIdManager.workerName to '" + nodeName
                        + "' (or install before the server's id manager starts and leave it unset)");
            }
        }

        private static void startWithServerLoader(DefaultSessionIdManager ids, Server server) {
            Thread thread = Thread.currentThread();
            ClassLoader previous = thread.getContextClassLoader();
            try {
                thread.setContextClassLoader(server.getClass().getClassLoader());
                ids.start();
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the session id manager", e);
            } finally {
                thread.setContextClassLoader(previous);
            }
        }
    }
}
