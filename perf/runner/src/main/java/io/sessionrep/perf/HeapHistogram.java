package io.sessionrep.perf;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The live objects of another JVM by class ({@code jcmd <pid> GC.class_histogram}, which runs a full GC
 * first), and what grew between two of them: scenario 7 uses it to say where a configuration's heap growth
 * goes, and whether a difference between two runs is per session or a one-off (buffers, pools).
 */
record HeapHistogram(Map<String, Entry> byClass) {

    /** Instances and bytes of one class. */
    record Entry(long instances, long bytes) {
    }

    /** One class's growth between two histograms. */
    record Growth(String className, long instances, long bytes) {
    }

    // "   1:         12345        6789012  [B (java.base@17.0.15)"
    private static final Pattern LINE = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");

    static HeapHistogram of(long pid) throws IOException, InterruptedException {
        return parse(HeapProbe.jcmd(pid, "GC.class_histogram"));
    }

    static HeapHistogram parse(String text) {
        Map<String, Entry> byClass = new HashMap<>();
        for (String line : text.split("\n")) {
            Matcher m = LINE.matcher(line);
            if (m.find()) {
                // a class loaded by two class loaders appears twice under one name: add them up
                byClass.merge(m.group(3), new Entry(Long.parseLong(m.group(1)), Long.parseLong(m.group(2))),
                        (a, b) -> new Entry(a.instances() + b.instances(), a.bytes() + b.bytes()));
            }
        }
        if (byClass.isEmpty()) {
            throw new IllegalStateException("no class line in jcmd GC.class_histogram:\n" + text);
        }
        return new HeapHistogram(Map.copyOf(byClass));
    }

    /** Classes by growth in bytes from {@code before} to this one, largest first (shrinking ones last). */
    List<Growth> growthSince(HeapHistogram before) {
        List<Growth> growth = new ArrayList<>();
        for (Map.Entry<String, Entry> e : byClass.entrySet()) {
            Entry old = before.byClass.getOrDefault(e.getKey(), new Entry(0, 0));
            growth.add(new Growth(e.getKey(), e.getValue().instances() - old.instances(), e.getValue().bytes() - old.bytes()));
        }
        for (Map.Entry<String, Entry> e : before.byClass.entrySet()) {
            if (!byClass.containsKey(e.getKey())) {
                growth.add(new Growth(e.getKey(), -e.getValue().instances(), -e.getValue().bytes()));
            }
        }
        growth.sort(Comparator.comparingLong(Growth::bytes).reversed());
        return growth;
    }

    /** The total, then the {@code top} largest growths, one line each: bytes, objects, bytes per session, class. */
    static String describe(List<Growth> growth, int top, int sessions) {
        StringBuilder out = new StringBuilder();
        long total = 0;
        for (Growth g : growth) {
            total += g.bytes();
        }
        out.append(String.format(Locale.ROOT, "total %+,d B (%+,.0f B per session)%n", total, (double) total / sessions));
        for (Growth g : growth.subList(0, Math.min(top, growth.size()))) {
            out.append(String.format(Locale.ROOT, "%+,14d B %+,10d objects  %,8.0f B/session  %s%n", g.bytes(), g.instances(),
                    (double) g.bytes() / sessions, g.className()));
        }
        return out.toString();
    }
}
