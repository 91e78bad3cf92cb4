package io.sessionrep.tomcat;

import io.sessionrep.core.ChangeTracker;
import io.sessionrep.core.ReplicationNode;
import io.sessionrep.core.RestoredSession;
import io.sessionrep.core.SessionSnapshot;
import org.apache.catalina.session.StandardSession;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Tomcat session that reports what the application does to it to its {@link ChangeTracker}:
 * {@code setAttribute}, {@code removeAttribute} (Tomcat routes {@code setAttribute(name, null)} there too)
 * and {@code getAttribute}. The {@code HttpSession} facade that applications hold delegates every call to
 * this object, so nothing the application does escapes it. Metadata ({@code setMaxInactiveInterval}, access
 * times) is not reported: the core compares it with its own copy at request end. Everything else is
 * {@link StandardSession}: listeners, binding events, expiry, notes.
 *
 * <p>Two ways out of a node, on purpose different:
 * <ul>
 *   <li>{@link #expire} (invalidate, time-out): Tomcat's own expiry, listeners included, after the
 *       manager removed the session from the cluster, so that no take-over can bring it back.</li>
 *   <li>{@link #evict}: another node owns the session now, or invalidated it, or this node stops. The live
 *       copy here is dropped silently: no listener, no cluster message (the session lives on, or its
 *       listeners ran where it was invalidated).</li>
 * </ul>
 */
public class ReplicatedSession extends StandardSession {
    private static final long serialVersionUID = 1L;

    private final transient ChangeTracker changes = new ChangeTracker();
    private final transient SessionSnapshot snapshot = new Snapshot();
    /** Requests that accessed the session and whose end did not replicate it yet (see {@link #endAccess}). */
    private final transient AtomicInteger unreplicatedAccesses = new AtomicInteger();
    /** Another node owns the session now, or it was invalidated elsewhere: never replicate it from here. */
    private transient volatile boolean disowned;
    /** The cluster id of the session id it was cut from, kept while the id stays (see {@link #clusterId()}). */
    private transient ClusterId clusterId;

    public ReplicatedSession(ReplicatedSessionManager manager) {
        super(manager);
    }

    private ReplicatedSessionManager replicatedManager() {
        return (ReplicatedSessionManager) manager;
    }

    /** What requests changed since the last replication. */
    ChangeTracker changes() {
        return changes;
    }

    /** The read-only view the core takes its copy from at request end; the id has no route suffix. */
    SessionSnapshot snapshot() {
        return snapshot;
    }

    /**
     * The session id without its route suffix, cut once per id rather than at every request end: the same
     * string each time, so the hash every lookup of the core computes on it is computed once (a new string per
     * request showed in profiles). Recomputed when Tomcat gives the session another id (the cached one names
     * the id it was cut from, compared by identity: any assignment of {@code id} is seen, whatever the path).
     */
    String clusterId() {
        String current = getIdInternal();
        ClusterId cached = clusterId; // a record: its final fields make a racy read safe
        if (cached == null || cached.sessionId() != current) {
            cached = new ClusterId(current, ReplicationNode.clusterId(current));
            clusterId = cached;
        }
        return cached.clusterId();
    }

    private record ClusterId(String sessionId, String clusterId) {
    }

    // ------------------------------------------------------------------ tracking

    @Override
    public Object getAttribute(String name) {
        Object value = super.getAttribute(name);
        if (value != null) {
            changes.attributeRead(name, value); // a mutable value may be changed in place
        }
        return value;
    }

    @Override
    public void setAttribute(String name, Object value, boolean notify) {
        super.setAttribute(name, value, notify); // a null value goes to removeAttributeInternal
        if (value != null) {
            changes.attributeSet(name);
        }
    }

    @Override
    protected void removeAttributeInternal(String name, boolean notify) {
        super.removeAttributeInternal(name, notify);
        if (name != null) {
            changes.attributeRemoved(name);
        }
    }

    // ------------------------------------------------------------------ request scope

    @Override
    public void access() {
        super.access();
        unreplicatedAccesses.incrementAndGet();
    }

    /**
     * A request's replication of this session (the valve's, at request end) consumes that request's access.
     * @return false when the session is not to be replicated from here (invalid, or disowned)
     */
    boolean consumeAccess() {
        unreplicatedAccesses.getAndUpdate(n -> n > 0 ? n - 1 : 0);
        return replicatesFromHere();
    }

    /**
     * Whether this copy is the one to replicate from: valid (read without Tomcat's expiry check, which would
     * expire it as a side effect) and not dropped for another node.
     */
    boolean replicatesFromHere() {
        return isValidInternal() && !disowned;
    }

    /**
     * Tomcat ends every access, for the request's own session after the valve replicated it (nothing left to
     * do then). An access that no valve of this manager saw ends here and replicates now: a cross-context
     * dispatch into this context (the dispatch does not pass through this context's pipeline), or Tomcat's
     * {@code Session.Accessor} (WebSocket). The count is per session, so with concurrent requests this may
     * also be a request that the valve replicated already (another request's valve took its access): it
     * then replicates what is left, entered like a request (see
     * {@link ReplicatedSessionManager#unvalvedAccessEnded}).
     */
    @Override
    public void endAccess() {
        super.endAccess();
        if (unreplicatedAccesses.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0 && replicatesFromHere()) {
            replicatedManager().unvalvedAccessEnded(this);
        }
    }

    // ------------------------------------------------------------------ leaving this node

    /**
     * Invalidation or time-out: removes the session from the cluster first (nothing can take it over again),
     * then Tomcat's expiry (listeners, unbinding) runs here, once.
     */
    @Override
    public void expire(boolean notify) {
        synchronized (this) {
            if (isValid && !expiring && manager != null) {
                replicatedManager().invalidateInCluster(this);
            }
            super.expire(notify);
        }
    }

    /**
     * Drops this live copy without listeners and without telling the cluster. A request still using it
     * finishes with it (its changes are not replicated: another node owns the session); with
     * {@code invalid}, the session also reads as invalidated to such a request.
     */
    void evict(boolean invalid) {
        disowned = true;
        if (invalid) {
            isValid = false;
        }
    }

    /**
     * A copy dropped because another node owns the session now is no longer valid for Tomcat: a request that
     * looked the session up before {@link ReplicationValve} moved it here (Tomcat's authenticator does, with
     * {@code getSessionInternal(false)}) and cached this copy finds the session again, and gets the live one
     * with the newest state, instead of changing a copy that is never replicated.
     */
    @Override
    public boolean isValid() {
        return !disowned && super.isValid();
    }

    boolean isDisowned() {
        return disowned;
    }

    /**
     * Makes this (new, empty) session the live copy of a session taken over from the cluster, under this
     * node's id {@code localId}: state as replicated, no {@code sessionCreated} (it was created elsewhere),
     * then {@code sessionDidActivate} for attributes that listen for it, as after a migration.
     */
    void restore(RestoredSession restored, String localId) {
        creationTime = restored.creationTime();
        lastAccessedTime = restored.lastAccessedTime();
        thisAccessedTime = restored.lastAccessedTime();
        maxInactiveInterval = restored.maxInactiveSeconds() <= 0 ? -1 : restored.maxInactiveSeconds();
        for (Map.Entry<String, Object> attribute : restored.attributes().entrySet()) {
            if (attribute.getValue() != null) {
                attributes.put(attribute.getKey(), attribute.getValue());
            }
        }
        isNew = false;
        isValid = true;
        // The facade before the session is published (setId puts it into the manager's map): Tomcat makes
        // it lazily, unsynchronized, so requests here that found the new copy at once could each get their
        // own, and an application that synchronizes on its HttpSession (a common idiom) would not exclude
        // them from each other. Found by the perf runner's scenario 9 (lost version increments).
        getSession();
        setId(localId, false);
        activate();
    }

    /** What the core reads at request end: Tomcat's fields, minus attributes Tomcat never distributes. */
    private final class Snapshot implements SessionSnapshot {
        @Override
        public String id() {
            return clusterId();
        }

        @Override
        public long creationTime() {
            return creationTime;
        }

        @Override
        public long lastAccessedTime() {
            return thisAccessedTime; // the start of the most recent request
        }

        @Override
        public int maxInactiveSeconds() {
            return maxInactiveInterval;
        }

        @Override
        public Set<String> attributeNames() {
            Set<String> names = new HashSet<>();
            for (Map.Entry<String, Object> e : attributes.entrySet()) {
                if (!exclude(e.getKey(), e.getValue())) {
                    names.add(e.getKey());
                }
            }
            return names;
        }

        @Override
        public Object attribute(String name) {
            Object value = attributes.get(name);
            return value == null || exclude(name, value) ? null : value;
        }
    }
}
