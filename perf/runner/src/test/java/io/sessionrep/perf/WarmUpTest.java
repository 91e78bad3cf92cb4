package io.sessionrep.perf;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The warm-up goes on while the node JVMs compile, and no longer than --warmup-max. */
class WarmUpTest {

    /** CPU ticks that grow, per part of the warm-up, by the given JIT share of 100 ticks. */
    private static final class Nodes {
        final Iterator<Integer> jitPercentPerPart;
        final Map<String, Long> ticks = new LinkedHashMap<>();
        final List<Integer> parts = new ArrayList<>();

        Nodes(Integer... jitPercent) {
            jitPercentPerPart = List.of(jitPercent).iterator();
        }

        Map<String, Long> snapshot() {
            return new LinkedHashMap<>(ticks);
        }

        void load(int part, int seconds) {
            parts.add(seconds);
            int jit = jitPercentPerPart.next();
            String compiler = ThreadCpu.threadKey(1, "2", 0, ThreadCpu.JIT);
            String http = ThreadCpu.threadKey(1, "3", 0, ThreadCpu.ROLES.get(0));
            ticks.merge(compiler, (long) jit, Long::sum);
            ticks.merge(http, 100L - jit, Long::sum);
            ticks.merge(ThreadCpu.KERNEL + http, 40L, Long::sum); // not counted twice
        }
    }

    @Test
    void itWarmsOnWhileTheNodesAreCompilingAndStopsOnceTheyAreNot() throws Exception {
        Nodes nodes = new Nodes(40, 12, 6, 3, 1);
        WarmUp.Done done = WarmUp.run(60, 20, 180, nodes::snapshot, nodes::load);
        assertEquals(List.of(60, 20, 20, 20), nodes.parts, "60 s, then 20 s parts until JIT fell to 5 % or less");
        assertEquals(120, done.seconds());
        assertEquals(0.03, done.jitShare(), 1e-9);
        assertFalse(done.stillCompiling());
        assertEquals("120 s (JIT 3 % of its nodes' CPU in the last part)", done.summary());
    }

    @Test
    void itStopsAtTheLongestWarmUpAndSaysTheNodesWereStillCompiling() throws Exception {
        Nodes nodes = new Nodes(40, 30, 20, 10, 9, 8);
        WarmUp.Done done = WarmUp.run(60, 20, 110, nodes::snapshot, nodes::load);
        assertEquals(List.of(60, 20, 20), nodes.parts, "a fourth part would end after 120 s, beyond 110");
        assertTrue(done.stillCompiling());
        assertTrue(done.summary().endsWith("still compiling when the longest warm-up ended)"), done.summary());
    }

    @Test
    void withoutCpuFiguresOrWithoutRoomForMoreItIsOnePart() throws Exception {
        List<Integer> parts = new ArrayList<>();
        WarmUp.Done blind = WarmUp.run(8, 6, 180, Map::of, (part, seconds) -> parts.add(seconds));
        assertEquals(List.of(8), parts, "no /proc: no way to tell, the fixed warm-up only");
        assertEquals("8 s", blind.summary());

        Nodes nodes = new Nodes(50);
        assertTrue(WarmUp.run(1, 2, 1, nodes::snapshot, nodes::load).stillCompiling());
        assertEquals(List.of(1), nodes.parts, "--warmup-max equal to --warmup: no extension (the smoke profile)");
    }

    @Test
    void aTargetSaysWhichOfItsConfigurationsWereStillCompilingWhileMeasured() {
        Scenario scenario = new Scenario("3", "t", "q", List.of(new Scenario.Config("wq1", "wq1", dir -> null),
                new Scenario.Config("wq2", "wq2", dir -> null)), List.of(new Scenario.Point(5, 1, 1)), "x", "", null);
        Measurements m = new Measurements(scenario);
        m.threadCpu.put("wq1", Map.of(ThreadCpu.JIT, 10L, ThreadCpu.ROLES.get(0), 90L));
        m.threadCpu.put("wq2", Map.of(ThreadCpu.JIT, 2L, ThreadCpu.ROLES.get(0), 98L));
        assertTrue(m.stillCompiling("wq1"));
        assertFalse(m.stillCompiling("wq2"));
        assertFalse(m.stillCompiling("not-measured"));

        Report.Verdict v = new Report.Verdict("t", "g", "worst 1.2x", false).compiling(m, "wq2", "wq1");
        assertEquals("worst 1.2x; still compiling in the measured segments: wq1 (JIT 10 %), not a clean figure", v.measured());
        Report.Verdict clean = new Report.Verdict("t", "g", "worst 1.2x", false);
        assertEquals(clean, clean.compiling(m, "wq2", "wq2"));
    }

    @Test
    void theLongestWarmUpDefaultsPerProfileAndIsNeverShorterThanTheWarmUp() {
        assertEquals(180, Options.parse().warmupMaxSeconds);
        assertEquals(300, Options.parse("--warmup=300").warmupMaxSeconds);
        assertEquals(1, Options.parse("--smoke").warmupMaxSeconds);
        assertEquals(90, Options.parse("--warmup=60", "--warmup-max=90").warmupMaxSeconds);
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Options.parse("--warmup=60", "--warmup-max=30"));
        assertEquals("--warmup-max: 30 is not allowed; expected at least --warmup (60)", e.getMessage());
    }
}
