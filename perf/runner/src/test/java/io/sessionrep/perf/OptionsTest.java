package io.sessionrep.perf;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class OptionsTest {

    @Test
    void scenarioFiveMeansBothSweepsAndProfilesSetTheDurations() {
        Options o = Options.parse("--quick", "--scenarios=1,5,jmh");
        assertEquals(List.of("1", "5a", "5b", "jmh"), List.copyOf(o.scenarios));
        assertEquals(3, o.segmentSeconds);
        assertEquals(Options.Profile.QUICK, o.profile);
        assertEquals(6, Options.parse().segmentSeconds);
        assertEquals(8, Options.parse("--segment=8").segmentSeconds);
    }

    @Test
    void profilingFlags() {
        try {
            Options o = Options.parse("--configs=tc-off, tc-ours-async", "--jfr=profile");
            assertEquals(List.of("tc-off", "tc-ours-async"), List.copyOf(o.configs));
            assertEquals(true, o.jfr);
            assertEquals("profile", JfrSummary.settings);
            assertEquals(List.of(), List.copyOf(Options.parse("--jfr").configs));
        } finally {
            JfrSummary.settings = "default";
        }
        assertEquals("HTTP (Tomcat NIO / Jetty qtp)", ThreadCpu.role("http-nio-127.0."));
        assertEquals("HTTP (Tomcat NIO / Jetty qtp)", ThreadCpu.role("qtp12345-17"));
        assertEquals("sessionrep sender and lane threads", ThreadCpu.role("sessionrep-send"));
        assertEquals("sessionrep sender and lane threads", ThreadCpu.role("sessionrep-lane")); // a data lane connection's thread (15 characters)
        assertEquals("GC", ThreadCpu.role("GC Thread#0"));
        assertEquals("JGroups", ThreadCpu.role("pd-bundler-7,se")); // JGroups 5.5 per-destination bundler, "other" before
    }

    @Test
    void badValuesNameTheFlag() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Options.parse("--scenarios=11"));
        assertEquals("--scenarios: '11' is not allowed; expected 1,2,3,4,5,5a,5b,6,7,8,9,10,jmh", e.getMessage());
        IllegalArgumentException nodes = assertThrows(IllegalArgumentException.class, () -> Options.parse("--rr-nodes=4"));
        assertEquals("--rr-nodes: 4 is not allowed; expected 2 or 3", nodes.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Options.parse("--bogus"));
        IllegalArgumentException point = assertThrows(IllegalArgumentException.class, () -> Options.parse("--points=10x0"));
        assertEquals("--points: '10x0' is not allowed; expected NxS (N attributes of S KiB, both 1 or more), e.g. 10x50",
                point.getMessage());
    }

    @Test
    void pointsReplaceTheProfilesStatePoints() {
        Catalog catalog = new Catalog(Options.parse("--points=10x50, 2x5"), null);
        assertEquals(List.of(new Scenario.Point(5, 10, 50), new Scenario.Point(5, 2, 5)), catalog.statePoints());
        assertEquals(5, new Catalog(Options.parse(), null).statePoints().size());
    }
}
