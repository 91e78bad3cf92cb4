package io.sessionrep.core.store;

import io.sessionrep.core.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TombstonesTest {
    private static final Duration TTL = Duration.ofMinutes(10);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00.123Z"));

    @Test
    void containsWhatWasAddedUntilRemovedOrCleared() {
        Tombstones tombstones = new Tombstones(clock, TTL);
        assertFalse(tombstones.contains("a"));
        tombstones.add("a");
        tombstones.add("b");
        tombstones.add("c");
        assertTrue(tombstones.contains("a"));
        assertTrue(tombstones.contains("b"));
        assertFalse(tombstones.contains("d"));
        assertEquals(3, tombstones.size());

        tombstones.remove("b");
        tombstones.remove("never added");
        assertFalse(tombstones.contains("b"));
        assertTrue(tombstones.contains("a"));
        assertEquals(2, tombstones.size());

        tombstones.add("a");
        assertEquals(2, tombstones.size(), "a second add of an id does not count it twice");

        tombstones.clear();
        assertFalse(tombstones.contains("a"));
        assertFalse(tombstones.contains("c"));
        assertEquals(0, tombstones.size());
        tombstones.add("c");
        assertTrue(tombstones.contains("c"), "usable after clear");
    }

    @Test
    void goneExactlyAtTheTtlNotBefore() {
        Tombstones tombstones = new Tombstones(clock, TTL);
        tombstones.add("a");
        clock.advance(TTL.minusMillis(1));
        assertTrue(tombstones.contains("a"));
        clock.advance(Duration.ofMillis(1));
        assertFalse(tombstones.contains("a"));
        assertEquals(1, tombstones.size(), "expired but not purged yet still counts");
    }

    @Test
    void aSecondAddRenewsTheExpiry() {
        Tombstones tombstones = new Tombstones(clock, TTL);
        tombstones.add("a");
        clock.advance(Duration.ofMinutes(6));
        tombstones.add("a");
        clock.advance(Duration.ofMinutes(6));
        assertTrue(tombstones.contains("a"));
        clock.advance(Duration.ofMinutes(4).minusMillis(1));
        assertTrue(tombstones.contains("a"));
        clock.advance(Duration.ofMillis(1));
        assertFalse(tombstones.contains("a"));
    }

    @Test
    void purgeForgetsTheExpiredAndKeepsTheLive() {
        Tombstones tombstones = new Tombstones(clock, TTL);
        List<String> early = ids("early-", 5_000);
        List<String> late = ids("late-", 5_000);
        early.forEach(tombstones::add);
        clock.advance(Duration.ofMinutes(5));
        late.forEach(tombstones::add);
        clock.advance(Duration.ofMinutes(5));

        assertEquals(10_000, tombstones.size());
        tombstones.purgeExpired();
        assertEquals(5_000, tombstones.size());
        late.forEach(id -> assertTrue(tombstones.contains(id), id));
        early.forEach(id -> assertFalse(tombstones.contains(id), id));

        clock.advance(Duration.ofMinutes(5));
        tombstones.purgeExpired();
        assertEquals(0, tombstones.size());
        tombstones.add("after");
        assertTrue(tombstones.contains("after"), "usable after a purge emptied it");
    }

    @Test
    void growsToManyIdsWithoutFalsePositives() {
        Tombstones tombstones = new Tombstones(clock, TTL);
        List<String> added = ids("added-", 200_000);
        added.forEach(tombstones::add);
        assertEquals(200_000, tombstones.size());
        added.forEach(id -> assertTrue(tombstones.contains(id), id));
        for (String id : ids("never-", 200_000)) {
            assertFalse(tombstones.contains(id), id);
        }
    }

    @Test
    void removingFromTheMiddleOfProbeRunsKeepsTheRestFindable() {
        Tombstones tombstones = new Tombstones(clock, TTL);
        List<String> added = ids("id-", 100_000);
        added.forEach(tombstones::add);
        for (int i = 0; i < added.size(); i += 2) {
            tombstones.remove(added.get(i));
        }
        assertEquals(50_000, tombstones.size());
        for (int i = 0; i < added.size(); i++) {
            assertEquals(i % 2 == 1, tombstones.contains(added.get(i)), added.get(i));
        }
    }

    @Test
    void purgingEveryOtherIdKeepsTheRestFindable() {
        Tombstones tombstones = new Tombstones(clock, TTL);
        List<String> added = ids("id-", 100_000);
        added.forEach(tombstones::add);
        clock.advance(Duration.ofMinutes(1));
        for (int i = 1; i < added.size(); i += 2) {
            tombstones.add(added.get(i)); // renewed: these outlive the others, which the purge deletes
        }
        clock.advance(TTL.minusMinutes(1));
        tombstones.purgeExpired();
        assertEquals(50_000, tombstones.size());
        for (int i = 0; i < added.size(); i++) {
            assertEquals(i % 2 == 1, tombstones.contains(added.get(i)), added.get(i));
        }
    }

    @Test
    void pastTheBoundTheEarliestToExpireAreForgotten() {
        Tombstones tombstones = new Tombstones(clock, Duration.ofHours(1), 1_000);
        List<String> added = ids("id-", 1_500);
        for (String id : added) {
            tombstones.add(id);
            assertTrue(tombstones.size() <= 1_000, "size " + tombstones.size());
            clock.advance(Duration.ofSeconds(1));
        }
        // evictions at the 1,001st add (down to 900), the 1,102nd, 1,203rd, 1,304th and 1,405th
        assertEquals(995, tombstones.size(), "a tenth forgotten at a time");
        added.subList(700, 1_500).forEach(id -> assertTrue(tombstones.contains(id), id));
        added.subList(0, 450).forEach(id -> assertFalse(tombstones.contains(id), id));
        assertEquals(tombstones.size(), added.stream().filter(tombstones::contains).count());
    }

    @Test
    void pastTheBoundExpiredOnesGoFirst() {
        Tombstones tombstones = new Tombstones(clock, TTL, 1_000);
        List<String> expiring = ids("old-", 600);
        expiring.forEach(tombstones::add);
        clock.advance(TTL);
        List<String> live = ids("new-", 1_000);
        live.forEach(tombstones::add);
        assertEquals(1_000, tombstones.size(), "the purge made enough room: nothing live forgotten");
        live.forEach(id -> assertTrue(tombstones.contains(id), id));
    }

    @Test
    void pastTheBoundWithEqualExpiriesSomeAreForgottenNotAll() {
        Tombstones tombstones = new Tombstones(clock, TTL, 1_000);
        List<String> added = ids("id-", 1_500);
        for (int i = 0; i < added.size(); i++) {
            tombstones.add(added.get(i));
            assertEquals(i < 1_000 ? i + 1 : 900 + (i - 1_000) % 101, tombstones.size(),
                    "a tenth forgotten each time the bound is passed");
        }
        assertEquals(tombstones.size(), added.stream().filter(tombstones::contains).count(),
                "every entry counted is one of the ids added");
    }

    @Test
    void concurrentAddsRemovesAndPurgesLoseNothing() throws Exception {
        Tombstones tombstones = new Tombstones(clock, TTL);
        List<String> stale = ids("stale-", 100_000);
        stale.forEach(tombstones::add);
        clock.advance(TTL); // expired, not purged: the purger deletes them while the writers work
        int threads = 4;
        int idsPerThread = 20_000;
        List<List<String>> kept = new ArrayList<>();
        List<List<String>> removed = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        AtomicBoolean writing = new AtomicBoolean(true);
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<String> keep = new ArrayList<>();
            List<String> drop = new ArrayList<>();
            kept.add(keep);
            removed.add(drop);
            String prefix = "t" + t + "-";
            writers.add(new Thread(() -> {
                await(start);
                for (int i = 0; i < idsPerThread; i++) {
                    String id = prefix + i;
                    tombstones.add(id);
                    if (!tombstones.contains(id)) {
                        throw new AssertionError("just added, not found: " + id);
                    }
                    if (i % 3 == 0) {
                        tombstones.remove(id);
                        if (tombstones.contains(id)) {
                            throw new AssertionError("just removed, still found: " + id);
                        }
                        drop.add(id);
                    } else {
                        keep.add(id);
                    }
                }
            }));
        }
        Thread purger = new Thread(() -> {
            await(start);
            while (writing.get()) {
                tombstones.purgeExpired();
            }
        });
        Thread.UncaughtExceptionHandler record = (thread, e) -> {
            synchronized (failures) {
                failures.add(e);
            }
        };
        writers.forEach(w -> w.setUncaughtExceptionHandler(record));
        purger.setUncaughtExceptionHandler(record);

        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            writers.forEach(Thread::start);
            purger.start();
            start.countDown();
            for (Thread writer : writers) {
                writer.join();
            }
            writing.set(false);
            purger.join();
        });

        assertEquals(List.of(), failures);
        tombstones.purgeExpired();
        stale.forEach(id -> assertFalse(tombstones.contains(id), id));
        int expected = 0;
        for (int t = 0; t < threads; t++) {
            kept.get(t).forEach(id -> assertTrue(tombstones.contains(id), id));
            removed.get(t).forEach(id -> assertFalse(tombstones.contains(id), id));
            expected += kept.get(t).size();
        }
        assertEquals(expected, tombstones.size());
    }

    private static List<String> ids(String prefix, int count) {
        List<String> ids = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ids.add(prefix + i);
        }
        return ids;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
