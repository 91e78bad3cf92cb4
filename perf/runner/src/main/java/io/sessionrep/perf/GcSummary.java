package io.sessionrep.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The GC pauses of a configuration's node JVMs, from their {@code -Xlog:gc} files. */
record GcSummary(int jvms, int pauses, int fullPauses, double totalMs, double maxMs) {

    private static final Pattern PAUSE = Pattern.compile("Pause (Young|Full).* ([0-9.]+)ms$");

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
        for (Path log : logs) {
            for (String line : Files.readAllLines(log)) {
                Matcher m = PAUSE.matcher(line.trim());
                if (m.find()) {
                    double ms = Double.parseDouble(m.group(2));
                    pauses++;
                    full += m.group(1).equals("Full") ? 1 : 0;
                    total += ms;
                    max = Math.max(max, ms);
                }
            }
        }
        return new GcSummary(logs.size(), pauses, full, total, max);
    }
}
