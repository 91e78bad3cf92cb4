package io.sessionrep.core;

import io.sessionrep.core.delta.ImmutableTypes;

import java.util.HashSet;
import java.util.Set;

/**
 * Records what requests did to one live session since it was last replicated. The container
 * integration owns one per live session and reports every {@code setAttribute}, {@code removeAttribute}
 * and {@code getAttribute}; {@link SessionReplicator#requestEnd} drains it.
 *
 * <p>Thread-safe: concurrent requests on the same session may report at once.
 */
public final class ChangeTracker {
    // Null until the first change: a live session that no request is changing right now (most of them,
    // most of the time) then costs no sets, and a request that changes nothing allocates none.
    private Set<String> written;
    private Set<String> removed;

    /** setAttribute (also with the same value: the caller may have mutated it). */
    public synchronized void attributeSet(String name) {
        if (removed != null) {
            removed.remove(name);
        }
        written().add(name);
    }

    /** removeAttribute, or setAttribute(name, null). */
    public synchronized void attributeRemoved(String name) {
        if (written != null) {
            written.remove(name);
        }
        removed().add(name);
    }

    /**
     * getAttribute returned {@code value}. A value of a type that can be changed in place is treated as
     * written: the application may mutate it without calling setAttribute.
     */
    public void attributeRead(String name, Object value) {
        if (value != null && !ImmutableTypes.isKnownImmutable(value)) {
            synchronized (this) {
                if (removed == null || !removed.contains(name)) {
                    written().add(name);
                }
            }
        }
    }

    /** Takes and clears what was recorded. */
    public synchronized Changes drain() {
        Changes changes = new Changes(written == null ? Set.of() : written, removed == null ? Set.of() : removed);
        written = null;
        removed = null;
        return changes;
    }

    /** Puts drained changes back (the replication could not be attempted and must not be lost). */
    public synchronized void restore(Changes changes) {
        for (String name : changes.written()) {
            if (removed == null || !removed.contains(name)) {
                written().add(name);
            }
        }
        for (String name : changes.removed()) {
            if (written == null || !written.contains(name)) {
                removed().add(name);
            }
        }
    }

    private Set<String> written() {
        if (written == null) {
            written = new HashSet<>();
        }
        return written;
    }

    private Set<String> removed() {
        if (removed == null) {
            removed = new HashSet<>();
        }
        return removed;
    }

    /**
     * What one or more requests did to attributes. Metadata (max-inactive, access time) is not tracked: the
     * core compares it with its own copy at request end.
     */
    public record Changes(Set<String> written, Set<String> removed) {
        public boolean isEmpty() {
            return written.isEmpty() && removed.isEmpty();
        }
    }
}
