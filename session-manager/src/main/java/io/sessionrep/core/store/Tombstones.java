package io.sessionrep.core.store;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import net.openhft.hashing.LongHashFunction;

/**
 * Ids of sessions invalidated recently, so that a late, duplicated or reordered message cannot bring
 * them back. Each tombstone lives for a bounded time, far longer than any message can be in flight, and
 * there are at most {@link #MAX_ENTRIES} of them (a flood of invalidations, hostile or not, cannot exhaust
 * memory): past that, the ones that expire first are forgotten first. The same structure remembers other
 * short-lived sets of ids (ownership recently lost, requests recently seen for unknown sessions).
 *
 * <p><b>Layout.</b> An id is not kept, only a 128-bit hash of it: two independent 64-bit XXH3 hashes, each
 * keyed with a seed drawn from {@link SecureRandom} when the set is built. The entries live in
 * {@value #STRIPES} stripes (chosen by the top bits of one hash), each an open-addressing table with linear
 * probing over one {@code long[]}: per slot, the two hash halves and the expiry time in millis side by side,
 * so a lookup mostly reads one cache line. A slot costs 24 bytes; a stripe doubles when it would pass 3/4
 * full and shrinks back to half full when a purge leaves it under 1/8 full. By that layout an entry costs 32
 * to 64 bytes while the set grows (about 50 at a million entries: 48 MiB in all), up to 192 in a stripe that
 * purges emptied to just above 1/8, against about 130 bytes and 4 objects per entry (counted from the object
 * layout with compressed references) for the map of strings it replaces; an empty set takes 24 KB. There is
 * no object per entry: the garbage collector traces and copies one array per stripe, whatever the number of
 * tombstones (and none large enough to be a humongous object for G1, see {@link #STRIPES}).
 *
 * <p><b>False positives.</b> An id that is not there is reported present only if its 128-bit hash equals
 * that of one held: probability at most {@code size() / 2^128} per lookup, nil in practice. An id that was
 * added and is live is never missed. The hashes are keyed because ids come from clients (a request for an
 * unknown session is remembered too): without the seeds nobody can compute which ids collide, nor aim many
 * ids at one stripe or one run of slots. XXH3 is fast, not a cryptographic MAC: this relies on no way being
 * known to find its collisions without the seed, not on a proof.
 *
 * <p><b>Threads.</b> Each stripe is locked alone, for one lookup or update, or for one sweep of that stripe
 * (a purge, an eviction, a resize: well under a millisecond at a million entries), so a lookup never waits
 * on a whole-set operation. Evictions take one more lock among themselves.
 */
public final class Tombstones {
    /** At most this many ids are remembered (about 50 MB at most: their hashes, not their text). */
    public static final int MAX_ENTRIES = 1_000_000;
    /**
     * A power of two. Request threads rarely meet on one of so many, and at {@link #MAX_ENTRIES} a stripe's
     * array stays at 384 KB: G1 gives an array over half a region (1 MB regions at least) whole regions of its
     * own, which with 32 stripes (arrays of 1 MB and 512 KB) doubled the heap they took.
     */
    private static final int STRIPES = 128;
    /** Resolution of the cut-off in an eviction: the ttl is cut into this many spans of expiry time. */
    private static final int EXPIRY_BUCKETS = 1024;

