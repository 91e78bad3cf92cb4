package io.sessionrep.discovery;

/**
 * Which frame counters of one sender instance were already accepted: the highest counter seen and a
 * bitmap of the {@value #SIZE} counters below it. A counter is accepted once; a counter more than
 * {@value #SIZE} below the highest is refused as too old (frames of one sender may overtake each other a
 * little, because several threads seal frames concurrently, but not by that many). Thread-safe.
 */
final class ReplayWindow {

    /** How far below the highest counter a frame may still arrive. */
    static final int SIZE = 4096;

    private final long[] seen = new long[SIZE / Long.SIZE];
    private long highest;

    /** Whether {@code counter} (at least 1) is new and recent; if so it is recorded as seen. */
    synchronized boolean accept(long counter) {
        if (counter <= 0) {
            return false;
        }
        if (counter > highest) {
            long shift = counter - highest;
            for (long c = highest + 1; c <= counter && shift < SIZE; c++) {
                clear(c); // the slots that now stand for counters not yet seen
            }
            if (shift >= SIZE) {
                java.util.Arrays.fill(seen, 0);
            }
            highest = counter;
            mark(counter);
            return true;
        }
        if (highest - counter >= SIZE || isMarked(counter)) {
            return false;
        }
        mark(counter);
        return true;
    }

    /** Whether {@code counter} would be refused now (seen, or too old); records nothing. */
    synchronized boolean refuses(long counter) {
        return counter <= 0 || counter <= highest && (highest - counter >= SIZE || isMarked(counter));
    }

    private void mark(long counter) {
        int slot = (int) (counter % SIZE);
        seen[slot >>> 6] |= 1L << (slot & 63);
    }

    private void clear(long counter) {
        int slot = (int) (counter % SIZE);
        seen[slot >>> 6] &= ~(1L << (slot & 63));
    }

    private boolean isMarked(long counter) {
        int slot = (int) (counter % SIZE);
        return (seen[slot >>> 6] & (1L << (slot & 63))) != 0;
    }
}
