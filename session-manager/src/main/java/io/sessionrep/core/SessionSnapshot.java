package io.sessionrep.core;

import java.util.Set;

/**
 * Read access to a container's live session at request end. The core reads only what the
 * {@link ChangeTracker} says changed (or everything for a full copy), on the request thread.
 */
public interface SessionSnapshot {
    /** The cluster id: the session id without any route suffix. */
    String id();

    long creationTime();

    long lastAccessedTime();

    /** Seconds; zero or negative means "never expires". */
    int maxInactiveSeconds();

    Set<String> attributeNames();

    /** The current value, or null if absent. */
    Object attribute(String name);
}