    private final LongHashFunction highHash;
    private final LongHashFunction lowHash;
    private final Stripe[] stripes = new Stripe[STRIPES];
    /** Sum of the stripes' counts, kept apart so that an add can check the bound without visiting them. */
    private final AtomicInteger held = new AtomicInteger();
    /** One eviction at a time: two would both forget a tenth. */
    private final Object evictionLock = new Object();
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
        SecureRandom random = new SecureRandom();
        long highSeed = random.nextLong();
        long lowSeed = random.nextLong();
        while (lowSeed == highSeed) {
            lowSeed = random.nextLong();
        }
        this.highHash = LongHashFunction.xx3(highSeed);
        this.lowHash = LongHashFunction.xx3(lowSeed);
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe();
        }
    }

    public void add(String sessionId) {
        long high = highHash.hashChars(sessionId);
        long low = lowKey(high, lowHash.hashChars(sessionId));
        long until = clock.millis() + ttlMillis;
        if (stripeOf(high).put(high, low, until) && held.incrementAndGet() > maxEntries) {
            keepWithinBound();
        }
    }

    public void remove(String sessionId) {
        long high = highHash.hashChars(sessionId);
        long low = lowKey(high, lowHash.hashChars(sessionId));
        if (stripeOf(high).remove(high, low)) {
            held.decrementAndGet();
        }
    }

    public boolean contains(String sessionId) {
        if (held.get() == 0) {
            return false; // the usual case of the smaller sets: no hashing
        }
        long high = highHash.hashChars(sessionId);
        long low = lowKey(high, lowHash.hashChars(sessionId));
        long until = stripeOf(high).expiryOf(high, low);
        return until != Stripe.ABSENT && until > clock.millis();
    }

    /** Forgets tombstones older than their lifetime: one sweep of each stripe. */
    public void purgeExpired() {
        long now = clock.millis();
        for (Stripe stripe : stripes) {
            held.addAndGet(-stripe.removeIf(until -> until <= now));
        }
    }

    /** Forgets every id. */
    public void clear() {
        for (Stripe stripe : stripes) {
            held.addAndGet(-stripe.clear());
        }
    }

    /** Entries held, expired ones not purged yet included. */
    public int size() {
        return held.get();
    }

    /** (0, 0) marks an empty slot: the one hash equal to it (chance 2^-128) is stored as (0, 1). */
    private static long lowKey(long high, long low) {
        return high == 0 && low == 0 ? 1 : low;
    }

    private Stripe stripeOf(long high) {
        return stripes[(int) (high >>> (Long.SIZE - Integer.numberOfTrailingZeros(STRIPES)))];
    }

    /** Called past the bound: purges, and if that is not enough forgets the tenth that expire first. */
    private void keepWithinBound() {
        synchronized (evictionLock) {
            if (held.get() <= maxEntries) {
                return; // another thread's eviction made room
            }
            purgeExpired();
            if (held.get() > maxEntries) {
                forgetEarliestExpiring(held.get() - (int) ((long) maxEntries * 9 / 10));
            }
        }
    }

    /**
     * Forgets {@code count} entries, those that expire first, without sorting: a first pass counts the
     * entries per span of expiry time, which gives the span where the cut-off falls; a second forgets every
     * entry before that span and, in that span, as many as still needed (in no particular order: they
     * expire within the same span, 1/1024 of the ttl). Live entries expire between now and now + ttl, so
     * that range is cut into the spans; anything outside it (after the clock went back) counts as its ends.
     */
    private void forgetEarliestExpiring(int count) {
        long now = clock.millis();
        long spanMillis = Math.max(1, (ttlMillis + EXPIRY_BUCKETS) / EXPIRY_BUCKETS);
        ExpirySpans spans = new ExpirySpans(now, spanMillis);
        for (Stripe stripe : stripes) {
            stripe.countExpiries(spans);
        }
        int span = 0;
        int beforeSpan = 0;
        while (span < EXPIRY_BUCKETS - 1 && beforeSpan + spans.counts[span] < count) {
            beforeSpan += spans.counts[span];
            span++;
        }
        int cutSpan = span;
        int[] stillToForgetInCutSpan = {count - beforeSpan};
        for (Stripe stripe : stripes) {
            held.addAndGet(-stripe.removeIf(until -> {
                int spanOfEntry = spans.of(until);
                if (spanOfEntry == cutSpan && stillToForgetInCutSpan[0] > 0) {
                    stillToForgetInCutSpan[0]--;
                    return true;
                }
                return spanOfEntry < cutSpan;
            }));
        }
    }

    /** A histogram of expiry times, in {@value #EXPIRY_BUCKETS} spans from a start. */
    private static final class ExpirySpans {
        final int[] counts = new int[EXPIRY_BUCKETS];
        private final long start;
        private final long spanMillis;

        ExpirySpans(long start, long spanMillis) {
            this.start = start;
            this.spanMillis = spanMillis;
        }

        int of(long until) {
            long span = Math.floorDiv(until - start, spanMillis);
            return (int) Math.max(0, Math.min(EXPIRY_BUCKETS - 1, span));
        }
    }

    /** Decides from its expiry time whether an entry goes. */
    @FunctionalInterface
    private interface ExpiryFilter {
        boolean forget(long until);
    }

    /**
     * One open-addressing table with linear probing, in one {@code long[]}: slot {@code i} is the three longs
     * from {@code 3 * i}, the two halves of the key then the expiry time, so a lookup that finds its key
     * reads its expiry from the same cache line. A key of (0, 0) marks an empty slot. A key's home slot is
     * given by the low bits of its second half (the stripe was chosen by the top bits of the first). Deletion
     * shifts the rest of the run back, so there are no deleted markers and a lookup stops at the first empty
     * slot.
     */
    private static final class Stripe {
        static final long ABSENT = Long.MIN_VALUE;
        private static final int MIN_SLOTS = 8;
        private static final int LONGS_PER_SLOT = 3;
        private static final int HIGH = 0;
        private static final int LOW = 1;
        private static final int UNTIL = 2;

        private long[] table;
        private int count;

        Stripe() {
            table = new long[LONGS_PER_SLOT * MIN_SLOTS];
        }

        /** Adds the key or renews its expiry; true if it was not there. */
        synchronized boolean put(long high, long low, long until) {
            int slot = slotOf(high, low);
            if (slot >= 0) {
                table[at(slot) + UNTIL] = until;
                return false;
            }
            if (count + 1 > slots() / 4 * 3) {
                rehash(slots() * 2);
                slot = slotOf(high, low);
            }
            fill(-1 - slot, high, low, until);
            count++;
            return true;
        }

        /** True if the key was there. */
        synchronized boolean remove(long high, long low) {
            int slot = slotOf(high, low);
            if (slot < 0) {
                return false;
            }
            deleteAt(slot);
            count--;
            return true;
        }

        /** Expiry time of the key, or {@link #ABSENT}. */
        synchronized long expiryOf(long high, long low) {
            int slot = slotOf(high, low);
            return slot >= 0 ? table[at(slot) + UNTIL] : ABSENT;
        }

        synchronized void countExpiries(ExpirySpans spans) {
            for (int slot = 0; slot < slots(); slot++) {
                if (occupied(slot)) {
                    spans.counts[spans.of(table[at(slot) + UNTIL])]++;
                }
            }
        }

        /**
         * One sweep that deletes the entries the filter picks, then shrinks the table if it is mostly empty;
         * returns how many went. The sweep starts after an empty slot and goes once round: a deletion only
         * shifts back entries of the same run, which the sweep has not reached yet (a run never wraps past
         * that empty slot), so the filter sees each entry once.
         */
        synchronized int removeIf(ExpiryFilter filter) {
            int mask = slots() - 1;
            int start = 0;
            while (occupied(start)) {
                start++;
            }
            int removed = 0;
            int step = 1;
            while (step < slots()) {
                int slot = (start + step) & mask;
                if (occupied(slot) && filter.forget(table[at(slot) + UNTIL])) {
                    deleteAt(slot); // the next entry of the run may now be here: test the same slot again
                    removed++;
                } else {
                    step++;
                }
            }
            count -= removed;
            if (slots() > MIN_SLOTS && count < slots() / 8) {
                rehash(slotsFor(count));
            }
            return removed;
        }

        /** Empties the stripe back to its least size; returns how many entries went. */
        synchronized int clear() {
            int removed = count;
            table = new long[LONGS_PER_SLOT * MIN_SLOTS];
            count = 0;
            return removed;
        }

        private int slots() {
            return table.length / LONGS_PER_SLOT;
        }

        /** Index in the table of the slot's first long. */
        private static int at(int slot) {
            return LONGS_PER_SLOT * slot;
        }

        private boolean occupied(int slot) {
            return table[at(slot) + HIGH] != 0 || table[at(slot) + LOW] != 0;
        }

        private int homeOf(long low) {
            return (int) low & (slots() - 1);
        }

        /** The slot holding the key, or -1 - the empty slot where it would go. */
        private int slotOf(long high, long low) {
            int mask = slots() - 1;
            for (int slot = homeOf(low); ; slot = (slot + 1) & mask) {
                long slotHigh = table[at(slot) + HIGH];
                long slotLow = table[at(slot) + LOW];
                if (slotHigh == high && slotLow == low) {
                    return slot;
                }
                if (slotHigh == 0 && slotLow == 0) {
                    return -1 - slot;
                }
            }
        }

        private void fill(int slot, long high, long low, long until) {
            table[at(slot) + HIGH] = high;
            table[at(slot) + LOW] = low;
            table[at(slot) + UNTIL] = until;
        }

        /**
         * Empties a slot and closes the gap: each later entry of the run whose home is not between the gap
         * and itself moves back into the gap, which moves to where it was, until the run ends.
         */
        private void deleteAt(int slot) {
            int mask = slots() - 1;
            int gap = slot;
            for (int next = (gap + 1) & mask; occupied(next); next = (next + 1) & mask) {
                int home = homeOf(table[at(next) + LOW]);
                boolean homeAfterGap = ((next - home) & mask) < ((next - gap) & mask);
                if (!homeAfterGap) {
                    System.arraycopy(table, at(next), table, at(gap), LONGS_PER_SLOT);
                    gap = next;
                }
            }
            fill(gap, 0, 0, 0);
        }

        /** Least power of two of slots, at least {@link #MIN_SLOTS}, that holds {@code entries} half full. */
        private static int slotsFor(int entries) {
            int slots = MIN_SLOTS;
            while (slots / 2 < entries) {
                slots *= 2;
            }
            return slots;
        }

        private void rehash(int newSlots) {
            long[] old = table;
            table = new long[LONGS_PER_SLOT * newSlots];
            for (int from = 0; from < old.length; from += LONGS_PER_SLOT) {
                long high = old[from + HIGH];
                long low = old[from + LOW];
                if (high != 0 || low != 0) {
                    fill(-1 - slotOf(high, low), high, low, old[from + UNTIL]);
                }
            }
        }
    }
}
