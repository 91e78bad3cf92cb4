package io.sessionrep.perf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
    void thePageScenarioHasItsOwnIdAndBrowsers() {
        Options o = Options.parse("--scenarios=8,8P", "--browsers=3");
        assertEquals(List.of("8", "8p"), List.copyOf(o.scenarios));
        assertEquals(3, o.browsers);
        assertEquals(5, Options.parse().browsers);
        assertThrows(IllegalArgumentException.class, () -> Options.parse("--browsers=0"));
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
        assertEquals("--scenarios: '11' is not allowed; expected 1,2,3,4,5,5a,5b,6,7,8,8p,9,10,jmh", e.getMessage());
        IllegalArgumentException nodes = assertThrows(IllegalArgumentException.class, () -> Options.parse("--rr-nodes=4"));
        assertEquals("--rr-nodes: 4 is not allowed; expected 2 or 3", nodes.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Options.parse("--bogus"));
        IllegalArgumentException point = assertThrows(IllegalArgumentException.class, () -> Options.parse("--points=10x0"));
        assertEquals("--points: '10x0' is not allowed; expected NxS (N attributes of S KiB, both 1 or more), e.g. 10x50",
                point.getMessage());
    }

    @Test
    void aBaselineJarRepeatsEachOfOursTomcatConfigurationsRightAfterIt(@TempDir Path dir) throws Exception {
        Path jar = Files.createFile(dir.resolve("sessionrep-tomcat.jar"));
        Catalog catalog = new Catalog(Options.parse("--scenarios=6", "--configs=tc-off,tc-ours-async,tc-ours-async-key",
                "--baseline-jar=" + jar), null);
        List<String> ids = catalog.all().stream().filter(s -> s.id().equals("6")).findFirst().orElseThrow()
                .configs().stream().map(Scenario.Config::id).toList();
        assertEquals(List.of("tc-off", "tc-ours-async", "tc-ours-async-baseline", "tc-ours-async-key",
                "tc-ours-async-key-baseline"), ids, "StandardManager has no baseline; each of ours is followed by its own");
    }

    @Test
    void aBaselineNodeJarRepeatsOursJettyConfigurationsRightAfterThem(@TempDir Path dir) throws Exception {
        Path jar = Files.createFile(dir.resolve("sessionrep-node.jar"));
        Catalog catalog = new Catalog(Options.parse("--scenarios=1,3", "--configs=wq1,floor-wq1,off",
                "--baseline-node-jar=" + jar), null);
        Map<String, List<String>> ids = new LinkedHashMap<>();
        catalog.all().stream().filter(s -> List.of("1", "3").contains(s.id()))
                .forEach(s -> ids.put(s.id(), s.configs().stream().map(Scenario.Config::id).toList()));
        assertEquals(List.of("off"), ids.get("1"), "replication off has no baseline; async-wq1 was not asked for");
        assertEquals(List.of("wq1", "wq1-baseline", "floor-wq1"), ids.get("3"));

        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> Options.parse("--baseline-node-jar=" + dir.resolve("none.jar")));
        assertEquals("--baseline-node-jar: '" + dir.resolve("none.jar") + "' is not a file; expected a sessionrep-node.jar",
                missing.getMessage());
    }

    @Test
    void pointsReplaceTheProfilesStatePoints() {
        Catalog catalog = new Catalog(Options.parse("--points=10x50, 2x5"), null);
        assertEquals(List.of(new Scenario.Point(5, 10, 50), new Scenario.Point(5, 2, 5)), catalog.statePoints());
        assertEquals(5, new Catalog(Options.parse(), null).statePoints().size());
    }
}
