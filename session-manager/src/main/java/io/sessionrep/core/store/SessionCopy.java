package io.sessionrep.core.store;

import io.sessionrep.core.delta.SessionUpdate;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The replicated form of one session at one version: metadata and serialized attribute values. A backup
 * holds one per session it backs up; a primary holds one per session it owns, mirroring what its
 * backups have, so full copies can be sent from any thread without touching live objects.
 * Not thread-safe: callers synchronize on the instance.
 */
public final class SessionCopy {
    private final String sessionId;
    private long version;
    private long creationTime;
    private long lastAccessedTime;
    private int maxInactiveSeconds;
    private final Map<String, byte[]> attributes = new HashMap<>();
    private long valueBytes;

    public SessionCopy(String sessionId) {
        this.sessionId = sessionId;
    }

    /** Builds a copy from a full update. */
    public static SessionCopy of(SessionUpdate full) {
        SessionCopy copy = new SessionCopy(full.sessionId());
        copy.apply(full);
        return copy;
    }

    /** Applies a full copy or a delta whose {@code fromVersion} the caller has checked. */
    public void apply(SessionUpdate update) {
        if (update.full()) {
            attributes.clear();
            valueBytes = 0;
        }
        for (String name : update.removed()) {
            byte[] old = attributes.remove(name);
            if (old != null) {
                valueBytes -= old.length;
            }
        }
        for (Map.Entry<String, byte[]> e : update.changed().entrySet()) {
            byte[] old = attributes.put(e.getKey(), e.getValue());
            valueBytes += e.getValue().length - (old == null ? 0 : old.length);
        }
        version = update.toVersion();
        creationTime = update.creationTime();
        lastAccessedTime = update.lastAccessedTime();
        maxInactiveSeconds = update.maxInactiveSeconds();
    }

    /** This copy as a full update at its current version. */
    public SessionUpdate toFullUpdate() {
        return new SessionUpdate(sessionId, 0, version, true, creationTime, lastAccessedTime, maxInactiveSeconds,
                new HashMap<>(attributes), Set.of());
    }

    /** A read-only access: only the last access time moves (never backwards). */
    public void touch(long accessedAt) {
        lastAccessedTime = Math.max(lastAccessedTime, accessedAt);
    }

    /** Renumbers the copy (a new primary continues after the version it took over). */
    public void setVersion(long version) {
        this.version = version;
    }

    public String sessionId() {
        return sessionId;
    }

    public long version() {
        return version;
    }

    public long lastAccessedTime() {
        return lastAccessedTime;
    }

    public int maxInactiveSeconds() {
        return maxInactiveSeconds;
    }

    public byte[] attribute(String name) {
        return attributes.get(name);
    }

    public boolean hasAttribute(String name) {
        return attributes.containsKey(name);
    }

    /** Sum of the serialized attribute sizes. */
    public long valueBytes() {
        return valueBytes;
    }
}
