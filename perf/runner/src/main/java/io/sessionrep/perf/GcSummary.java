package io.sessionrep.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The GC pauses of a configuration's node JVMs, from their {@code -Xlog:gc,gc+cpu} files: how many, how long (wall
 * clock), and how much CPU the collector's threads used in them ({@code gc+cpu}'s User + Sys). On this 2-core machine
 * shared by every node and the load driver a pause's wall time is mostly its collector waiting for a core: the CPU
 * time says what the collections themselves cost.
 */
record GcSummary(int jvms, int pauses, int fullPauses, double totalMs, double maxMs, double cpuMs) {

    /** The wall time the JDK prints for pauses "... 409M->16M(972M) 173.340ms". */
    private static final Pattern PAUSE = Pattern.compile("Pause (Young|Full).* ([0-9.]+)ms$");
    /** gc+cpu's line after each collection: "User=0.03s Sys=0.00s Real=0.16s". */
    private static final Pattern CPU = Pattern.compile("User=([0-9.]+)s Sys=([0-9.]+)s Real=([0-9.]+)s");

    static GcSummary of(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        List<Path> logs;
        try (Stream<Path> s = Files.list(dir)) {
            logs = s.filter(p -> p.getFileName().toString().matches("gc-.*\\.log")).toList();
        }
        if (logs.isEmpty()) {
            return null;
        }
        int pauses = 0;
        int full = 0;
        double total = 0;
        double max = 0;
        double cpu = 0;
        for (Path log : logs) {
            for (String line : Files.readAllLines(log)) {
                Matcher m = PAUSE.matcher(line.trim());
                if (m.find()) {
                    double ms = Double.parseDouble(m.group(2));
                    pauses++;
                    full += m.group(1).equals("Full") ? 1 : 0;
                    total += ms;
                    max = Math.max(max, ms);
                    continue;
                }
                Matcher c = CPU.matcher(line);
                if (c.find()) {
                    cpu += 1000 * (Double.parseDouble(c.group(1)) + Double.parseDouble(c.group(2)));
                }
            }
        }
        return new GcSummary(logs.size(), pauses, full, total, max, cpu);
    }

    /** The JVM option that writes what {@link #of} reads, one file per JVM in {@code dir}. */
    static String logOption(Path dir) {
        return "-Xlog:gc,gc+cpu:file=" + dir.resolve("gc-%p.log");
    }
}
