package io.sessionrep.core.serial;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

/**
 * A lock-free pool of reusable objects: a fixed number of slots, and each thread looks first at the slot its
 * id picks, then at a few next ones. {@link #obtain} takes an object from a slot or makes a new one;
 * {@link #free} puts it into an empty slot or drops it, so the pool never holds more than its slots.
 *
 * <p>Why not Kryo's own thread-safe {@code Pool}: it is a {@code LinkedBlockingQueue}, whose locks the
 * request threads contended on every value they serialized; in a Tomcat profile
 * (run profile-20261125b, in git history) 2.7 % of all CPU samples were the {@code unpark}s of those locks, and
 * each one also woke a parked thread. Here a thread usually finds the object it freed itself in its own slot,
 * with two atomic operations and no lock. Slots are spread a cache line apart so that threads on different
 * slots do not contend on one line.
 */
final class StripedPool<T> {
    /** References per 64-byte cache line, with compressed or uncompressed pointers alike (at most 8 bytes each). */
    private static final int SPREAD = 16;
    private static final int PROBES = 4;

    private final AtomicReferenceArray<T> slots;
    private final int mask;
    private final Supplier<T> factory;

    /** @param size how many objects it keeps at most (rounded up to a power of two) */
    StripedPool(int size, Supplier<T> factory) {
        int n = Integer.highestOneBit(Math.max(1, size - 1)) << 1;
        this.mask = n - 1;
        this.slots = new AtomicReferenceArray<>(n * SPREAD);
        this.factory = factory;
    }

    T obtain() {
        int home = home();
        for (int i = 0; i < PROBES; i++) {
            int slot = ((home + i) & mask) * SPREAD;
            T pooled = slots.get(slot);
            if (pooled != null && slots.compareAndSet(slot, pooled, null)) {
                return pooled;
            }
        }
        return factory.get();
    }

    void free(T object) {
        int home = home();
        for (int i = 0; i < PROBES; i++) {
            int slot = ((home + i) & mask) * SPREAD;
            if (slots.get(slot) == null && slots.compareAndSet(slot, null, object)) {
                return;
            }
        }
    }

    /** How many objects the pool holds now (tests). */
    int held() {
        int held = 0;
        for (int slot = 0; slot < slots.length(); slot += SPREAD) {
            held += slots.get(slot) == null ? 0 : 1;
        }
        return held;
    }

    private int home() {
        return (int) ((Thread.currentThread().getId() * 0x9E3779B97F4A7C15L) >>> 40);
    }
}
