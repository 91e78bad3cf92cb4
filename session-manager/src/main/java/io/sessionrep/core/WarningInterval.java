package io.sessionrep.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets a recurring warning through at most once per interval, whatever the number of threads that hit it (the
 * first since the last one let through wins; the others are only counted by their callers' metrics). Shared
 * by the core, the transport and discovery, so that every throttled warning works the same way.
 */
public final class WarningInterval {
    private final long intervalNanos;
    /** When a warning was last let through (at start: one interval ago, so the first goes through). */
    private final AtomicLong last;

    public WarningInterval(Duration interval) {
        this.intervalNanos = interval.toNanos();
        this.last = new AtomicLong(System.nanoTime() - intervalNanos);
    }

    /** Whether the caller should log now. */
    public boolean due() {
        long now = System.nanoTime();
        long previous = last.get();
        return now - previous >= intervalNanos && last.compareAndSet(previous, now);
    }
}
