package io.sessionrep.core.filter;

import io.sessionrep.core.LogIds;

import io.micrometer.core.instrument.MeterRegistry;
import io.sessionrep.core.ReplicationNode;
import io.sessionrep.core.RestoredSession;
import io.sessionrep.core.SessionEvents;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.TransportProvider;
import jakarta.servlet.ServletContext;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The live sessions of one application under the filter install, and the only caller of its
 * {@link SessionReplicator}: creates sessions (ids from {@link SecureRandom}), finds the one a request
 * names (live here, else taken over from the cluster; an id no node knows is never adopted), invalidates
 * (every copy in the cluster), expires idle sessions in a background sweep, and replicates at request end.
 * Receives the core's {@link SessionEvents}: a session taken over or invalidated by another node is
 * dropped here without listeners (they fire on the node that serves the request).
 */
final class FilterSessionManager implements SessionEvents, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(FilterSessionManager.class.getName());
    static final Duration SWEEP_INTERVAL = Duration.ofSeconds(10);
    static final int DEFAULT_TIMEOUT_MINUTES = 30;

    private final ServletContext context;
    private final ReplicationConfig config;
    private final SessionListeners listeners;
    private final ClassLoader appClassLoader;
    private final Clock clock;
    private final SessionIds ids;
    private final Map<String, ReplicatedHttpSession> live = new ConcurrentHashMap<>();
    private volatile ReplicationNode node;
    private volatile SessionReplicator replicator;

    FilterSessionManager(ServletContext context, ReplicationConfig config, SessionListeners listeners,
                         ClassLoader appClassLoader, Clock clock, SecureRandom random) {
        this.context = context;
        this.config = config;
        this.listeners = listeners;
        this.appClassLoader = appClassLoader;
        this.clock = clock;
        this.ids = new SessionIds(random);
    }

    /** The live sessions here, for the operator's {@link io.sessionrep.core.SessionAdmin}. */
    private final io.sessionrep.core.LiveSessions liveSessions = new io.sessionrep.core.LiveSessions() {
        @Override
        public boolean invalidate(String clusterId) {
            ReplicatedHttpSession session = live.get(clusterId);
            if (session == null) {
                return false;
            }
            try {
                session.invalidate();
            } catch (IllegalStateException e) {
                // invalidated meanwhile
            }
            return true;
        }

        @Override
        public boolean setPrincipal(String clusterId, String name) {
            ReplicatedHttpSession session = live.get(clusterId);
            if (session == null) {
                return false;
            }
            io.sessionrep.core.SessionPrincipals.set(session, name);
            return true;
        }

        @Override
        public Object attribute(String clusterId, String name) {
            ReplicatedHttpSession session = live.get(clusterId);
            return session == null ? null : session.attribute(name);
        }
    };

    /** The operator's session operations of the running node (embedded use, tests); null while stopped. */
    public io.sessionrep.core.SessionAdmin sessionAdmin() {
        ReplicationNode running = node;
        return running == null ? null : running.admin(liveSessions);
    }

    /**
     * Joins the cluster over the transport {@code transports} makes (null: the registered provider) and starts
     * the expiry sweep ({@code sweepInterval}; null = none, tests sweep by hand). The meters go to
     * {@code application} (null: none) and, with {@code metrics=jmx}, to JMX until {@link #close()}.
     */
    void start(TransportProvider transports, MeterRegistry application, Duration sweepInterval) {
        ReplicationNode starting = new ReplicationNode(config, transports);
        starting.idShape(SessionIds.SHAPE); // only ids of that shape are looked up in the cluster
        node = starting;
        replicator = starting.start(context.getContextPath(), application, appClassLoader, this, clock);
        // for the readiness endpoint (io.sessionrep.core.health.ReadinessServlet) of this application
        context.setAttribute(ReplicationNode.READINESS_ATTRIBUTE, starting.readinessReasons());
        starting.exportAdmin(liveSessions);
        starting.onStop("readiness attribute", () -> context.removeAttribute(ReplicationNode.READINESS_ATTRIBUTE));
        if (sweepInterval != null) {
            ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "sessionrep-expiry-" + config.nodeName());
                t.setDaemon(true);
                return t;
            });
            starting.onStop("expiry sweep", sweeper::shutdownNow); // stops first
            long period = sweepInterval.toMillis();
            sweeper.scheduleWithFixedDelay(this::sweepSafely, period, period, TimeUnit.MILLISECONDS);
        }
    }

    ServletContext servletContext() {
        return context;
    }

    SessionListeners listeners() {
        return listeners;
    }

    SessionReplicator replicator() {
        return replicator;
    }

    String nodeName() {
        return config.nodeName();
    }

    /** What the cookie of {@code session} must say on this node: {@code <id>.<node-name>}. */
    String cookieValue(ReplicatedHttpSession session) {
        return SessionIds.cookieValue(session.getId(), config.nodeName());
    }

    /**
     * The session with this cluster id, accessed by the calling request (which must {@link #requestEnd} it):
     * the live one if this node owns it, else brought here from its owner (or, if its owner died, from the
     * newest copy) before the request uses it. Null when no node knows the id, it was invalidated, or it
     * has expired (then it is invalidated everywhere now).
     *
     * @throws io.sessionrep.core.OwnershipTimeoutException when its owner did not hand it over in time
     */
    ReplicatedHttpSession find(String clusterId) {
        return find(null, clusterId);
    }

    /**
     * As {@link #find(String)} for the cookie value {@code cookieValue} ({@code <id>.<route>}): a value of
     * another shape than this install's ids, or beyond the ids a request may have the cluster asked about,
     * names no session ({@link ReplicationNode#admit}).
     */
    ReplicatedHttpSession find(String cookieValue, String clusterId) {
        long now = clock.millis();
        // concurrent requests of this node for a session it does not hold live bring it here once
        ReplicatedHttpSession session = node.acquire(cookieValue, clusterId, () -> enterLive(clusterId),
                r -> adopt(r, now));
        if (session == null) {
            return null;
        }
        if (session.access(now)) {
            return session;
        }
        replicator.exit(clusterId);
        if (session.startExpiry(now)) {
            expire(session);
        }
        return null;
    }

    /**
     * The live copy held here of the session {@code clusterId}, if valid and not expired, for a request that takes
     * no part in its ownership ({@code ignored-paths}): nothing is entered, waited for or brought here.
     */
    ReplicatedHttpSession liveCopy(String clusterId) {
        ReplicatedHttpSession session = clusterId == null ? null : live.get(clusterId);
        return session != null && session.isValid() && !session.isExpiredAt(clock.millis()) ? session : null;
    }

    /** Whether {@code ignored-paths} matches the path {@code path} inside the context. */
    boolean ignores(String path) {
        return config.ignoredPaths().matches(path);
    }

    /** The live session if this node owns it (entered in the core); a stale live copy is dropped. */
    private ReplicatedHttpSession enterLive(String clusterId) {
        ReplicatedHttpSession session = live.get(clusterId);
        if (session == null) {
            return null;
        }
        if (replicator.enter(clusterId) == io.sessionrep.core.SessionAccess.OWNED) {
            return session;
        }
        // another node owns it now, or is about to: acquire the newest state. This copy is not dropped here:
        // other requests on this node may still use it; it goes when the hand-over takes place
        return null;
    }

    /** The live copy of a session just acquired (the request counts as entered), or null if it expired. */
    private ReplicatedHttpSession adopt(RestoredSession r, long now) {
        String clusterId = r.id();
        ReplicatedHttpSession session = ReplicatedHttpSession.restored(this, r.id(), r.creationTime(),
                r.lastAccessedTime(), r.maxInactiveSeconds(), r.attributes());
        if (session.isExpiredAt(now)) {
            // its primary died before expiring it; nobody saw it here, so there are no listeners to tell
            replicator.exit(clusterId);
            replicator.invalidate(clusterId);
            return null;
        }
        live.put(clusterId, session);
        session.activate();
        LOG.log(System.Logger.Level.DEBUG, () -> "session " + io.sessionrep.core.LogIds.shortForm(clusterId) + " brought here");
        return session;
    }

    /**
     * A new session, used by the calling request (which must {@link #requestEnd} it). The request enters it in
     * the core at once: its cookie can reach the client before the request ends, and a hand-over asked for
     * meanwhile must wait for it.
     */
    ReplicatedHttpSession create() {
        String id;
        do {
            id = ids.next();
        } while (live.containsKey(id) || replicator.hasLocalCopy(id));
        int timeoutMinutes = defaultTimeoutMinutes();
        int maxInactive = timeoutMinutes <= 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, timeoutMinutes * 60L);
        ReplicatedHttpSession session = ReplicatedHttpSession.created(this, id, clock.millis(), maxInactive);
        live.put(id, session);
        replicator.enter(id); // not replicated yet: always OWNED, and counted
        listeners.sessionCreated(session);
        return session;
    }

    /** web.xml {@code <session-timeout>}; 30 minutes when the container keeps no session configuration. */
    private int defaultTimeoutMinutes() {
        try {
            return context.getSessionCookieConfig() == null ? DEFAULT_TIMEOUT_MINUTES : context.getSessionTimeout();
        } catch (RuntimeException e) {
            return DEFAULT_TIMEOUT_MINUTES;
        }
    }

    /** {@code HttpSession.invalidate()}: listeners here, then every copy in the cluster is removed. */
    void invalidate(ReplicatedHttpSession session) {
        if (!session.startInvalidation()) {
            throw new IllegalStateException("session " + LogIds.shortForm(session.getId()) + " is already being invalidated");
        }
        destroy(session);
    }

    private void expire(ReplicatedHttpSession session) {
        LOG.log(System.Logger.Level.DEBUG, () -> "session " + LogIds.shortForm(session.getId()) + " expired");
        destroy(session);
    }

    private void destroy(ReplicatedHttpSession session) {
        String id = session.getId();
        try {
            listeners.sessionDestroyed(session);
            session.finishInvalidation(listeners);
        } finally {
            live.remove(id, session);
            if (!session.isDisowned()) {
                replicator.invalidate(id);
            }
        }
    }

    /** {@code HttpServletRequest.changeSessionId()}: the old id is invalidated in the cluster. */
    String changeId(ReplicatedHttpSession session) {
        String oldId = session.getId();
        String newId;
        do {
            newId = ids.next();
        } while (live.containsKey(newId) || replicator.hasLocalCopy(newId));
        synchronized (session) {
            session.changeId(newId);
            live.put(newId, session);
            live.remove(oldId, session);
        }
        replicator.invalidate(oldId); // the next request end sends a full copy under the new id
        listeners.sessionIdChanged(session, oldId);
        return newId;
    }

    /** The request that used {@code session} ({@link #find} or {@link #create}) ended: replicate what it changed. Never throws. */
    void requestEnd(ReplicatedHttpSession session) {
        session.leave();
        try {
            if (session.isValid() && !session.isDisowned()) {
                replicator.requestEnd(session, session.changes());
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "replication of session "
                    + io.sessionrep.core.LogIds.shortForm(session.getId()) + " failed", e);
        } finally {
            replicator.exit(session.getId()); // after its replication: a waiting hand-over may go now
        }
    }

    /** Expires the live sessions that no request is using and that were idle longer than allowed. */
    void sweep() {
        long now = clock.millis();
        for (ReplicatedHttpSession session : live.values()) {
            if (session.startExpiry(now)) {
                expire(session);
            }
        }
    }

    private void sweepSafely() {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(appClassLoader); // listeners run in the application's scope
        try {
            sweep();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "session expiry sweep failed", e);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    /** Sessions live on this node (tests, diagnostics). */
    int liveSessions() {
        return live.size();
    }

    // ------------------------------------------------------------------ SessionEvents (transport threads)

    @Override
    public void ownershipLost(String sessionId) {
        ReplicatedHttpSession session = live.get(sessionId);
        SessionReplicator engine = replicator;
        if (session == null || (engine != null && !engine.hasMovedAway(sessionId))) {
            return; // a late report: a request here brought the session back, and this copy is the new one
        }
        if (live.remove(sessionId, session)) {
            session.disown();
        }
    }

    @Override
    public void invalidatedElsewhere(String sessionId) {
        ReplicatedHttpSession session = live.remove(sessionId);
        if (session != null) {
            session.disown();
        }
    }

    /**
     * Hands over what each live session has not replicated yet (everything, with
     * {@code replication-trigger=on-shutdown}), stops the sweep and leaves the cluster; sessions live on in
     * their backups (no listeners fire).
     */
    @Override
    public void close() {
        ReplicationNode running = node;
        SessionReplicator engine = replicator;
        try {
            if (running != null && engine != null) {
                for (ReplicatedHttpSession session : live.values()) {
                    if (session.isValid() && !session.isDisowned()) {
                        engine.handOver(session, session.changes());
                    }
                }
            }
        } finally { // a failed hand-over still leaves the cluster
            if (running != null) {
                running.stop();
            }
        }
    }
}
