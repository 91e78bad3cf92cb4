package io.sessionrep.jetty;

import io.sessionrep.core.ChangeTracker;
import io.sessionrep.core.delta.ImmutableTypes;
import org.eclipse.jetty.session.ManagedSession;
import org.eclipse.jetty.session.SessionManager;
import org.eclipse.jetty.util.thread.AutoLock;

/**
 * A Jetty session that reports what the application does to it to its {@link ChangeTracker}:
 * {@code setAttribute}, {@code removeAttribute} (Jetty implements it as {@code setAttribute(name, null)})
 * and {@code getAttribute}. The ee10 {@code HttpSession} delegates every call to this object, so nothing
 * the application does escapes it. Metadata ({@code setMaxInactiveInterval}, access times) is not reported:
 * the core compares it with its own copy at request end.
 *
 * <p>A value read through {@code getAttribute} that is not of a known immutable type also marks the
 * session's data dirty, so that Jetty writes the session through the store at the end of the request
 * (and at response commit) exactly as if {@code setAttribute} had been called: an in-place mutation of a
 * list or a bean replicates without the application re-setting it.
 */
public class ReplicatedSession extends ManagedSession {
    private final ReplicatedSessionData data;
    /** Guarded by the session lock: reads made by our own activation notification are not the application's. */
    private boolean notifying;

    public ReplicatedSession(SessionManager manager, ReplicatedSessionData data) {
        super(manager, data);
        this.data = data;
    }

    public ReplicatedSessionData replicatedData() {
        return data;
    }

    @Override
    public Object getAttribute(String name) {
        try (AutoLock ignored = lock()) {
            Object value = super.getAttribute(name);
            if (!notifying && value != null && !ImmutableTypes.isKnownImmutable(value)) {
                data.changes().attributeRead(name, value);
                data.setDirty(true);
            }
            return value;
        }
    }

    @Override
    public Object setAttribute(String name, Object value) {
        // Jetty calls the listeners outside the session lock; report once the value is in place.
        Object old = super.setAttribute(name, value);
        if (value != null) {
            data.changes().attributeSet(name);
        } else if (old != null) {
            data.changes().attributeRemoved(name);
        }
        if ((value != null || old != null) && getSessionManager().getSessionCache() instanceof ReplicatedSessionCache cache) {
            cache.attributeModified(this);
        }
        return old;
    }

    /**
     * Once after a take-over from the cluster, when the session is resident again: tells attributes that
     * implement {@code HttpSessionActivationListener} that they were moved to this JVM. Those reads are
     * not tracked (they are not the application's).
     */
    void activateIfRestored() {
        try (AutoLock ignored = lock()) {
            if (!data.takeRestored() || !isValid()) {
                return;
            }
            notifying = true;
            try {
                onSessionActivation();
            } finally {
                notifying = false;
            }
        }
    }
}
