package io.sessionrep.perf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CPU by thread role, read from this JVM's own {@code /proc} entries: a thread that ends between two snapshots keeps
 * what it used before the first out of the difference and counts what it used after it.
 */
@EnabledOnOs(OS.LINUX)
class ThreadCpuTest {

    private static final String LANE = ThreadCpu.ROLES.get(1);
    private static final List<Long> SELF = List.of(ProcessHandle.current().pid());

    @Test
    void aThreadThatEndsDuringTheSegmentTakesNothingAwayAndWhatItUsedThenIsCounted() throws Exception {
        CountDownLatch burnedBefore = new CountDownLatch(1);
        CountDownLatch snapshotTaken = new CountDownLatch(1);
        Thread lane = new Thread(() -> {
            burn(400); // before the segment: must not be taken out of it
            burnedBefore.countDown();
            try {
                snapshotTaken.await();
            } catch (InterruptedException e) {
                return;
            }
            burn(200); // in the segment, then the thread ends
        }, "sessionrep-lane-test");
        lane.start();
        burnedBefore.await();
        Map<String, Long> before = ThreadCpu.snapshot(SELF);
        snapshotTaken.countDown();
        lane.join();

        Map<String, Long> d = ThreadCpu.difference(before, ThreadCpu.snapshot(SELF));

        long ended = d.getOrDefault(ThreadCpu.ENDED, 0L);
        assertTrue(d.getOrDefault(LANE, 0L) >= 0, "no role goes below zero: " + d);
        assertTrue(ended >= 10 && ended <= 35, "about 200 ms (20 ticks) of the thread that ended: " + d);
    }

    @Test
    void aThreadStartedDuringTheSegmentCountsInItsRole() throws Exception {
        Map<String, Long> before = ThreadCpu.snapshot(SELF);
        CountDownLatch burned = new CountDownLatch(1);
        CountDownLatch read = new CountDownLatch(1);
        Thread lane = new Thread(() -> {
            burn(200);
            burned.countDown();
            try {
                read.await();
            } catch (InterruptedException ignored) {
                // ends
            }
        }, "sessionrep-lane-new");
        lane.start();
        burned.await();
        Map<String, Long> d = ThreadCpu.difference(before, ThreadCpu.snapshot(SELF));
        read.countDown();
        lane.join();

        assertTrue(d.getOrDefault(LANE, 0L) >= 10, "about 20 ticks in the lane's role: " + d);
    }

    /** Uses {@code millis} of this thread's CPU time (not wall time: the machine may be busy). */
    private static void burn(long millis) {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long end = threads.getCurrentThreadCpuTime() + millis * 1_000_000L;
        long x = 0;
        while (threads.getCurrentThreadCpuTime() < end) {
            for (int i = 0; i < 10_000; i++) {
                x += System.identityHashCode(new Object());
            }
        }
        if (x == 42) {
            System.out.print("");
        }
    }
}
