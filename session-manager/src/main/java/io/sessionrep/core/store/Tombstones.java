package io.sessionrep.core.store;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ids of sessions invalidated recently, so that a late, duplicated or reordered message cannot bring
 * them back. Each tombstone lives for a bounded time, far longer than any message can be in flight, and
 * there are at most {@link #MAX_ENTRIES} of them (a flood of invalidations, hostile or not, cannot exhaust
 * memory): past that, the ones that expire first are forgotten first.
 */
public final class Tombstones {
    /** At most this many ids are remembered (about 100 MB at most with 64-character ids). */
    public static final int MAX_ENTRIES = 1_000_000;
    private final Map<String, Long> expiresAt = new ConcurrentHashMap<>();
    private final Clock clock;
    private final long ttlMillis;
    private final int maxEntries;

    public Tombstones(Clock clock, Duration ttl) {
        this(clock, ttl, MAX_ENTRIES);
    }

    /** With another bound than {@link #MAX_ENTRIES}. */
    public Tombstones(Clock clock, Duration ttl, int maxEntries) {
        this.clock = clock;
        this.ttlMillis = ttl.toMillis();
        this.maxEntries = maxEntries;
    }

    public void add(String sessionId) {
        expiresAt.put(sessionId, clock.millis() + ttlMillis);
        if (expiresAt.size() > maxEntries) {
            purgeExpired();
            if (expiresAt.size() > maxEntries) {
                shrink();
            }
        }
    }

    /** Forgets the tenth of the tombstones that expire first. */
    private synchronized void shrink() {
        int excess = expiresAt.size() - maxEntries * 9 / 10;
        if (excess <= 0) {
            return;
        }
        expiresAt.entrySet().stream().sorted(Map.Entry.comparingByValue()).limit(excess)
                .map(Map.Entry::getKey).toList().forEach(expiresAt::remove);
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
