package io.sessionrep.core;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether a warning about a key (a class name, a member, a session, a set of backups) is logged: the first time
 * for each key, for up to {@code capacity} keys; once that many are known, a warning about a new key goes through
 * at most once per {@code interval}. Keys often come from peers or clients: filling the set can neither grow memory
 * without bound nor silence the warnings that follow for longer than the interval.
 */
final class ReportOnce {
    private final int capacity;
    private final Set<String> reported = ConcurrentHashMap.newKeySet();
    private final WarningInterval overflow;

    ReportOnce(int capacity, Duration interval) {
        this.capacity = capacity;
        this.overflow = new WarningInterval(interval);
    }

    /** A set of 1,000 keys, then one warning a minute. */
    static ReportOnce standard() {
        return new ReportOnce(1000, Duration.ofMinutes(1));
    }

    /** Whether to log the warning about {@code key} now. */
    boolean firstTime(String key) {
        if (reported.contains(key)) {
            return false;
        }
        if (reported.size() < capacity) {
            return reported.add(key);
        }
        return overflow.due();
    }
}
