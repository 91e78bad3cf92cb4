package io.sessionrep.core.store;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ids of sessions invalidated recently, so that a late, duplicated or reordered message cannot bring
 * them back. Each tombstone lives for a bounded time, far longer than any message can be in flight.
 */
public final class Tombstones {
    private final Map<String, Long> expiresAt = new ConcurrentHashMap<>();
    private final Clock clock;
    private final long ttlMillis;

    public Tombstones(Clock clock, Duration ttl) {
        this.clock = clock;
        this.ttlMillis = ttl.toMillis();
    }

    public void add(String sessionId) {
        expiresAt.put(sessionId, clock.millis() + ttlMillis);
    }

    public void remove(String sessionId) {
        expiresAt.remove(sessionId);
    }

    public boolean contains(String sessionId) {
        Long until = expiresAt.get(sessionId);
        return until != null && until > clock.millis();
    }

    /** Forgets tombstones older than their lifetime. */
    public void purgeExpired() {
        long now = clock.millis();
        expiresAt.values().removeIf(until -> until <= now);
    }

    /** Forgets every id. */
    public void clear() {
        expiresAt.clear();
    }

    public int size() {
        return expiresAt.size();
    }
}
