package io.sessionrep.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GcSummaryTest {

    @TempDir
    Path dir;

    @Test
    void sumsPausesWallTimeAndTheCollectorsCpuOverEveryJvmsLog() throws Exception {
        Files.writeString(dir.resolve("gc-101.log"), """
                [0.012s][info][gc] Using Serial
                [23.444s][info][gc] GC(0) Pause Young (Allocation Failure) 409M->16M(972M) 173.340ms
                [23.444s][info][gc,cpu] GC(0) User=0.03s Sys=0.01s Real=0.17s
                [34.571s][info][gc] GC(1) Pause Full (System.gc()) 425M->16M(972M) 95.159ms
                [34.571s][info][gc,cpu] GC(1) User=0.06s Sys=0.00s Real=0.10s
                """);
        Files.writeString(dir.resolve("gc-102.log"), """
                [41.985s][info][gc] GC(0) Pause Young (Allocation Failure) 425M->16M(972M) 88.112ms
                [41.985s][info][gc,cpu] GC(0) User=0.02s Sys=0.00s Real=0.09s
                """);
        Files.writeString(dir.resolve("node-a.log"), "Pause Young 1000.0ms\n"); // not a GC log

        GcSummary gc = GcSummary.of(dir);

        assertEquals(2, gc.jvms());
        assertEquals(3, gc.pauses());
        assertEquals(1, gc.fullPauses());
        assertEquals(173.340 + 95.159 + 88.112, gc.totalMs(), 1e-6);
        assertEquals(173.340, gc.maxMs(), 1e-6);
        assertEquals(30 + 10 + 60 + 20, gc.cpuMs(), 1e-6);
    }

    @Test
    void aLogWithoutCpuLinesCountsNoCollectorCpu() throws Exception {
        Files.writeString(dir.resolve("gc-7.log"), "[1.0s][info][gc] GC(0) Pause Young (G1 Evacuation Pause) 20M->5M(512M) 3.500ms\n");

        GcSummary gc = GcSummary.of(dir);

        assertEquals(1, gc.pauses());
        assertEquals(0, gc.cpuMs(), 1e-9);
    }

    @Test
    void noFolderOrNoLogGivesNothing() throws Exception {
        assertNull(GcSummary.of(dir.resolve("absent")));
        assertNull(GcSummary.of(dir));
    }

    @Test
    void theOptionWritesOneFilePerJvmThatOfReads() {
        assertEquals("-Xlog:gc,gc+cpu:file=" + dir.resolve("gc-%p.log"), GcSummary.logOption(dir));
    }
}
