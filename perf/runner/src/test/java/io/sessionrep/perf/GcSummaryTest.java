package io.sessionrep.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
    void whatTheOptionMakesAJvmWriteIsWhatOfReads() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process jvm = new ProcessBuilder(java, "-Xmx256m", "-Xmn16m", "-XX:+UseSerialGC", GcSummary.logOption(dir),
                "-cp", System.getProperty("java.class.path"), KeepsAndCollects.class.getName())
                .inheritIO().start();
        assertTrue(jvm.waitFor(60, TimeUnit.SECONDS), "the JVM ended");
        assertEquals(0, jvm.exitValue());

        GcSummary gc = GcSummary.of(dir);

        assertEquals(1, gc.jvms());
        assertTrue(gc.pauses() > 1, gc.toString());
        assertTrue(gc.fullPauses() >= 1, gc.toString());
        assertTrue(gc.cpuMs() > 0, "the JDK's gc+cpu lines were read: " + gc);
    }

    /** A JVM that keeps 96 MB through young collections (each copies what it keeps), then asks for a full one. */
    public static final class KeepsAndCollects {
        public static void main(String[] args) {
            List<byte[]> kept = new ArrayList<>();
            for (int i = 0; i < 96 * 16; i++) {
                kept.add(new byte[64 * 1024]);
            }
            System.gc();
            System.out.println("kept " + kept.size());
        }
    }
}
