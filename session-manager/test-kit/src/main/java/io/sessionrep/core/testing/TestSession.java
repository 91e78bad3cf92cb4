package io.sessionrep.core.testing;

import io.sessionrep.core.ChangeTracker;
import io.sessionrep.core.SessionSnapshot;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** A live session as a container integration would hold it, reporting to its ChangeTracker. */
public final class TestSession implements SessionSnapshot {
    private final String id;
    private final long created;
    /** Read by the core from other threads too (full copies are serialized from the live session). */
    private final Map<String, Object> attributes = java.util.Collections.synchronizedMap(new LinkedHashMap<>());
    public final ChangeTracker tracker = new ChangeTracker();
    private volatile int maxInactiveSeconds = 1800;
    private volatile long lastAccessed;

    public TestSession(String id, long now) {
        this.id = id;
        this.created = now;
        this.lastAccessed = now;
    }

    public TestSession set(String name, Object value) {
        attributes.put(name, value);
        tracker.attributeSet(name);
        return this;
    }

    public TestSession remove(String name) {
        attributes.remove(name);
        tracker.attributeRemoved(name);
        return this;
    }

    public Object get(String name) {
        Object value = attributes.get(name);
        tracker.attributeRead(name, value);
        return value;
    }

    public void setMaxInactiveSeconds(int seconds) {
        maxInactiveSeconds = seconds;
    }

    public void access(long now) {
        lastAccessed = now;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public long creationTime() {
        return created;
    }

    @Override
    public long lastAccessedTime() {
        return lastAccessed;
    }

    @Override
    public int maxInactiveSeconds() {
        return maxInactiveSeconds;
    }

    @Override
    public Set<String> attributeNames() {
        synchronized (attributes) {
            return new java.util.LinkedHashSet<>(attributes.keySet());
        }
    }

    @Override
    public Object attribute(String name) {
        return attributes.get(name);
    }
}
