package io.sessionrep.core;

import io.sessionrep.core.store.SessionCopy;

import java.util.HashSet;
import java.util.Set;

/**
 * What the primary knows about one session it owns: the replicated state its backups hold (as bytes) and
 * which backups hold it. Guarded by its own monitor: updates of one session are built and handed to the
 * network in version order.
 */
final class PrimaryEntry {
    final SessionCopy copy;
    /** Backups that hold {@code copy.version()} (or will, once queued updates arrive). */
    final Set<String> syncedBackups = new HashSet<>();
    /** Invalidated or taken over by another node: must not replicate any more. */
    boolean removed;
    /**
     * Promoted from a backup because its primary left, and not yet used by a request here: the container
     * does not hold it live, so the core expires it itself (replicated last-access time).
     */
    boolean dormant;
    /** max-session-size warning already logged for this session. */
    boolean oversizeWarned;

    PrimaryEntry(SessionCopy copy) {
        this.copy = copy;
    }
}
