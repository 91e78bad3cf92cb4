package io.sessionrep.jetty;

import io.sessionrep.core.SessionEvents;
import org.eclipse.jetty.server.Context;
import org.eclipse.jetty.session.DefaultSessionCache;
import org.eclipse.jetty.session.ManagedSession;
import org.eclipse.jetty.session.SessionCache;
import org.eclipse.jetty.session.SessionData;
import org.eclipse.jetty.session.SessionManager;
import org.eclipse.jetty.util.thread.AutoLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The working set of live sessions of one context: Jetty's {@link DefaultSessionCache} with three
 * adaptations and nothing else.
 * <ul>
 *   <li>It creates {@link ReplicatedSession}s, which report attribute changes to their tracker.</li>
 *   <li>It flushes on response commit ({@code flushOnResponseCommit = true} by default): a session changed
 *       by the request is written through {@link ReplicatedSessionDataStore} before the response headers
 *       leave, so that in {@code sync} mode the client never sees a response before a backup holds the
 *       update. See {@link ReplicatedSessionDataStore} for when replication fires.</li>
 *   <li>It evicts on cluster events ({@link #sessionEvents()}): when another node takes a session over,
 *       or invalidates it, the live copy here is dropped WITHOUT calling the data store's {@code delete}
 *       (which would invalidate the session cluster-wide) and without Servlet listeners (they fire on the
 *       node that invalidated).</li>
 * </ul>
 * Unlike {@link DefaultSessionCache#delete}, {@link #delete} does NOT load a session it does not hold
 * live (Jetty's loads it first, which here would take the session over from the cluster just to delete
 * it); the store's {@code delete} invalidates it cluster-wide all the same.
 *
 * <p>Settings that would break replication are refused at start rather than silently changed: any
 * eviction policy other than {@link SessionCache#NEVER_EVICT} (this node's only copy of a session it
 * owns is the live one: the store is not passivating and cannot load it back except by a take-over), and
 * {@code invalidateOnShutdown} (stopping one node would invalidate its sessions on every node).
 */
public class ReplicatedSessionCache extends DefaultSessionCache {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedSessionCache.class);

    private final SessionEvents events = new SessionEvents() {
        @Override
        public void ownershipLost(String sessionId) {
            evictLater(sessionId, "taken over by another node", false);
        }

        @Override
        public void invalidatedElsewhere(String sessionId) {
            evictLater(sessionId, "invalidated on another node", true);
        }
    };

    private final java.util.concurrent.ConcurrentMap<String, ManagedSession> live;
    /** Set while this thread is in {@link #getAndEnter}, which Jetty may call again from within. */
    private static final ThreadLocal<Boolean> IN_GET_AND_ENTER = new ThreadLocal<>();
    /**
     * TRUE while this thread handles a request that {@code ignored-paths} matches ({@link OwnershipTimeoutHandler}):
     * the cache finds no session for it. FALSE (not removed) otherwise, so that a pooled thread keeps its slot.
     */
    private static final ThreadLocal<Boolean> IGNORED_REQUEST = new ThreadLocal<>();

    public ReplicatedSessionCache(SessionManager manager) {
        this(manager, new java.util.concurrent.ConcurrentHashMap<>());
    }

    private ReplicatedSessionCache(SessionManager manager, java.util.concurrent.ConcurrentMap<String, ManagedSession> live) {
        super(manager, live);
        this.live = live;
        setFlushOnResponseCommit(true);
    }

    /**
     * Orderly stop: every live session's unreplicated changes go to its backups first (whatever the
     * replication-trigger: with {@code on-shutdown} this is the only replication), so that the other
     * nodes can take the sessions over once this node has left. Then Jetty's own shutdown.
     */
    @Override
    public void shutdown() {
        try {
            if (getSessionDataStore() instanceof ReplicatedSessionDataStore store && store.isRunningReplicator()) {
                for (ManagedSession session : live.values()) {
                    if (session instanceof ReplicatedSession replicated && session.isValid()
                            && !replicated.replicatedData().isDisowned()) {
                        store.replicator().handOver(replicated.replicatedData(), replicated.replicatedData().changes());
                    }
                }
            }
        } finally {
            super.shutdown();
        }
    }

    /** With {@code replication-trigger=on-attribute-modify}: replicate this change now (else nothing). */
    void attributeModified(ReplicatedSession session) {
        if (getSessionDataStore() instanceof ReplicatedSessionDataStore store && store.isRunningReplicator()
                && !session.replicatedData().isDisowned()) {
            store.replicator().attributeModified(session.replicatedData(), session.replicatedData().changes());
        }
    }

    /**
     * The sessions this cache holds live, for the operator's {@link io.sessionrep.core.SessionAdmin}: invalidated as
     * Jetty invalidates a session (in the context's scope: listeners run, and every copy in the cluster goes).
     */
    public io.sessionrep.core.LiveSessions liveSessions() {
        return new io.sessionrep.core.LiveSessions() {
            @Override
            public boolean invalidate(String clusterId) {
                ManagedSession session = doGet(clusterId);
                if (session == null || !session.isValid()) {
                    return false;
                }
                inContext(session::invalidate);
                return true;
            }

            @Override
            public boolean setPrincipal(String clusterId, String name) {
                ManagedSession session = doGet(clusterId);
                if (session == null || !session.isValid()) {
                    return false;
                }
                if (name == null) {
                    inContext(() -> session.removeAttribute(io.sessionrep.core.SessionPrincipals.ATTRIBUTE));
                } else if (!name.equals(session.getAttribute(io.sessionrep.core.SessionPrincipals.ATTRIBUTE))) {
                    inContext(() -> session.setAttribute(io.sessionrep.core.SessionPrincipals.ATTRIBUTE, name));
                }
                return true;
            }

            @Override
            public Object attribute(String clusterId, String name) {
                ManagedSession session = doGet(clusterId);
                return session == null ? null : session.getAttribute(name);
            }
        };
    }

    private void inContext(Runnable action) {
        Context context = getSessionManager().getContext();
        if (context != null) {
            context.run(action);
        } else {
            action.run();
        }
    }

    /** Where the core reports what other nodes did to sessions this cache may hold live. */
    public SessionEvents sessionEvents() {
        return events;
    }

    @Override
    protected void doStart() throws Exception {
        if (!(getSessionDataStore() instanceof ReplicatedSessionDataStore)) {
            throw new IllegalStateException("ReplicatedSessionCache needs a ReplicatedSessionDataStore, found "
                    + getSessionDataStore() + " (add a ReplicatedSessionDataStoreFactory to the server)");
        }
        if (getEvictionPolicy() != NEVER_EVICT) {
            throw new IllegalStateException("ReplicatedSessionCache: evictionPolicy " + getEvictionPolicy()
                    + " is not supported; use " + NEVER_EVICT + " (never evict): the live session is this node's"
                    + " copy of the sessions it owns");
        }
        if (isInvalidateOnShutdown()) {
            throw new IllegalStateException("ReplicatedSessionCache: invalidateOnShutdown=true is not supported:"
                    + " stopping one node would invalidate its sessions on every node");
        }
        if (!isFlushOnResponseCommit()) {
            LOG.warn("flushOnResponseCommit=false: changes are replicated only after the response was sent, so in"
                    + " sync mode a client may see a response before a backup holds the update");
        }
        super.doStart();
    }

    @Override
    public ManagedSession newSession(SessionData data) {
        if (!(data instanceof ReplicatedSessionData replicated)) {
            throw new IllegalStateException("ReplicatedSessionCache needs ReplicatedSessionData, got "
                    + data.getClass().getName() + " from " + getSessionDataStore());
        }
        return new ReplicatedSession(getSessionManager(), replicated);
    }

    /**
     * A request enters a session. A resident copy that another node owns now (or is about to) is evicted
     * first (after this node's running requests on it finished), so that Jetty loads the session, which
     * brings it here with its newest state ({@link ReplicatedSessionDataStore#doLoad}, counted there). A
     * session Jetty returns without loading it on this thread is entered in the core once Jetty has it: a
     * request is never counted as using the session while it waits in Jetty's session map, where another
     * request of this node may be loading the session, which would wait for this node's own hand-over to
     * finish (and that for this request): the two nodes stalled each other until ownership-timeout. The
     * matching exit is in {@link #release}.
     */
    @Override
    protected ManagedSession getAndEnter(String id, boolean enter) throws Exception {
        if (enter && IGNORED_REQUEST.get() == Boolean.TRUE && getSessionDataStore() instanceof ReplicatedSessionDataStore) {
            // a request that takes no part in ownership: Jetty would count it as a user of the session until its
            // end and write the session then, so it gets no session at all (not even a live copy held here)
            return null;
        }
        if (!(getSessionDataStore() instanceof ReplicatedSessionDataStore store) || !store.isRunningReplicator()
                || IN_GET_AND_ENTER.get() != null) {
            // Jetty calls this again from within itself for a session that stopped being resident meanwhile:
            // the outermost call does the counting, once (else a load here and an enter there count twice)
            return super.getAndEnter(id, enter);
        }
        IN_GET_AND_ENTER.set(Boolean.TRUE);
        try {
            return getAndEnterCounted(id, enter, store);
        } finally {
            IN_GET_AND_ENTER.remove();
        }
    }

    private ManagedSession getAndEnterCounted(String id, boolean enter, ReplicatedSessionDataStore store) throws Exception {
        ReplicatedSessionDataStore.takeLastLoad(); // forget what an earlier failed call may have left
        if (!enter) {
            ManagedSession found = super.getAndEnter(id, false);
            if (ReplicatedSessionDataStore.takeLastLoad() == ReplicatedSessionDataStore.Load.LOADED) {
                store.replicator().exit(id); // loaded without a request: not in use
            }
            return found;
        }
        long deadline = System.nanoTime() + 2 * store.getConfig().ownershipTimeout().toNanos();
        while (true) {
            evictStaleResident(id, store);
            ManagedSession session;
            try {
                session = super.getAndEnter(id, true);
            } catch (Exception | Error e) {
                if (ReplicatedSessionDataStore.takeLastLoad() == ReplicatedSessionDataStore.Load.LOADED) {
                    store.replicator().exit(id); // brought here, but Jetty failed after: not in use
                }
                throw e;
            }
            ReplicatedSessionDataStore.Load load = ReplicatedSessionDataStore.takeLastLoad();
            boolean loaded = load == ReplicatedSessionDataStore.Load.LOADED; // then the load counted the request
            if (session == null) {
                if (loaded) {
                    store.replicator().exit(id); // brought here, but Jetty does not hand it to the request
                }
                if (load != null || !tryAgain(deadline)) {
                    return null; // no node knows it (or it was invalidated)
                }
                // Jetty found the resident copy just as it was evicted (it moved): load it from its owner
                continue;
            }
            if (!loaded
                    && store.replicator().enter(id) != io.sessionrep.core.SessionAccess.OWNED) {
                // it moved, or is promised to another node: this request waits for it to come back, on a fresh
                // copy (Jetty's own release: this request was not entered in the core)
                super.release(session);
                if (System.nanoTime() > deadline) {
                    throw new HandOverTimeout(new io.sessionrep.core.OwnershipTimeoutException("session "
                            + io.sessionrep.core.LogIds.shortForm(id) + " kept moving away"));
                }
                continue;
            }
            if (session instanceof ReplicatedSession replicated) {
                replicated.activateIfRestored();
            }
            return session;
        }
    }

    /**
     * Marks the requests this thread handles from now on as ignored ({@code ignored-paths}) or not; returns the
     * previous mark. Jetty resolves a request's session on the thread that handles it, before the application.
     */
    static boolean ignoreRequests(boolean ignored) {
        boolean previous = IGNORED_REQUEST.get() == Boolean.TRUE;
        if (previous != ignored) {
            IGNORED_REQUEST.set(ignored);
        }
        return previous;
    }

    /** False once the deadline passed; else lets other threads run before the next attempt (which loads). */
    private static boolean tryAgain(long deadline) {
        if (System.nanoTime() > deadline) {
            return false;
        }
        Thread.onSpinWait();
        return true;
    }

    /**
     * While the resident copy is one that another node owns or is about to own, evicts it once no request
     * here uses it (waiting at most ownership-timeout), so that Jetty loads the session. Counts nothing.
     */
    private void evictStaleResident(String id, ReplicatedSessionDataStore store) {
        long deadline = System.nanoTime() + store.getConfig().ownershipTimeout().toNanos();
        while (doGet(id) instanceof ReplicatedSession resident) {
            io.sessionrep.core.SessionAccess access = resident.replicatedData().isDisowned()
                    ? io.sessionrep.core.SessionAccess.MOVED : store.replicator().probe(id);
            if (access == io.sessionrep.core.SessionAccess.OWNED) {
                return;
            }
            // PROMISED: requests here are counted as using the copy (one may have just loaded it, and not be
            // among Jetty's users of it yet): it stays until the hand-over took place, then it reads MOVED
            if (access == io.sessionrep.core.SessionAccess.MOVED) {
                resident.replicatedData().disown(); // another node owns it now: never serve this copy again
                try (AutoLock ignored = resident.lock()) {
                    if (resident.getRequests() <= 0) {
                        if (doGet(id) == resident) {
                            doDelete(id);
                        }
                        resident.setResident(false);
                        return; // Jetty loads it next, from its owner
                    }
                }
            }
            // requests here still use it; once they are done, it is handed over and comes back to us
            if (System.nanoTime() > deadline) {
                throw new HandOverTimeout(new io.sessionrep.core.OwnershipTimeoutException("session "
                        + io.sessionrep.core.LogIds.shortForm(id) + ": requests on this node held it longer than"
                        + " ownership-timeout"));
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Removes the session here and, through the store, on every node. Does NOT consult the cluster for a
     * session this node does not hold live.
     */
    @Override
    public ManagedSession delete(String id) throws Exception {
        ManagedSession session = doGet(id);
        getSessionDataStore().delete(id);
        if (session != null) {
            session.setResident(false);
        }
        return doDelete(id);
    }

    /**
     * A session a request here has just created: that request enters it in the core at once, like any request
     * that uses a session, and its release exits it. The client gets the new session's cookie as soon as the
     * response is committed, before the creating request releases the session: its next requests may enter
     * first, and another node may ask for the session meanwhile; the hand-over waits for all of them.
     */
    @Override
    public void add(String id, ManagedSession session) throws Exception {
        super.add(id, session);
        if (session instanceof ReplicatedSession && getSessionDataStore() instanceof ReplicatedSessionDataStore store
                && store.isRunningReplicator()) {
            store.replicator().enter(session.getId()); // not replicated yet: always OWNED, and counted
        }
    }

    /**
     * Jetty's release (the store writes the session when the last request exits), then the eviction that
     * a cluster event deferred while requests were using the session here.
     */
    @Override
    public void release(ManagedSession session) throws Exception {
        try {
            super.release(session);
        } finally {
            if (session instanceof ReplicatedSession replicated
                    && getSessionDataStore() instanceof ReplicatedSessionDataStore store && store.isRunningReplicator()) {
                store.replicator().exit(replicated.getId()); // after its replication: a hand-over may go now
            }
        }
        if (session instanceof ReplicatedSession replicated && replicated.replicatedData().isDisowned()) {
            evictIfIdle(replicated);
        }
    }

    private void evictLater(String id, String why, boolean invalidated) {
        // Called on a transport thread. Stop replicating from here at once (a volatile flag, no lock), but
        // evict on another thread: never block the transport on a session lock (a request may hold it while
        // it waits for a sync acknowledgement that this very thread would deliver).
        if (!(doGet(id) instanceof ReplicatedSession replicated)) {
            return;
        }
        if (!invalidated && getSessionDataStore() instanceof ReplicatedSessionDataStore store && store.isRunningReplicator()
                && !store.replicator().hasMovedAway(id)) {
            return; // a late report: a request here brought the session back, and this copy is the new one
        }
        replicated.replicatedData().disown();
        Runnable evict = () -> {
            evictIfIdle(replicated);
            LOG.debug("Session {} {}: evicted from {}", io.sessionrep.core.LogIds.shortForm(id), why, this);
        };
        Context context = getSessionManager().getContext();
        if (context != null && isRunning()) {
            context.execute(evict); // on the server's thread pool, in the context's scope
        } else {
            evict.run();
        }
    }

    private void evictIfIdle(ReplicatedSession session) {
        try (AutoLock ignored = session.lock()) {
            if (session.getRequests() > 0) {
                return; // the last request to exit evicts it (release)
            }
            String id = session.getId();
            if (doGet(id) == session) {
                doDelete(id);
            }
            session.setResident(false);
        }
    }
}
