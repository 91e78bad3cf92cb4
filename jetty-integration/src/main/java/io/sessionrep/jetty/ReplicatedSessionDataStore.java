package io.sessionrep.jetty;

import io.micrometer.core.instrument.MeterRegistry;
import io.sessionrep.core.Readiness;
import io.sessionrep.core.ReplicationNode;
import io.sessionrep.core.RestoredSession;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;
import org.eclipse.jetty.server.Context;
import org.eclipse.jetty.session.AbstractSessionDataStore;
import org.eclipse.jetty.session.ManagedSession;
import org.eclipse.jetty.session.SessionCache;
import org.eclipse.jetty.session.SessionData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Jetty's session data store for replicated sessions: where copies of a context's sessions live, namely
 * on the other nodes of the cluster. It owns this context's {@link SessionReplicator} (started with the
 * store, so with the context; closed when the context stops) and maps Jetty's storage contract onto it:
 * <ul>
 *   <li>{@link #load load(id)}: Jetty asks only for sessions it does not hold live, that is on fail-over;
 *       it calls {@link SessionReplicator#takeOver} (local backup promoted, or fetched from the cluster;
 *       this node becomes the primary) and turns the copy into session data. Null when no node knows the
 *       id: the request then behaves as without replication.</li>
 *   <li>{@link #store store(id, data)}: replication of what the request changed, see below.</li>
 *   <li>{@link #delete delete(id)}: the container invalidated or expired the session here;
 *       {@link SessionReplicator#invalidate} removes every copy in the cluster.</li>
 *   <li>{@link #exists exists(id)}: {@link SessionReplicator#hasLocalCopy}: does NOT consult the cluster
 *       (Jetty asks while generating ids and resolving requested ones; a round trip there is not wanted).</li>
 *   <li>{@link #getExpired getExpired}: only sessions this node holds live and that have expired; copies
 *       held as backups are the core's to expire. The container then invalidates them, which deletes them,
 *       which invalidates them cluster-wide.</li>
 *   <li>Not passivating: the live session stays in the cache, the store never holds the only copy.</li>
 * </ul>
 *
 * <h2>Where request-end replication fires, and why here</h2>
 * Jetty writes a session through its store from exactly two places, both driven by the request's
 * {@code HttpStream} (Jetty's {@code SessionStreamWrapper}), which exists once per HTTP exchange: forwards,
 * includes and async dispatches are not new streams. Hence neither fires for a nested dispatch, and an
 * async request fires when it completes, never when its first dispatch returns.
 * <ol>
 *   <li>{@code SessionCache.commit}, when the response is about to be committed (its headers about to be
 *       sent), if the session is dirty; {@link ReplicatedSessionCache} turns {@code flushOnResponseCommit}
 *       on. This is what makes {@code sync} mode honest: the request thread waits for the backup's
 *       acknowledgement before the client can see the response.</li>
 *   <li>{@code SessionCache.release}, when the last concurrent request using the session exits. It
 *       replicates what was changed after the response was committed (rare: streaming responses), or,
 *       for a request that changed nothing, lets the core send its small "touch" (last access time).</li>
 * </ol>
 * {@link #doStore} calls {@link SessionReplicator#requestEnd} only when there is news for the backups:
 * a change (Jetty's dirty flag, which {@link ReplicatedSession} also raises when the application reads a
 * mutable attribute) or an access since the last replication. So a request that changed the session
 * replicates once, at commit; the release that follows finds nothing new and sends nothing (Jetty still
 * calls the store there because releasing recomputes the expiry). A read-only request replicates once, at
 * release. A request that changes the session again after commit replicates twice, which is required,
 * not redundant. Concurrent requests on one session replicate as each commits, and once more when the last
 * exits if anything is left; the tracker accumulates between them, so nothing is lost or sent twice.
 * Jetty stores under the session's lock, so in {@code sync} mode other requests of the same session wait
 * with the one waiting for its acknowledgement, never longer than {@code sync-timeout}.
 *
 * <p>Replicating here rather than from an overridden {@code SessionCache.release} keeps Jetty's layering:
 * the cache decides when (with Jetty's own, tested rules: request counting, invalid sessions skipped, dirty
 * and metadata flags, response commit), the store decides how. It also covers Jetty's other write paths
 * for free: session id renewal (old id deleted cluster-wide, new id stored) and orderly shutdown (pending
 * changes flushed before the node leaves).
 */
public class ReplicatedSessionDataStore extends AbstractSessionDataStore {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedSessionDataStore.class);

    private final ReplicationConfig config;
    private final MeterRegistry meters;
    /** Null: the registered transport (JGroups). */
    private final Function<ReplicationConfig, ReplicationTransport> transports;
    /** The running node (meters, transport, replicator); null while stopped. */
    private volatile ReplicationNode node;

    /**
     * A store replicating over JGroups, as configured by {@code config}. Its meters go to {@code meters}
     * (null: none of the application's) and, with {@code metrics=jmx}, to JMX while the context runs.
     */
    /**
     * The shape of the ids Jetty's {@code DefaultSessionIdManager} issues: the issuing node's workerName (up to
     * 64 characters), two random numbers in base 36 (up to 13 characters each) and a counter (up to 19 digits),
     * then {@code .<workerName>}.
     */
    static final io.sessionrep.core.SessionIdShape ID_SHAPE =
            new io.sessionrep.core.SessionIdShape(4, 64 + 13 + 13 + 19, io.sessionrep.core.SessionIdShape.NAME_CHARACTERS);

    public ReplicatedSessionDataStore(ReplicationConfig config, MeterRegistry meters) {
        this.config = Objects.requireNonNull(config, "config");
        this.meters = meters;
        this.transports = null;
    }

    /** A store replicating over the transport {@code transports} builds at each start. */
    public ReplicatedSessionDataStore(ReplicationConfig config, MeterRegistry meters,
                                      Function<ReplicationConfig, ReplicationTransport> transports) {
        this.config = Objects.requireNonNull(config, "config");
        this.meters = meters;
        this.transports = Objects.requireNonNull(transports, "transports");
    }

    public ReplicationConfig getConfig() {
        return config;
    }

    /** The running engine; only between start and stop. */
    public SessionReplicator replicator() {
        ReplicationNode running = node;
        if (running == null) {
            throw new IllegalStateException("Not started: the replicator runs while the context runs");
        }
        return running.replicator();
    }

    /** True between start and stop. */
    public boolean isRunningReplicator() {
        ReplicationNode running = node;
        return running != null && running.replicatorIfRunning() != null;
    }

    @Override
    protected void doStart() throws Exception {
        String workerName = _context.getWorkerName();
        if (workerName == null || workerName.isBlank()) {
            throw routeMismatch(config.nodeName(), workerName);
        }
        ReplicationNode.nodeName(config.nodeName(), workerName, ReplicatedSessionDataStore::routeMismatch);
        SessionCache cache = _context.getSessionManager().getSessionCache();
        if (!(cache instanceof ReplicatedSessionCache replicatedCache)) {
            throw new IllegalStateException("ReplicatedSessionDataStore needs a ReplicatedSessionCache, found "
                    + cache + " (add a ReplicatedSessionCacheFactory to the server)");
        }
        // the core logs the one-line config and each notYetActive() warning as it starts
        LOG.info("Session replication for context '{}' (session id route suffix .{}):\n{}",
                _context.getCanonicalContextPath(), workerName, config.describe());
        ReplicationNode starting = new ReplicationNode(config, transports == null ? null : transports::apply);
        starting.idShape(ID_SHAPE); // only ids of the shape Jetty issues are looked up in the cluster
        starting.start(contextPath(), meters, appClassLoader(), replicatedCache.sessionEvents());
        publishReadiness(starting);
        starting.exportAdmin(replicatedCache.liveSessions());
        node = starting;
        try {
            super.doStart();
        } catch (Exception | Error e) {
            node = null;
            starting.stop();
            throw e;
        }
    }

    @Override
    protected void doStop() throws Exception {
        try {
            super.doStop();
        } finally { // the node leaves the cluster even if Jetty's part of the stop failed
            ReplicationNode running = node;
            node = null;
            if (running != null) {
                running.stop();
            }
        }
    }

    /**
     * Publishes the node's readiness to the web application (a context attribute, which the servlet context
     * shows) for its readiness endpoint ({@code io.sessionrep.core.health.ReadinessServlet}), until the node stops.
     */
    private void publishReadiness(ReplicationNode started) {
        Context context = _context.getContext();
        if (context == null) {
            return;
        }
        context.setAttribute(ReplicationNode.READINESS_ATTRIBUTE, started.readinessReasons());
        started.onStop("readiness attribute", () -> context.removeAttribute(ReplicationNode.READINESS_ATTRIBUTE));
    }

    /** The operator's session operations of the running node (embedded use, tests); null while stopped. */
    public io.sessionrep.core.SessionAdmin sessionAdmin() {
        ReplicationNode running = node;
        return running == null || !(_context.getSessionManager().getSessionCache() instanceof ReplicatedSessionCache cache) ? null
                : running.admin(cache.liveSessions());
    }

    /** The node's readiness now ({@link ReplicationNode#readiness()}); "not started" while stopped. */
    public Readiness readiness() {
        ReplicationNode running = node;
        return running == null ? Readiness.notReady("not started") : running.readiness();
    }

    private static IllegalStateException routeMismatch(String nodeName, String workerName) {
        return new IllegalStateException("node-name '" + nodeName + "' must also be the session id"
                + " manager's workerName (the route suffix of session ids), but that is '" + workerName
                + "': install with ReplicatedSessions.install, or set DefaultSessionIdManager.workerName");
    }

    private String contextPath() {
        Context context = _context.getContext();
        return context == null ? "/" : context.getContextPath();
    }

    private ClassLoader appClassLoader() {
        Context context = _context.getContext();
        ClassLoader loader = context == null ? null : context.getClassLoader();
        if (loader == null) {
            loader = Thread.currentThread().getContextClassLoader();
        }
        return loader != null ? loader : ReplicatedSessionDataStore.class.getClassLoader();
    }

    @Override
    public boolean isPassivating() {
        return false;
    }

    @Override
    public SessionData newSessionData(String id, long created, long accessed, long lastAccessed,
                                      long maxInactiveMs) {
        return new ReplicatedSessionData(id, _context.getCanonicalContextPath(), _context.getVhost(), created,
                accessed, lastAccessed, maxInactiveMs);
    }

    @Override
    public boolean doExists(String id) {
        return replicator().hasLocalCopy(id);
    }

    /** What the last load on a thread did: {@link Load#LOADED} (the request counts as using it) or missed. */
    enum Load { LOADED, MISSED }

    private static final ThreadLocal<Load> LAST_LOAD = new ThreadLocal<>();

    /**
     * Jetty asks for a session it does not hold live: it is brought here from its owner (a hand-over) or,
     * if its owner died, from the newest copy. The request that caused the load counts as using it (the
     * cache's release ends that). A hand-over that does not come within ownership-timeout ends the request
     * with {@link HandOverTimeout} (503).
     */
    @Override
    public SessionData doLoad(String id) {
        Optional<RestoredSession> restored;
        ReplicationNode running = node;
        ReplicationNode.Lookup lookup = running == null ? new ReplicationNode.Lookup(true, null) : running.admit(null, id);
        if (!lookup.allowed()) {
            LAST_LOAD.set(Load.MISSED);
            return null; // not an id Jetty issues, or beyond what one request may look up: no session
        }
        try {
            restored = replicator().acquire(id, lookup.route());
        } catch (io.sessionrep.core.OwnershipTimeoutException e) {
            throw new HandOverTimeout(e);
        }
        LAST_LOAD.set(restored.isPresent() ? Load.LOADED : Load.MISSED);
        return restored.map(this::toSessionData).orElse(null);
    }

    /**
     * What the last load on this thread since the previous call did, and forgets it: {@link Load#LOADED}
     * (brought here, the request counted), {@link Load#MISSED} (no node knows the session, or it was
     * invalidated), or null (no load).
     */
    static Load takeLastLoad() {
        Load last = LAST_LOAD.get();
        if (last != null) {
            LAST_LOAD.remove();
        }
        return last;
    }

    private ReplicatedSessionData toSessionData(RestoredSession restored) {
        long maxInactiveMs = restored.maxInactiveSeconds() <= 0 ? -1 : restored.maxInactiveSeconds() * 1000L;
        ReplicatedSessionData data = (ReplicatedSessionData) newSessionData(restored.id(), restored.creationTime(),
                restored.lastAccessedTime(), restored.lastAccessedTime(), maxInactiveMs);
        for (Map.Entry<String, Object> attribute : restored.attributes().entrySet()) {
            if (attribute.getValue() != null) {
                data.setAttribute(attribute.getKey(), attribute.getValue());
            }
        }
        // Jetty treats data that was never saved as a brand-new session (isNew, and written in full).
        data.setLastSaved(restored.lastAccessedTime() > 0 ? restored.lastAccessedTime() : System.currentTimeMillis());
        data.clean();
        data.markRestored();
        return data;
    }

    /** Replicates, at request end, what the request changed; see the class comment for when. */
    @Override
    public void doStore(String id, SessionData data, long lastSaveTime) {
        if (!(data instanceof ReplicatedSessionData session)) {
            throw new IllegalArgumentException("Not a replicated session: " + data);
        }
        if (session.isDisowned() || !session.hasNewsForBackups()) {
            return;
        }
        session.replicated();
        replicator().requestEnd(session, session.changes());
    }

    @Override
    public boolean delete(String id) {
        replicator().invalidate(id);
        return true;
    }

    @Override
    public Set<String> doCheckExpired(Set<String> candidates, long time) {
        SessionCache cache = _context.getSessionManager().getSessionCache();
        Set<String> expired = new HashSet<>();
        if (cache instanceof ReplicatedSessionCache live) {
            for (String id : candidates) {
                ManagedSession session = live.doGet(id);
                if (session != null && session.isResident() && session.isExpiredAt(time)) {
                    expired.add(id);
                }
            }
        }
        return expired;
    }

    @Override
    public Set<String> doGetExpired(long before) {
        return Set.of(); // nothing held here but live sessions (checked above); backups are the core's
    }

    @Override
    public void doCleanOrphans(long time) {
        // sessions of other contexts are never held by this store
    }

    @Override
    public String toString() {
        return String.format("%s@%x[node=%s,cluster=%s]", getClass().getSimpleName(), hashCode(),
                config.nodeName(), config.clusterName());
    }
}
