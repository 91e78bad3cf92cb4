package io.sessionrep.transport.jgroups;

import io.sessionrep.core.ClusterAnswer;
import io.sessionrep.core.LiveSessions;
import io.sessionrep.core.SessionAdmin;
import io.sessionrep.core.SessionPrincipals;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.SessionReplicatorContract;
import io.sessionrep.core.SessionRow;
import io.sessionrep.core.testing.TestSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operator's operations on 10,000 sessions per node, two nodes over real JGroups channels: how long each takes
 * from one node (printed; each must answer within a second), and what the principal costs in memory per session (the
 * heap after a full GC, before and after every session got a principal: its live session, the primary's digest of
 * the attribute and the backup's copy of it together; printed). Longer than the default build's tests: extended.
 */
@Tag("extended")
class SessionAdminScaleTest extends SessionReplicatorContract {
    private static final int PER_NODE = 10_000;
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    SessionAdminScaleTest() {
        super(new GrowingStaticCluster("scale"));
    }

    @Test
    void tenThousandSessionsPerNodeAnswerWithinASecondAndThePrincipalCostIsMeasured() throws Exception {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        String[] names = new String[PER_NODE]; // the principals' own names exist anyway (the container holds them)
        for (int i = 0; i < PER_NODE; i++) {
            names[i] = String.format("user%04d", i % 5000);
        }
        List<TestSession> sessions = new ArrayList<>();
        for (SessionReplicator owner : List.of(a, b)) {
            for (int i = 0; i < PER_NODE; i++) {
                TestSession s = newSession(owner.nodeName() + "-session-" + i).set("cart", "item-" + i);
                owner.requestEnd(s, s.tracker);
                sessions.add(s);
            }
        }
        settle(a, b);
        long before = usedHeapAfterGc();
        java.util.Map<String, long[]> histogramBefore = histogram();
        for (int i = 0; i < sessions.size(); i++) {
            TestSession s = sessions.get(i);
            SessionReplicator owner = i < PER_NODE ? a : b;
            s.set(SessionPrincipals.ATTRIBUTE, names[i % PER_NODE]);
            owner.requestEnd(s, s.tracker);
        }
        settle(a, b);
        long after = usedHeapAfterGc();
        java.util.Map<String, long[]> histogramAfter = histogram();
        histogramAfter.forEach((type, countBytes) -> {
            long[] was = histogramBefore.getOrDefault(type, new long[2]);
            long grew = countBytes[1] - was[1];
            if (Math.abs(grew) > 100_000) {
                System.out.printf("heap histogram: %-50s %+8d instances %+10d bytes (%+.1f bytes per session)%n", type,
                        countBytes[0] - was[0], grew, grew / (double) sessions.size());
            }
        });
        System.out.printf("principal memory: %.0f bytes per session (live session + primary digest + one backup copy;"
                + " %d sessions, heap %d -> %d)%n", (after - before) / (double) sessions.size(), sessions.size(),
                before, after);

        SessionAdmin admin = a.admin(LiveSessions.NONE);
        ClusterAnswer<Integer> count = timed("count", admin::count);
        assertEquals(2 * PER_NODE, count.result());
        ClusterAnswer<List<SessionRow>> page = timed("list 100", () -> admin.list(0, 100));
        assertEquals(100, page.result().size());
        ClusterAnswer<List<SessionRow>> page1000 = timed("list 1000", () -> admin.list(0, 1000));
        assertEquals(1000, page1000.result().size());
        ClusterAnswer<List<SessionRow>> found = timed("sessions of a principal", () -> admin.sessionsOf("user0042", 100));
        assertEquals(4, found.result().size(), "user0042 has two sessions on each node");
        ClusterAnswer<Integer> ended = timed("invalidate a principal's sessions", () -> admin.invalidateSessionsOf("user0042"));
        assertEquals(4, ended.result());
        ClusterAnswer<Integer> byShortId = timed("invalidate by short id",
                () -> admin.invalidate(io.sessionrep.core.LogIds.shortForm("b-session-7")));
        assertEquals(1, byShortId.result());
        settle(a, b);
        assertEquals(2 * PER_NODE - 5, admin.count().result());
    }

    private static <T> T timed(String what, Supplier<T> operation) {
        long[] millis = new long[5];
        T result = null;
        for (int i = 0; i < millis.length; i++) {
            long started = System.nanoTime();
            result = operation.get();
            millis[i] = (System.nanoTime() - started) / 1_000_000;
            if (what.startsWith("invalidate")) {
                break; // once: the second would find nothing
            }
        }
        long[] ran = what.startsWith("invalidate") ? Arrays.copyOf(millis, 1) : millis;
        System.out.println("admin " + what + ": " + Arrays.toString(ran) + " ms (first, then again)");
        for (long ms : ran) {
            assertTrue(ms < 1000, what + " took " + ms + " ms");
        }
        return result;
    }

    /** The live heap by class (instances, bytes), from {@code jcmd <this pid> GC.class_histogram}; empty without jcmd. */
    private static java.util.Map<String, long[]> histogram() throws Exception {
        java.util.Map<String, long[]> byClass = new java.util.HashMap<>();
        java.nio.file.Path jcmd = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!java.nio.file.Files.isExecutable(jcmd)) {
            return byClass;
        }
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(ProcessHandle.current().pid()), "GC.class_histogram")
                .redirectErrorStream(true).start();
        for (String line : new String(p.getInputStream().readAllBytes()).split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[0].endsWith(":")) {
                byClass.put(f[3], new long[]{Long.parseLong(f[1]), Long.parseLong(f[2])});
            }
        }
        p.waitFor();
        return byClass;
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
            used = Math.min(used, MEMORY.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
