package io.sessionrep.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets a recurring warning through at most once per interval, whatever the number of threads that hit it (the
 * first since the last one let through wins; the others are only counted by their callers' metrics).
 */
final class WarningInterval {
    private final long intervalNanos;
    /** When a warning was last let through; 0 before the first. */
    private final AtomicLong last = new AtomicLong();

    WarningInterval(Duration interval) {
        this.intervalNanos = interval.toNanos();
    }

    /** Whether the caller should log now. */
    boolean due() {
        long now = System.nanoTime();
        long previous = last.get();
        return (previous == 0 || now - previous > intervalNanos) && last.compareAndSet(previous, now);
    }
}
