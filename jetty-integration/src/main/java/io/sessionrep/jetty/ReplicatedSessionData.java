package io.sessionrep.jetty;

import io.sessionrep.core.ChangeTracker;
import io.sessionrep.core.SessionSnapshot;
import org.eclipse.jetty.session.SessionData;

import java.util.Set;

/**
 * Jetty's {@link SessionData} of one replicated session, carrying the session's {@link ChangeTracker} so
 * that the tracker travels with the data it tracks: {@link ReplicatedSession} reports to it, and
 * {@link ReplicatedSessionDataStore#doStore} hands both to the core. It is also the
 * {@link SessionSnapshot} the core reads at request end (the id is Jetty's cluster id, which never carries
 * the route suffix: the suffix lives only in {@code ManagedSession.getExtendedId()}).
 *
 * <p>Created only by {@link ReplicatedSessionDataStore} (new sessions and sessions taken over from the
 * cluster). Every method is called with the owning session's lock held, except the snapshot reads, which
 * the store makes under that lock too.
 */
public final class ReplicatedSessionData extends SessionData implements SessionSnapshot {
    private static final long serialVersionUID = 1L;

    private final transient ChangeTracker changes = new ChangeTracker();
    /** Access time sent with the last replication; -1 before the first one. */
    private transient long replicatedAccessTime = -1;
    /** Taken over from the cluster and not yet activated here (HttpSessionActivationListener). */
    private transient boolean restored;
    /** Another node owns the session now, or it was invalidated elsewhere: never replicate it from here. */
    private transient volatile boolean disowned;

    ReplicatedSessionData(String id, String contextPath, String vhost, long created, long accessed,
                          long lastAccessed, long maxInactiveMs) {
        super(id, contextPath, vhost, created, accessed, lastAccessed, maxInactiveMs);
    }

    /** What requests changed since the last replication. */
    public ChangeTracker changes() {
        return changes;
    }

    /**
     * Whether a replication now would tell the backups anything new: an attribute or the max inactive
     * interval changed (Jetty's dirty flag, which {@link ReplicatedSession} also raises for mutable values
     * read through getAttribute), or a request accessed the session since the last replication.
     */
    boolean hasNewsForBackups() {
        return isDirty() || getAccessed() != replicatedAccessTime;
    }

    void replicated() {
        replicatedAccessTime = getAccessed();
    }

    void markRestored() {
        restored = true;
        replicatedAccessTime = getAccessed();
    }

    /** True once, the first time it is asked after the session was taken over. */
    boolean takeRestored() {
        boolean was = restored;
        restored = false;
        return was;
    }

    void disown() {
        disowned = true;
    }

    boolean isDisowned() {
        return disowned;
    }

    // ---- SessionSnapshot ----

    @Override
    public String id() {
        return getId();
    }

    @Override
    public long creationTime() {
        return getCreated();
    }

    @Override
    public long lastAccessedTime() {
        // Jetty's "accessed" is the start of the most recent request; its "lastAccessed" the one before.
        return getAccessed();
    }

    @Override
    public int maxInactiveSeconds() {
        long ms = getMaxInactiveMs();
        return ms <= 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, ms / 1000);
    }

    @Override
    public Set<String> attributeNames() {
        return Set.copyOf(getKeys());
    }

    @Override
    public Object attribute(String name) {
        return getAttribute(name);
    }
}
