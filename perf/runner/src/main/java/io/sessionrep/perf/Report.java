package io.sessionrep.perf;

import io.sessionrep.perf.Samples.Stats;
import io.sessionrep.perf.Scenario.Config;
import io.sessionrep.perf.Scenario.Point;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/** perf/results/RUN/report.md: method, targets (met or missed by how much), one section per scenario, JMH. */
final class Report {

    private final Options options;
    private final Path dir;
    private final Instant started;
    private final String loadAtStart;
    /** Catalog's description of the Tomcat configurations (markdown). */
    String tomcatSection = "";

    Report(Options options, Path dir, Instant started) {
        this.options = options;
        this.dir = dir;
        this.started = started;
        this.loadAtStart = loadAverage();
    }

    /** Writes (or rewrites) the report and its charts; returns report.md's path. */
    Path write(List<Measurements> results, JmhSuite.Results jmh) throws IOException {
        Files.createDirectories(dir);
        StringBuilder md = new StringBuilder();
        boolean complete = jmh != null || !options.scenarios.contains("jmh");
        line(md, "# sessionrep performance report: " + options.run);
        line(md, "");
        if (!complete) {
            line(md, "**Partial: the run is still going (or stopped early).**");
            line(md, "");
        }
        header(md, results);
        if (results.stream().anyMatch(m -> Catalog.TOMCAT_SCENARIOS.contains(m.scenario.id()))) {
            line(md, "## Tomcat configurations (scenarios 6 to 10)");
            line(md, "");
            md.append(tomcatSection);
        }
        targets(md, results, jmh);
        for (Measurements m : results) {
            scenario(md, m);
        }
        if (jmh != null) {
            jmh(md, jmh);
        }
        files(md, results);
        Path report = dir.resolve("report.md");
        Files.writeString(report, md.toString(), StandardCharsets.UTF_8);
        return report;
    }

    // ------------------------------------------------------------------ header

    private void header(StringBuilder md, List<Measurements> results) {
        Duration took = Duration.between(started, Instant.now());
        line(md, "| | |");
        line(md, "| --- | --- |");
        line(md, "| started | " + DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(started.atOffset(ZoneOffset.UTC).withNano(0)) + " UTC |");
        line(md, "| duration | " + PerfRun.clock(took.toSeconds()) + " |");
        line(md, "| command | `perf/run.sh " + String.join(" ", options.commandLine) + "` (profile " + options.profile.name().toLowerCase(Locale.ROOT) + ") |");
        line(md, "| machine | " + machine() + " |");
        line(md, "| load average (1, 5, 15 min) | at start " + loadAtStart + ", now " + loadAverage() + " |");
        line(md, "| JVM | " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " |");
        line(md, "| node JVMs | `" + String.join(" ", Catalog.NODE_JVM_ARGS) + "` (Jetty nodes, scenarios 1-5) |");
        if (!tomcatSection.isEmpty()) {
            line(md, "| Tomcat node JVMs | `" + String.join(" ", TomcatCluster.JVM_ARGS) + "` and Tomcat's `--add-opens` (every Tomcat configuration, scenarios 6-10) |");
        }
        line(md, "| load driver | Apache JMeter 5.6.3 (Maven Central), one JVM for the run: `" + String.join(" ", JMeterDriver.JVM_ARGS) + "` |");
        line(md, "| segments | " + options.segmentSeconds + " s each, " + options.rounds + " rounds per point (A/B/A/B), "
                + options.warmupSeconds + " s unmeasured warm-up per configuration (at the first load point), then, with more than"
                + " one configuration, one unmeasured round of segments at that point; first 20 % of each"
                + " segment's samples discarded |");
        line(md, "");
        line(md, "Method (docs/benchmarks.md): `perf/plans/session-study.jmx`, every thread loops"
                + " initialize, process x4, destroy against the test servlet, no think time, its own cookies (cleared"
                + " every iteration: a new session per iteration); threads spread round robin over the nodes. Every"
                + " configuration of a scenario runs at the same time (started once), and each load point is measured"
                + " configuration after configuration, round after round, so a slow phase of this shared machine hits all"
                + " of them. Mean, percentiles and throughput are over the steady samples of all rounds (all three"
                + " request kinds together); \"mean per round\" shows how much two"
                + " rounds of the same configuration differ, which is the noise floor for every ratio below. JMeter"
                + " records whole milliseconds, so percentiles of 1-2 ms requests are coarse.");
        line(md, "");
        line(md, "Seconds per load point, on a 2-core"
                + " machine shared by the load driver, every node, and other work: ratios are more trustworthy than"
                + " absolute values.");
        line(md, "");
    }

