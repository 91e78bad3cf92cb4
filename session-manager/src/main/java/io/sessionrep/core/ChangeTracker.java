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
    private Set<String> written = new HashSet<>();
    private Set<String> removed = new HashSet<>();

    /** setAttribute (also with the same value: the caller may have mutated it). */
    public synchronized void attributeSet(String name) {
        removed.remove(name);
        written.add(name);
    }

    /** removeAttribute, or setAttribute(name, null). */
    public synchronized void attributeRemoved(String name) {
        written.remove(name);
        removed.add(name);
    }

    /**
     * getAttribute returned {@code value}. A value of a type that can be changed in place is treated as
     * written: the application may mutate it without calling setAttribute.
     */
    public void attributeRead(String name, Object value) {
        if (value != null && !ImmutableTypes.isKnownImmutable(value)) {
            synchronized (this) {
                if (!removed.contains(name)) {
                    written.add(name);
                }
            }
        }
    }

    /** Takes and clears what was recorded. */
    public synchronized Changes drain() {
        Changes changes = new Changes(written, removed);
        written = new HashSet<>();
        removed = new HashSet<>();
        return changes;
    }

    /** Puts drained changes back (the replication could not be attempted and must not be lost). */
    public synchronized void restore(Changes changes) {
        for (String name : changes.written()) {
            if (!removed.contains(name)) {
                written.add(name);
            }
        }
        for (String name : changes.removed()) {
            if (!written.contains(name)) {
                removed.add(name);
            }
        }
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
