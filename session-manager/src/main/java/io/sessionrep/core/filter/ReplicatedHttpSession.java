package io.sessionrep.core.filter;


import io.sessionrep.core.ChangeTracker;
import io.sessionrep.core.SessionSnapshot;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpSession;
import jakarta.servlet.http.HttpSessionActivationListener;
import jakarta.servlet.http.HttpSessionBindingEvent;
import jakarta.servlet.http.HttpSessionBindingListener;
import jakarta.servlet.http.HttpSessionEvent;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link HttpSession} the filter hands to the application: attributes in memory, every change reported
 * to its {@link ChangeTracker}, the Servlet listeners fired as the specification says (binding listeners
 * on the values themselves; session, attribute and id listeners through {@link SessionListeners}). It is
 * also the {@link SessionSnapshot} the core reads at request end.
 *
 * <p>States: valid; invalidating (listeners of {@code invalidate()} or expiry run and may still read
 * attributes); invalid (every method but {@link #getId()} throws {@code IllegalStateException}).
 */
final class ReplicatedHttpSession implements HttpSession, SessionSnapshot {
    private enum State { VALID, INVALIDATING, INVALID }

    private final FilterSessionManager manager;
    private final long creationTime;
    private final Map<String, Object> attributes = new ConcurrentHashMap<>();
    private final ChangeTracker changes = new ChangeTracker();
    private volatile String id;
    private volatile State state = State.VALID;
    /** Start of the request before the current one (HttpSession.getLastAccessedTime). */
    private volatile long lastAccessedTime;
    /** Start of the most recent request: what expiry and the backups go by. */
    private volatile long accessedTime;
    private volatile int maxInactiveSeconds;
    private volatile boolean isNew;
    /** Another node owns the session now, or it was invalidated elsewhere: never replicate it from here. */
    private volatile boolean disowned;
    /** Guarded by this: requests using the session now (an expiry sweep leaves such a session alone). */
    private int requests;

    private ReplicatedHttpSession(FilterSessionManager manager, String id, long creationTime, long accessedTime,
                                  int maxInactiveSeconds, boolean isNew) {
        this.manager = manager;
        this.id = id;
        this.creationTime = creationTime;
        this.lastAccessedTime = accessedTime;
        this.accessedTime = accessedTime;
        this.maxInactiveSeconds = maxInactiveSeconds;
        this.isNew = isNew;
    }

    /** A session created by the current request (which counts as using it). */
    static ReplicatedHttpSession created(FilterSessionManager manager, String id, long now, int maxInactiveSeconds) {
        ReplicatedHttpSession session = new ReplicatedHttpSession(manager, id, now, now, maxInactiveSeconds, true);
        session.requests = 1;
        return session;
    }

    /** A session taken over from the cluster; not yet accessed by a request here. */
    static ReplicatedHttpSession restored(FilterSessionManager manager, String id, long creationTime,
                                          long lastAccessedTime, int maxInactiveSeconds, Map<String, Object> values) {
        ReplicatedHttpSession session = new ReplicatedHttpSession(manager, id, creationTime, lastAccessedTime,
                maxInactiveSeconds, false);
        session.attributes.putAll(values);
        return session;
    }

    // ------------------------------------------------------------------ used by the filter

    /** A request starts using the session; false when it is no longer valid or has expired. */
    synchronized boolean access(long now) {
        if (state != State.VALID || disowned || isExpiredAt(now)) {
            return false;
        }
        lastAccessedTime = accessedTime;
        accessedTime = now;
        isNew = false;
        requests++;
        return true;
    }

    /** A request that used the session ended. */
    synchronized void leave() {
        if (requests > 0) {
            requests--;
        }
    }

    boolean isExpiredAt(long now) {
        int max = maxInactiveSeconds;
        return max > 0 && now - accessedTime >= max * 1000L;
    }

    /** Starts invalidation if the session is valid; false when it already is (being) invalidated. */
    synchronized boolean startInvalidation() {
        if (state != State.VALID) {
            return false;
        }
        state = State.INVALIDATING;
        return true;
    }

    /** Starts invalidation of a session that expired and no request is using; false otherwise. */
    synchronized boolean startExpiry(long now) {
        if (state != State.VALID || requests > 0 || !isExpiredAt(now)) {
            return false;
        }
        state = State.INVALIDATING;
        return true;
    }

    /** Unbinds every attribute (invalidation), then the session is invalid. */
    void finishInvalidation(SessionListeners listeners) {
        try {
            for (String name : new ArrayList<>(attributes.keySet())) {
                Object old = attributes.remove(name);
                if (old != null) {
                    unbound(name, old);
                    listeners.attributeRemoved(this, name, old);
                }
            }
        } finally {
            state = State.INVALID;
        }
    }

    boolean isValid() {
        return state == State.VALID && !disowned;
    }

    void disown() {
        disowned = true;
    }

    boolean isDisowned() {
        return disowned;
    }

    void changeId(String newId) {
        this.id = newId;
    }

    ChangeTracker changes() {
        return changes;
    }

    /** After a take-over: values that implement HttpSessionActivationListener learn they moved here. */
    void activate() {
        HttpSessionEvent event = new HttpSessionEvent(this);
        for (Object value : attributes.values()) {
            if (value instanceof HttpSessionActivationListener listener) {
                SessionListeners.each(List.of(listener), l -> l.sessionDidActivate(event), "sessionDidActivate");
            }
        }
    }

    private void checkValid() {
        if (state == State.INVALID) {
            throw new IllegalStateException("session " + io.sessionrep.core.LogIds.shortForm(id) + " was invalidated");
        }
    }

    private void unbound(String name, Object value) {
        if (value instanceof HttpSessionBindingListener listener) {
            HttpSessionBindingEvent event = new HttpSessionBindingEvent(this, name, value);
            SessionListeners.each(List.of(listener), l -> l.valueUnbound(event), "valueUnbound");
        }
    }

    // ------------------------------------------------------------------ HttpSession

    @Override
    public String getId() {
        return id;
    }

    @Override
    public long getCreationTime() {
        checkValid();
        return creationTime;
    }

    @Override
    public long getLastAccessedTime() {
        checkValid();
        return lastAccessedTime;
    }

    @Override
    public ServletContext getServletContext() {
        return manager.servletContext();
    }

    @Override
    public void setMaxInactiveInterval(int interval) {
        maxInactiveSeconds = interval;
    }

    @Override
    public int getMaxInactiveInterval() {
        return maxInactiveSeconds;
    }

    @Override
    public Object getAttribute(String name) {
        checkValid();
        Object value = attributes.get(name);
        changes.attributeRead(name, value);
        return value;
    }

    @Override
    public Enumeration<String> getAttributeNames() {
        checkValid();
        return Collections.enumeration(new ArrayList<>(attributes.keySet()));
    }

    @Override
    public void setAttribute(String name, Object value) {
        Objects.requireNonNull(name, "name");
        checkValid();
        if (value == null) {
            removeAttribute(name);
            return;
        }
        Object current = attributes.get(name);
        if (value != current && value instanceof HttpSessionBindingListener listener) {
            HttpSessionBindingEvent event = new HttpSessionBindingEvent(this, name, value);
            SessionListeners.each(List.of(listener), l -> l.valueBound(event), "valueBound");
        }
        Object old = attributes.put(name, value);
        changes.attributeSet(name);
        if (old != null && old != value) {
            unbound(name, old);
        }
        if (old == null) {
            manager.listeners().attributeAdded(this, name, value);
        } else {
            manager.listeners().attributeReplaced(this, name, old);
        }
    }

    @Override
    public void removeAttribute(String name) {
        checkValid();
        Object old = attributes.remove(name);
        if (old == null) {
            return;
        }
        changes.attributeRemoved(name);
        unbound(name, old);
        manager.listeners().attributeRemoved(this, name, old);
    }

    @Override
    public void invalidate() {
        checkValid();
        manager.invalidate(this);
    }

    @Override
    public boolean isNew() {
        checkValid();
        return isNew;
    }

    // ------------------------------------------------------------------ SessionSnapshot

    @Override
    public String id() {
        return id;
    }

    @Override
    public long creationTime() {
        return creationTime;
    }

    @Override
    public long lastAccessedTime() {
        return accessedTime;
    }

    @Override
    public int maxInactiveSeconds() {
        return maxInactiveSeconds;
    }

    @Override
    public Set<String> attributeNames() {
        return Set.copyOf(attributes.keySet());
    }

    @Override
    public Object attribute(String name) {
        return attributes.get(name);
    }

    @Override
    public String toString() {
        return "ReplicatedHttpSession[" + id + "," + state + (disowned ? ",disowned" : "") + "]";
    }
}