    private static String machine() {
        String cpu = "?";
        String mem = "?";
        try {
            for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (l.startsWith("model name")) {
                    cpu = l.substring(l.indexOf(':') + 1).trim();
                    break;
                }
            }
            for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (l.startsWith("MemTotal")) {
                    long kb = Long.parseLong(l.replaceAll("\\D", ""));
                    mem = String.format(Locale.ROOT, "%.0f GiB", kb / 1024.0 / 1024.0);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: leave ?
        }
        String kernel = "?";
        try {
            kernel = Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim();
        } catch (IOException e) {
            // ignore
        }
        return Runtime.getRuntime().availableProcessors() + " cores (" + cpu + "), " + mem + ", Linux " + kernel;
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + ", " + f[1] + ", " + f[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    // ------------------------------------------------------------------ targets

    /** A benchmark goal: met, missed, or (met null) not measured. */
    record Verdict(String target, String goal, String measured, Boolean met) {
        Verdict noisy(Measurements m) {
            return m != null && m.quiet != null && m.quiet.noisy() && (met != null || goal.equals(NO_GOAL))
                    ? new Verdict(target, goal, measured + " (scenario " + m.scenario.id() + " NOISY: not a clean figure)", met)
                    : this;
        }

        /** Says so when {@code config}'s or {@code reference}'s nodes were still compiling in their measured segments. */
        Verdict compiling(Measurements m, String config, String reference) {
            List<String> compiling = Stream.of(config, reference).map(m::compilingNote)
                    .filter(Objects::nonNull).toList();
            return compiling.isEmpty() ? this : new Verdict(target, goal, measured + "; still compiling in the measured"
                    + " segments: " + String.join(", ", compiling) + ", not a clean figure", met);
        }
    }

    private void targets(StringBuilder md, List<Measurements> results, JmhSuite.Results jmh) {
        List<Verdict> v = new ArrayList<>();
        Measurements s1 = find(results, "1");
        v.add(ratio(s1, "async-wq1", "off", Stats::mean, 1.25, true,
                "async write-quota 1: mean response time", "<= 1.25x replication off"));
        v.add(ratio(s1, "async-wq1", "off", Stats::throughput, 0.8, false,
                "async write-quota 1: throughput", ">= 0.8x replication off"));
        v.add(ratio(find(results, "2"), "sync", "async", Stats::mean, 1.3, true,
                "sync: mean response time", "<= 1.3x async"));
        v.add(ratio(find(results, "3"), "wq2", "wq1", Stats::mean, 1.1, true,
                "write-quota 2: mean response time", "<= 1.1x write-quota 1 (4 nodes)"));
        // the floor's own verdicts on the same goals: where the least any replicator must do here misses a goal, no
        // replicator meets it on this machine
        v.add(ratio(s1, "floor-async", "off", Stats::throughput, 0.8, false,
                "the floor's async throughput (a yardstick, not ours)", ">= 0.8x replication off (ours' goal)"));
        v.add(ratio(find(results, "2"), "floor-sync", "floor-async", Stats::mean, 1.3, true,
                "the floor's sync mean response time (a yardstick, not ours)", "<= 1.3x the floor's async (ours' goal)"));
        v.add(ratio(find(results, "3"), "floor-wq2", "floor-wq1", Stats::mean, 1.1, true,
                "the floor's mean response time to 2 nodes (a yardstick, not ours)", "<= 1.1x the floor's to 1 node (ours' goal)"));
        v.add(ratio(s1, "async-wq1", "floor-async", Stats::throughput, Double.NaN, false,
                "async write-quota 1: throughput against the floor's", NO_GOAL));
        v.add(ratio(find(results, "2"), "sync", "floor-sync", Stats::throughput, Double.NaN, false,
                "sync: throughput against the floor's sync", NO_GOAL));
        Measurements s6 = find(results, "6");
        v.add(ratio(s6, "tc-ours-async", "tc-off", Stats::throughput, 0.8, false,
                "Tomcat: async throughput", ">= 0.8x StandardManager (replication off), same container"));
        v.add(ratio(s6, "tc-ours-async", "tc-off", Stats::mean, 1.25, true,
                "Tomcat: async mean response time", "<= 1.25x StandardManager, same container"));
        v.add(ratio(s6, "tc-ours-sync", "tc-ours-async", Stats::mean, 1.3, true,
                "Tomcat: sync mean response time", "<= 1.3x async"));
        for (TomcatSetup peer : List.of(TomcatSetup.DELTA, TomcatSetup.REDIS)) {
            String name = peer.label();
            v.add(ratio(s6, "tc-ours-async", peer.id(), Stats::throughput, 1.5, false,
                    "Tomcat: async throughput vs " + name, ">= 1.5x " + name));
            if (peer != TomcatSetup.REDIS) {
                v.add(ratio(s6, "tc-ours-async", peer.id(), s -> s.p99(), 1.0, true,
                        "Tomcat: async p99 vs " + name, "lower than " + name + " (ratio < 1)"));
            }
        }
        for (TomcatSetup ours : TomcatSetup.PAIRED_WITH_BACKUP_MANAGER) { // like with like: the same replication mode
            TomcatSetup peer = ours.sameModeBackupManager();
            String mode = ours.sync() ? "sync" : "async";
            v.add(ratio(s6, ours.id(), peer.id(), Stats::throughput, 1.5, false,
                    "Tomcat: " + mode + " throughput vs " + peer.label(), ">= 1.5x " + peer.label()));
            v.add(ratio(s6, ours.id(), peer.id(), s -> s.p99(), 1.0, true,
                    "Tomcat: " + mode + " p99 vs " + peer.label(), "lower than " + peer.label() + " (ratio < 1)"));
        }
        v.add(ratio(s6, TomcatSetup.FLOOR_ASYNC.id(), "tc-off", Stats::throughput, 0.8, false,
                "Tomcat: the floor's async throughput (a yardstick, not ours)", ">= 0.8x StandardManager (ours' goal)"));
        v.add(ratio(s6, TomcatSetup.FLOOR_SYNC.id(), TomcatSetup.FLOOR_ASYNC.id(), Stats::mean, 1.3, true,
                "Tomcat: the floor's sync mean response time (a yardstick, not ours)", "<= 1.3x the floor's async (ours' goal)"));
        v.add(ratio(s6, "tc-ours-async", TomcatSetup.FLOOR_ASYNC.id(), Stats::throughput, Double.NaN, false,
                "Tomcat: async throughput against the floor's", NO_GOAL));
        v.add(ratio(s6, "tc-ours-sync", TomcatSetup.FLOOR_SYNC.id(), Stats::throughput, Double.NaN, false,
                "Tomcat: sync throughput against the floor's sync", NO_GOAL));
        if (options.baselineJar != null) {
            for (TomcatSetup setup : TomcatSetup.values()) {
                if (setup.ours() && s6 != null && s6.cells.containsKey(Catalog.baselineOf(setup))) { // those that ran
                    v.add(ratio(s6, setup.id(), Catalog.baselineOf(setup), Stats::throughput, 0.95, false,
                            "Tomcat, sticky: " + setup.id() + " throughput vs the baseline jar",
                            ">= 0.95x the baseline (within noise: compare the rounds)"));
                }
            }
        }
        for (Measurements m : results) {
            for (Verdict x : m.verdicts) {
                v.add(x.noisy(m));
            }
        }
        v.add(requestEnd(jmh));
        v.add(wire(jmh));
        line(md, "## Targets");
        line(md, "");
        line(md, "The benchmark targets (recorded here, not asserted by tests). A ratio target is met only if it"
                + " holds at every load point of its scenario; the worst point is shown.");
        line(md, "");
        line(md, "| target | goal | measured | verdict |");
        line(md, "| --- | --- | --- | --- |");
        for (Verdict x : v) {
            String verdict = x.goal.equals(NO_GOAL) ? "-" : x.met == null ? "not measured" : x.met ? "**met**" : "**missed**";
            line(md, "| " + x.target + " | " + x.goal + " | " + x.measured + " | " + verdict + " |");
        }
        line(md, "");
    }

    private static Measurements find(List<Measurements> results, String id) {
        return results.stream().filter(m -> m.scenario.id().equals(id)).findFirst().orElse(null);
    }

    /** The goal of a ratio shown for information ({@link #ratio} with a NaN limit). */
    static final String NO_GOAL = "none: where ours stands against the least any replicator does here";

    /**
     * config/reference of a metric at every point; {@code upper}: the ratio must stay at or below the
     * limit (strictly below when the limit is 1.0, "lower than"), else at or above. A NaN limit: no goal, the
     * ratios are shown (verdict "-").
     */
    private static Verdict ratio(Measurements m, String config, String reference, ToDoubleFunction<Stats> metric,
                                 double limit, boolean upper, String target, String goal) {
        if (m == null || !m.hasData()) {
            return new Verdict(target, goal, m == null ? "scenario not run" : m.failure, null);
        }
        double worst = upper ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        Point worstPoint = null;
        int missed = 0;
        int points = 0;
        StringBuilder all = new StringBuilder();
        for (Point p : m.scenario.points()) {
            if (!m.cells.containsKey(config) || !m.cells.containsKey(reference)) {
                continue;
            }
            Measurements.Cell a = m.cell(config, p);
            Measurements.Cell b = m.cell(reference, p);
            if (a.rounds.isEmpty() || b.rounds.isEmpty()) {
                continue;
            }
            double r = metric.applyAsDouble(a.combined()) / metric.applyAsDouble(b.combined());
            points++;
            boolean ok = upper ? (limit == 1.0 ? r < limit : r <= limit) : r >= limit;
            if (!ok) {
                missed++;
            }
            all.append(all.length() == 0 ? "" : ", ").append(fmt(r)).append("x");
            if (upper ? r > worst : r < worst) {
                worst = r;
                worstPoint = p;
            }
        }
        if (points == 0) {
            return new Verdict(target, goal, "no data", null);
        }
        if (Double.isNaN(limit)) {
            return new Verdict(target, goal, "all points: " + all, null).compiling(m, config, reference).noisy(m);
        }
        String measured = "worst " + fmt(worst) + "x at " + worstPoint.label() + " (all points: " + all + ")";
        if (missed > 0) {
            double by = upper ? (worst / limit - 1) * 100 : (1 - worst / limit) * 100;
            measured += "; missed at " + missed + " of " + points + " points, worst by " + fmt(by) + " %";
        }
        return new Verdict(target, goal, measured, missed == 0).compiling(m, config, reference).noisy(m);
    }

    private static Verdict requestEnd(JmhSuite.Results jmh) {
        String target = "request-end cost on the request thread, async, 10 KiB delta";
        String goal = "<= 20 us median";
        if (jmh == null) {
            return new Verdict(target, goal, "JMH not run", null);
        }
        for (JmhSuite.Row r : jmh.rows()) {
            if (r.benchmark().startsWith("RequestEndBenchmark") && r.params().contains("mode=async")
                    && r.params().contains("deltaKiB=10,")) {
                boolean met = r.p50() <= 20;
                String measured = "median " + fmt(r.p50()) + " us, p99 " + fmt(r.p99()) + " us (JMH, JGroups on loopback)"
                        + (met ? "" : "; missed by " + fmt((r.p50() / 20 - 1) * 100) + " %");
                return new Verdict(target, goal, measured, met);
            }
        }
        return new Verdict(target, goal, "no result", null);
    }

    private static Verdict wire(JmhSuite.Results jmh) {
        String target = "bytes sent per process request";
        String goal = "<= 1.2x modified attribute bytes + 200 B";
        if (jmh == null || jmh.wire().isEmpty()) {
            return new Verdict(target, goal, "JMH not run", null);
        }
        StringBuilder measured = new StringBuilder();
        boolean met = true;
        double worstOver = 0;
        for (JmhSuite.Wire w : jmh.wire()) {
            double limit = 1.2 * w.modifiedBytes() + 200;
            if (w.bytes() > limit) {
                met = false;
                worstOver = Math.max(worstOver, (w.bytes() / limit - 1) * 100);
            }
            measured.append(measured.length() == 0 ? "" : "; ").append(w.shape()).append(" KiB: ")
                    .append(String.format(Locale.ROOT, "%,.0f B for %,d B modified (%.3fx + %,.0f B)", w.bytes(),
                            w.modifiedBytes(), w.bytes() / w.modifiedBytes(), w.bytes() - w.modifiedBytes()));
        }
        if (!met) {
            measured.append("; missed by up to ").append(fmt(worstOver)).append(" %");
        }
        return new Verdict(target, goal, measured.toString(), met);
    }

    // ------------------------------------------------------------------ scenarios

    private void scenario(StringBuilder md, Measurements m) throws IOException {
        Scenario s = m.scenario;
        boolean noisy = m.quiet != null && m.quiet.noisy();
        line(md, "## Scenario " + s.id() + ": " + s.title() + (noisy ? " (NOISY)" : ""));
        line(md, "");
        line(md, "*" + s.question() + ".* " + s.notes());
        line(md, "");
        if (m.failure != null) {
            line(md, "**" + m.failure + "**");
            line(md, "");
        }
        if (m.loadBefore != null) {
            line(md, "Load average (1, 5, 15 min) before " + m.loadBefore + ", after " + (m.loadAfter == null ? "?" : m.loadAfter) + ". "
                    + (m.quiet == null ? "" : "Machine: " + m.quiet.summary() + ".")
                    + (noisy ? " The figures below were taken on a busy machine: read them as a smoke test, not as results." : ""));
            line(md, "");
        }
        if (s.custom() != null) {
            md.append(m.section);
            if (!m.problems.isEmpty()) {
                line(md, "Problems: " + String.join("; ", m.problems));
                line(md, "");
            }
            return;
        }
        if (!m.hasData()) {
            return;
        }
        line(md, "![mean response time](" + Charts.responseTime(m, dir) + ") ![throughput](" + Charts.throughput(m, dir) + ")");
        if (s.id().equals("6") || s.id().equals("5b")) { // the peers' p99 (targets) and the high-load tail
            line(md, "![p99](" + Charts.p99(m, dir) + ")");
        }
        line(md, "");
        String ref = s.configs().get(0).id();
        line(md, "| load point | configuration | samples | mean ms | p50 | p90 | p99 | req/s | errors | mean per round | mean vs " + ref
                + " | req/s vs " + ref + " |");
        line(md, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |");
        for (Point p : s.points()) {
            Stats base = m.cell(ref, p).rounds.isEmpty() ? null : m.cell(ref, p).combined();
            for (Config c : s.configs()) {
                Measurements.Cell cell = m.cell(c.id(), p);
                if (cell.rounds.isEmpty()) {
                    continue;
                }
                Stats st = cell.combined();
                StringBuilder rounds = new StringBuilder();
                for (Stats r : cell.rounds) {
                    rounds.append(rounds.length() == 0 ? "" : " / ").append(fmt(r.mean()));
                }
                String vs = base == null || c.id().equals(ref) ? "" : fmt(st.mean() / base.mean()) + "x";
                String tput = base == null || c.id().equals(ref) ? "" : fmt(st.throughput() / base.throughput()) + "x";
                line(md, String.format(Locale.ROOT, "| %s | %s | %,d | %.2f | %d | %d | %d | %,.0f | %d | %s | %s | %s |",
                        p.label(), c.label(), st.count(), st.mean(), st.p50(), st.p90(), st.p99(), st.throughput(),
                        st.errors(), rounds, vs, tput));
            }
        }
        line(md, "");
        if (s.id().equals("6")) {
            likeWithLike(md, m);
        }
        if (!m.gc.isEmpty()) {
            StringBuilder gc = new StringBuilder();
            for (Config c : s.configs()) {
                GcSummary g = m.gc.get(c.id());
                if (g != null) {
                    gc.append(gc.length() == 0 ? "" : "; ").append(c.label()).append(": ")
                            .append(String.format(Locale.ROOT, "%,d pauses (%d full) in %d JVMs, %,.0f ms in total, longest %.1f ms,"
                                    + " collector CPU %,.0f ms", g.pauses(), g.fullPauses(), g.jvms(), g.totalMs(), g.maxMs(),
                                    g.cpuMs()));
                }
            }
            line(md, "GC over the whole scenario (warm-up included): " + gc + ". A pause's time is wall clock, its collector"
                    + " waiting for a core included; the collector CPU is what its threads used (User + Sys of `-Xlog:gc+cpu`).");
            line(md, "");
        }
        if (!m.warmUps.isEmpty()) {
            StringBuilder warm = new StringBuilder();
            m.warmUps.forEach((config, done) -> warm.append(warm.length() == 0 ? "" : "; ").append(config).append(' ')
                    .append(done.summary()));
            line(md, "Unmeasured warm-up per configuration (longer while its nodes' JIT compilers used more than "
                    + Math.round(100 * WarmUp.STILL_COMPILING) + " % of their CPU, `--warmup-max`): " + warm + ".");
            line(md, "");
        }
        List<String> compiling = s.configs().stream().map(c -> m.compilingNote(c.id())).filter(Objects::nonNull).toList();
        if (!compiling.isEmpty()) {
            line(md, "**Still compiling in the measured segments (JIT's share of the nodes' CPU): " + String.join(", ", compiling)
                    + ". These configurations' figures are not results; run the scenario with a longer `--warmup-max`.**");
            line(md, "");
        }
        if (!m.workDone.isEmpty()) {
            line(md, "What the configurations say they did, read from their nodes at the end of the scenario:");
            line(md, "");
            m.workDone.forEach((config, said) -> line(md, "- `" + config + "`: " + said));
            line(md, "");
        }
        List<String[]> configs = new ArrayList<>(); // (id, label) of each configuration, for the tables below
        for (Config c : m.scenario.configs()) {
            configs.add(new String[] {c.id(), c.label()});
        }
        if (!m.threadCpu.isEmpty()) {
            line(md, "CPU time of the node processes over the measured segments, per request served, by thread role (Linux"
                    + " /proc user + system time of every thread, both nodes; GC, JIT and kernel time included, which JFR's"
                    + " execution samples miss; a thread role is recognized by the first 15 characters of its name):");
            line(md, "");
            md.append(ThreadCpu.table(configs, m.threadCpu, m.segmentRequests));
        }
        if (!m.asyncProfiles.isEmpty()) {
            line(md, "Where the nodes' CPU time goes, kernel included (async-profiler, CPU samples every 1 ms of every node of"
                    + " a configuration over its measured segments; a sample counts for each column one of whose frames it"
                    + " has, so the columns overlap; kernel frames appear only where perf events allow it):");
            line(md, "");
            md.append(AsyncProfiles.table(configs, m.asyncProfiles));
            line(md, "");
        }
        if (!m.jfr.isEmpty()) {
            jfr(md, m);
        }
        if (!m.problems.isEmpty()) {
            line(md, "Problems: " + String.join("; ", m.problems));
            line(md, "");
        }
    }

    /** Scenario 6: ours async beside BackupManager async, ours sync beside BackupManager sync, at every point. */
    private static void likeWithLike(StringBuilder md, Measurements m) {
        StringBuilder rows = new StringBuilder();
        for (Point p : m.scenario.points()) {
            for (TomcatSetup ours : TomcatSetup.PAIRED_WITH_BACKUP_MANAGER) {
                TomcatSetup peer = ours.sameModeBackupManager();
                if (!m.cells.containsKey(ours.id()) || !m.cells.containsKey(peer.id())
                        || m.cell(ours.id(), p).rounds.isEmpty() || m.cell(peer.id(), p).rounds.isEmpty()) {
                    continue;
                }
                Stats a = m.cell(ours.id(), p).combined();
                Stats b = m.cell(peer.id(), p).combined();
                rows.append(String.format(Locale.ROOT, "| %s | %s | %,.0f / %,.0f | **%sx** | %.2f / %.2f | %sx | %d / %d |%n", p.label(),
                        ours.sync() ? "sync" : "async", a.throughput(), b.throughput(), fmt(a.throughput() / b.throughput()),
                        a.mean(), b.mean(), fmt(a.mean() / b.mean()), a.p99(), b.p99()));
            }
        }
        if (rows.length() == 0) {
            return;
        }
        line(md, "Like with like: ours against Tomcat's BackupManager in the same replication mode (async: `mapSendOptions=\"8\"`;"
                + " sync: its default 6), all rounds together:");
        line(md, "");
        line(md, "| load point | mode | req/s ours / BackupManager | ours/BackupManager | mean ms ours / BackupManager"
                + " | ours/BackupManager | p99 ms ours / BackupManager |");
        line(md, "| --- | --- | ---: | ---: | ---: | ---: | ---: |");
        md.append(rows);
        line(md, "");
    }

    private void jfr(StringBuilder md, Measurements m) {
        line(md, "Where the nodes' CPU time goes (JFR execution samples of all nodes of a configuration, over its measured"
                + " segments when the runner timed them, else the whole scenario; each sample attributed to the first frame from the top of the stack"
                + " that belongs to a known component):");
        line(md, "");
        StringBuilder head = new StringBuilder("| configuration | samples |");
        StringBuilder rule = new StringBuilder("| --- | ---: |");
        for (String component : JfrSummary.COMPONENTS.keySet()) {
            head.append(' ').append(component).append(" |");
            rule.append(" ---: |");
        }
        line(md, head.toString());
        line(md, rule.toString());
        for (Config c : m.scenario.configs()) {
            JfrSummary.Summary s = m.jfr.get(c.id());
            if (s == null || s.samples() == 0) {
                continue;
            }
            StringBuilder row = new StringBuilder("| " + c.label() + " | " + String.format(Locale.ROOT, "%,d", s.samples()) + " |");
            for (String component : JfrSummary.COMPONENTS.keySet()) {
                row.append(String.format(Locale.ROOT, " %.1f %% |", 100.0 * s.byComponent().getOrDefault(component, 0L) / s.samples()));
            }
            line(md, row.toString());
        }
        line(md, "");
        for (Config c : m.scenario.configs()) {
            JfrSummary.Summary s = m.jfr.get(c.id());
            if (s == null || s.samples() == 0) {
                continue;
            }
            StringBuilder top = new StringBuilder();
            s.topMethods().forEach((method, n) -> top.append(top.length() == 0 ? "" : ", ").append('`').append(method)
                    .append("` ").append(String.format(Locale.ROOT, "%.1f %%", 100.0 * n / s.samples())));
            line(md, "- hottest methods, " + c.label() + ": " + top);
        }
        line(md, "");
        for (Config c : m.scenario.configs()) {
            JfrSummary.Summary s = m.jfr.get(c.id());
            if (s != null && s.samples() > 0) {
                md.append(JfrSummary.details(c.label() + " (`" + c.id() + "`)", s));
            }
        }
    }

    // ------------------------------------------------------------------ JMH

    private void jmh(StringBuilder md, JmhSuite.Results jmh) {
        line(md, "## JMH micro-benchmarks");
        line(md, "");
        line(md, "`perf/jmh.sh` runs the same benchmarks standalone. Settings: " + jmh.settings() + ".");
        line(md, "");
        line(md, "- `RequestEndBenchmark`: cost of `SessionReplicator.requestEnd` on the request thread after one"
                + " attribute of `deltaKiB` changed, primary and backup replicators in one JVM over **real JGroups on"
                + " 127.0.0.1** (the product's TCP stack); 256 sessions in rotation. Sample time: p50/p99 per call.");
        line(md, "- `SerializationBenchmark`: Kryo (the product's serializer) vs plain Java serialization (Tomcat's)"
                + " of a typical shop session (profile, 5-item cart, preferences, token, scalars), attribute by attribute.");
        line(md, "- `WireBytesBenchmark`: the servlet's `process` request at the core (every attribute rewritten plus"
                + " the Integer version), sync over the in-memory transport so that each request sends exactly one update;"
                + " bytes per request from the metrics `sessionrep.replication.bytes.sent` / `.value.bytes.sent`"
                + " (encoded updates handed to the transport; JGroups adds its own headers on the wire).");
        line(md, "");
        line(md, "| benchmark | parameters | mode | score | error | p50 | p99 | unit |");
        line(md, "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |");
        for (JmhSuite.Row r : jmh.rows()) {
            boolean sample = r.mode().equals("sample");
            line(md, "| " + r.benchmark() + " | " + r.params() + " | " + r.mode() + " | " + fmt(r.score()) + " | "
                    + fmt(r.error()) + " | " + (sample ? fmt(r.p50()) : "") + " | " + (sample ? fmt(r.p99()) : "")
                    + " | " + r.unit() + " |");
        }
        line(md, "");
        if (!jmh.sizes().isEmpty()) {
            line(md, "Serialized size of the typical session:");
            for (JmhSuite.Serialized s : jmh.sizes()) {
                line(md, "- " + s.serializer() + ": " + String.format(Locale.ROOT, "%,d", s.bytes()) + " bytes for "
                        + s.attributes() + " attributes");
            }
            line(md, "");
        }
        if (!jmh.wire().isEmpty()) {
            line(md, "| session (number x KiB) | requests | bytes sent / request | attribute bytes / request | modified bytes | overhead |");
            line(md, "| --- | ---: | ---: | ---: | ---: | ---: |");
            for (JmhSuite.Wire w : jmh.wire()) {
                line(md, String.format(Locale.ROOT, "| %s | %,d | %,.0f | %,.0f | %,d | %,.0f B (%.2f %%) |", w.shape(),
                        w.requests(), w.bytes(), w.valueBytes(), w.modifiedBytes(), w.bytes() - w.modifiedBytes(),
                        (w.bytes() / w.modifiedBytes() - 1) * 100));
            }
            line(md, "");
        }
    }

    private void files(StringBuilder md, List<Measurements> results) {
        line(md, "## Files");
        line(md, "");
        line(md, "In git: this report and the charts (`*.png`). Under `raw/` (git-ignored, on the machine that ran it):"
                + " each segment's JMeter results (`s<N>/jtl/*.jtl` with its `.properties`), the steady-state samples"
                + " and HTML dashboard per configuration (`s<N>/dashboards/<config>/index.html`), node logs"
                + " (`s<N>/logs/`), JMeter's log and the JMH output (`jmh/`).");
        line(md, "");
    }

    static String fmt(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            return "-";
        }
        double a = Math.abs(d);
        return String.format(Locale.ROOT, a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : "%.2f", d);
    }

    private static void line(StringBuilder md, String text) {
        md.append(text).append('\n');
    }
}
