package io.sessionrep.core.delta;

import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * One replication of one session: a full copy, or the attributes changed between two versions.
 * Attribute values are already serialized, so an update can be queued, merged and re-sent from any
 * thread without touching the application's live objects.
 *
 * @param fromVersion the version a backup must hold to apply this delta (ignored for a full copy)
 * @param toVersion   the version the backup holds after applying it
 * @param changed     attribute name to serialized value; for a full copy, every attribute
 * @param removed     attributes removed since {@code fromVersion} (empty for a full copy)
 */
public record SessionUpdate(String sessionId, long fromVersion, long toVersion, boolean full,
                            long creationTime, long lastAccessedTime, int maxInactiveSeconds,
                            Map<String, byte[]> changed, Set<String> removed) {

    public SessionUpdate {
        changed = Collections.unmodifiableMap(changed);
        removed = Collections.unmodifiableSet(removed);
    }

    /** Bytes of attribute values carried (what the backup stores), not counting framing. */
    public long valueBytes() {
        long total = 0;
        for (byte[] v : changed.values()) {
            total += v.length;
        }
        return total;
    }

    /**
     * This update followed by {@code newer} as one update (the async queue coalesces with it). A full
     * copy followed by a delta stays a full copy; a newer full copy replaces everything.
     */
    public SessionUpdate followedBy(SessionUpdate newer) {
        if (newer.full) {
            return newer;
        }
        if ((full || removed.isEmpty()) && newer.changed.keySet().containsAll(changed.keySet())) {
            // the common case, a request that rewrites what the previous one wrote: newer's maps as they are
            return new SessionUpdate(sessionId, fromVersion, newer.toVersion, full, creationTime,
                    newer.lastAccessedTime, newer.maxInactiveSeconds, newer.changed, full ? Set.of() : newer.removed);
        }
        Map<String, byte[]> attributes = new HashMap<>(changed);
        attributes.keySet().removeAll(newer.removed);
        attributes.putAll(newer.changed);
        Set<String> gone;
        if (full) {
            gone = Set.of();
        } else {
            gone = new HashSet<>(removed);
            gone.removeAll(newer.changed.keySet());
            gone.addAll(newer.removed);
        }
        return new SessionUpdate(sessionId, fromVersion, newer.toVersion, full, creationTime,
                newer.lastAccessedTime, newer.maxInactiveSeconds, attributes, gone);
    }
}
