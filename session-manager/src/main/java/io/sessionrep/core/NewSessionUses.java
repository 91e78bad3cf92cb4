package io.sessionrep.core;

import io.sessionrep.core.store.SessionCopy;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Requests of this node that use a session the core does not know yet: one created here whose first
 * replication has not happened (that replication creates its {@link PrimaryEntry}). They are counted here,
 * and the count becomes the entry's requests in flight ({@link SessionOwnership#adoptRequests}) in the same
 * step that creates the entry, so that a hand-over asked for right after the first replication still waits
 * for them.
 *
 * <p>Without it, a request that entered a new session before its first replication ran uncounted: the
 * session's cookie reaches the client as soon as the first response is committed, which can be well before
 * that request ends (a response larger than the container's buffer, or one the application flushes). The
 * client's next request could then run here while another node was handed the session, and its change
 * was lost.
 *
 * <p>Holds an id only while such a request runs: every count is taken back by that request's exit, or moved
 * into the entry. Counting and creating the entry both run inside the map's {@code compute} for the id, so
 * neither can slip between the other's check and its write.
 */
final class NewSessionUses {
    private final Map<String, Integer> counts = new ConcurrentHashMap<>();
    private final Map<String, PrimaryEntry> primaries;

    NewSessionUses(Map<String, PrimaryEntry> primaries) {
        this.primaries = primaries;
    }

    /**
     * Counts a request on a session that has no entry here. Returns null when counted; the entry instead, if
     * one was created meanwhile (nothing counted then: the caller enters the entry).
     */
    PrimaryEntry enter(String id) {
        PrimaryEntry[] appeared = new PrimaryEntry[1];
        counts.compute(id, (key, count) -> {
            PrimaryEntry entry = primaries.get(key);
            if (entry != null) {
                appeared[0] = entry;
                return count;
            }
            return count == null ? 1 : count + 1;
        });
        return appeared[0];
    }

    /**
     * A request counted here is over. False when none is counted here for the id: its count moved into the
     * entry, or the request was never counted here.
     */
    boolean exit(String id) {
        boolean[] found = new boolean[1];
        counts.computeIfPresent(id, (key, count) -> {
            found[0] = true;
            return count > 1 ? count - 1 : null;
        });
        return found[0];
    }

    /** Whether a request here uses the session before its first replication. */
    boolean inUse(String id) {
        return counts.containsKey(id);
    }

    /**
     * The entry for a session replicated for the first time (or the one that exists already), holding the
     * requests counted here.
     */
    PrimaryEntry createEntry(String id) {
        PrimaryEntry[] created = new PrimaryEntry[1];
        counts.compute(id, (key, count) -> {
            PrimaryEntry entry = primaries.computeIfAbsent(key, k -> new PrimaryEntry(new SessionCopy(k)));
            if (count != null) {
                synchronized (entry) {
                    entry.ownership.adoptRequests(count);
                }
            }
            created[0] = entry;
            return null;
        });
        return created[0];
    }

    /** The session was invalidated: requests still counted here end without anything to hand over. */
    void forget(String id) {
        counts.remove(id);
    }
}
