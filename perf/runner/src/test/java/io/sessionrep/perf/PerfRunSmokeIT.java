package io.sessionrep.perf;

import io.sessionrep.perf.Samples.Stats;
import io.sessionrep.perf.Scenario.Point;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The runner end to end with tiny durations (in {@code mvn -Pfull verify}): scenarios 1 and 2 (ours, replication
 * off and the floor), one load point, A/B/A/B of 2 s segments, real node JVMs and the JMeter worker; report, charts
 * and dashboards under target/, and no process left behind.
 */
@Tag("extended")
class PerfRunSmokeIT {

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void smokeRunOfTwoScenariosWritesAReportAndCleansUp() throws Exception {
        Path out = Path.of("target/smoke-run").toAbsolutePath();
        PerfRun run = new PerfRun(Options.parse("--smoke", "--scenarios=1,2", "--out=" + out), Layout.find());

        Path report = run.run();

        List<Measurements> results = run.results();
        assertEquals(2, results.size());
        for (Measurements m : results) {
            assertNull(m.failure, "scenario " + m.scenario.id());
            assertTrue(m.problems.isEmpty(), m.problems.toString());
            for (Scenario.Config c : m.scenario.configs()) {
                for (Point p : m.scenario.points()) {
                    Measurements.Cell cell = m.cell(c.id(), p);
                    assertEquals(2, cell.rounds.size(), "A/B/A/B: two rounds of " + c.id());
                    Stats s = cell.combined();
                    assertTrue(s.count() > 20, c.id() + " measured only " + s.count() + " samples");
                    assertEquals(0, s.errors(), c.id() + " had failed requests");
                }
            }
        }
        for (Measurements m : results) {
            // the floor did its work: each of its nodes received what the other sent, and no send failed
            String said = m.workDone.get("floor-async");
            assertTrue(said != null && said.contains("node-b") && !said.matches("(?s).*\"sendFailures\":[1-9].*")
                            && !said.contains("\"valueBytesReceived\":0,"),
                    "scenario " + m.scenario.id() + ": the floor's counters " + said);
        }
        String md = Files.readString(report);
        assertTrue(md.contains("| the floor's async throughput (a yardstick, not ours) |"), md);
        assertTrue(md.contains("## Scenario 1: The cost of replication"), md);
        assertTrue(md.contains("## Scenario 2: Asynchronous and synchronous replication"), md);
        assertTrue(md.contains("| async write-quota 1: mean response time |"), md);
        assertTrue(md.contains("Unmeasured warm-up per configuration") && md.contains("; async-wq1 1 s"), md); // WarmUp's record
        for (String png : List.of("s1-response-time.png", "s1-throughput.png", "s2-response-time.png")) {
            assertTrue(Files.size(out.resolve(png)) > 1000, png);
        }
        assertTrue(Files.exists(out.resolve("raw/s1/dashboards/off/index.html")), "JMeter dashboard");
        assertTrue(Files.exists(out.resolve("raw/s2/dashboards/sync/index.html")), "JMeter dashboard");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (ProcessHandle.current().descendants().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(List.of(), ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).toList(), "processes left behind");
    }
}
