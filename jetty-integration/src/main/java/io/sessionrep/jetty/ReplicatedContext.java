package io.sessionrep.jetty;

import io.micrometer.core.instrument.MeterRegistry;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ReplicationConfig;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.session.AbstractSessionManager;
import org.eclipse.jetty.session.DefaultSessionIdManager;
import org.eclipse.jetty.session.SessionIdManager;
import org.eclipse.jetty.util.component.LifeCycle;

import java.util.Objects;

/**
 * Replicated sessions installed into one Jetty context of any servlet environment, by its session manager (core
 * Jetty types only): the ee10 entry point {@link ReplicatedSessions} and Spring Boot's embedded Jetty (ee11) both
 * install through it. It wires the session manager's cache ({@link ReplicatedSessionCache}) and data store
 * ({@link ReplicatedSessionDataStore}, which owns the replicator), the 503 on a hand-over that does not come in
 * time ({@link OwnershipTimeoutHandler}), the recording of the request's user as its session's principal
 * ({@link PrincipalRecorder}), and {@code node-name} as the session id manager's workerName (see
 * {@link ReplicatedSessions}).
 */
public final class ReplicatedContext {

    private final ReplicatedSessionDataStore store;

    private ReplicatedContext(ReplicatedSessionDataStore store) {
        this.store = store;
    }

    /**
     * Makes the sessions of {@code context}, managed by {@code sessions} (its session handler, which must not have
     * started), replicated with {@code config}; the cluster node starts and stops with the context. The meters go
     * to {@code meters} (null: none of the application's) and, with {@code metrics=jmx}, to JMX.
     *
     * @throws ConfigException when {@code node-name} cannot be a route suffix (it contains a dot)
     */
    public static ReplicatedContext install(ContextHandler context, AbstractSessionManager sessions,
                                            ReplicationConfig config, MeterRegistry meters) {
        return install(context, sessions, new ReplicatedSessionDataStore(config, meters), config);
    }

    static ReplicatedContext install(ContextHandler context, AbstractSessionManager sessions,
                                     ReplicatedSessionDataStore store, ReplicationConfig config) {
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(sessions, "sessions");
        String nodeName = config.nodeName();
        if (nodeName == null || nodeName.isBlank() || nodeName.contains(".")) {
            throw new ConfigException("node-name", "'" + nodeName + "' cannot be a session id route suffix;"
                    + " expected a non-blank name without '.'");
        }
        if (!sessions.isStopped()) {
            throw new IllegalStateException("install before the context starts: " + context);
        }
        ReplicatedSessionCache cache = new ReplicatedSessionCache(sessions);
        cache.setSessionDataStore(store);
        sessions.setSessionCache(cache);
        // 503 when a hand-over does not come in time; the request's session lookups
        context.insertHandler(new OwnershipTimeoutHandler(sessions::getSessionCookie, config.ignoredPaths()));
        // the request's authenticated user as its session's principal, at request end
        context.insertHandler(new PrincipalRecorder(sessions));
        RouteSuffix routeSuffix = new RouteSuffix(sessions, nodeName);
        routeSuffix.nameUnnamed(context.getServer());
        sessions.addEventListener(routeSuffix);
        return new ReplicatedContext(store);
    }

    /**
     * Whether the node is settled in its cluster, and if not why ({@link io.sessionrep.core.Readiness}); "not
     * started" before the context starts and after it stops.
     */
    public io.sessionrep.core.Readiness readiness() {
        return store.readiness();
    }

    /** The cluster-wide session admin of the running node; null before the context starts and after it stops. */
    public io.sessionrep.core.SessionAdmin sessionAdmin() {
        return store.sessionAdmin();
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
    private record RouteSuffix(AbstractSessionManager sessions, String nodeName) implements LifeCycle.Listener {
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
