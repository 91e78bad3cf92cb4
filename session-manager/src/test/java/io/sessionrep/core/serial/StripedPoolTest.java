package io.sessionrep.core.serial;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StripedPoolTest {

    @Test
    void aThreadGetsBackWhatItFreed() {
        AtomicInteger made = new AtomicInteger();
        StripedPool<Object> pool = new StripedPool<>(32, () -> new Object[] {made.incrementAndGet()});
        Object first = pool.obtain();
        pool.free(first);
        for (int i = 0; i < 1000; i++) {
            Object again = pool.obtain();
            assertSame(first, again);
            pool.free(again);
        }
        assertEquals(1, made.get(), "one object made for one thread");
    }

    @Test
    void itNeverHoldsMoreThanItsSlots() {
        StripedPool<Object> pool = new StripedPool<>(4, Object::new);
        List<Object> taken = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            taken.add(pool.obtain()); // the pool is empty: all new
        }
        taken.forEach(pool::free);
        assertTrue(pool.held() <= 4, "held " + pool.held());
        assertTrue(pool.held() >= 1);
    }

    @Test
    @Timeout(60)
    void anObjectIsNeverInTwoThreadsAtOnce() throws Exception {
        StripedPool<AtomicReference<Thread>> pool = new StripedPool<>(8, AtomicReference::new);
        int threads = 8;
        CountDownLatch start = new CountDownLatch(1);
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.Set<Object> seen = ConcurrentHashMap.newKeySet();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < 200_000; i++) {
                        AtomicReference<Thread> owner = pool.obtain();
                        seen.add(owner);
                        if (!owner.compareAndSet(null, Thread.currentThread())) {
                            throw new AssertionError("handed out while " + owner.get() + " holds it");
                        }
                        Thread.onSpinWait();
                        owner.set(null);
                        pool.free(owner);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            worker.start();
            workers.add(worker);
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        assertEquals(List.of(), failures);
        assertTrue(pool.held() <= 8);
        assertNull(pool.obtain().get());
        assertTrue(seen.size() < 1000, "objects are reused, not made per call: " + seen.size());
    }
}
