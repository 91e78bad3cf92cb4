package io.sessionrep.perf;

import io.sessionrep.perf.Samples.Sample;
import io.sessionrep.perf.Samples.Stats;
import io.sessionrep.perf.Scenario.Config;
import io.sessionrep.perf.Scenario.Point;
import io.sessionrep.testservlet.NodeCommand;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The scenario runner: for each selected scenario it starts every configuration's nodes, warms each up,
 * then measures every load point A/B/A/B with the JMeter plan, discards the first 20 % of each
 * segment's samples, and finally writes {@code perf/results/<run>/report.md}, PNG charts and (under
 * {@code raw/}, not in git) the JMeter dashboards, results files and node logs. Progress goes to stdout.
 */
public final class PerfRun {

    private final Options options;
    private final Layout layout;
    private final Path out;
    private final Path raw;
    /** With --async-profiler, from the first profiled segment on (see {@link #asyncProfilerLibrary()}). */
    private Path asyncProfilerLibrary;
    private final Instant started = Instant.now();
    private int segmentsDone;
    private int segmentsPlanned;
    private final List<Measurements> results = new ArrayList<>();
    /** Targets running now: a shutdown hook stops them (and removes scenario 4's namespaces) on Ctrl-C. */
    private final List<Target> running = new java.util.concurrent.CopyOnWriteArrayList<>();

    PerfRun(Options options, Layout layout) {
        this.options = options;
        this.layout = layout;
        this.out = options.out != null ? java.nio.file.Path.of(options.out) : layout.results().resolve(options.run);
        this.raw = out.resolve("raw");
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().equals("help")) {
                System.err.println(e.getMessage());
            }
            System.err.print(Options.usage());
            System.exit(e.getMessage().equals("help") ? 0 : 2);
            return;
        }
        PerfRun run = new PerfRun(options, Layout.find());
        if (options.chartsOnly) {
            System.out.println("charts redrawn in " + run.redrawCharts());
            System.exit(0);
        }
        Path report = run.run();
        System.out.println("report: " + report);
        System.exit(0);
    }

    /** Runs everything selected; returns the report's path. */
    Path run() throws Exception {
        Thread hook = new Thread(() -> running.forEach(Target::close), "perf-run-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return runAll();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down: the hook runs
            }
        }
    }

    /**
     * Redraws the charts of an earlier run from its raw results files (same samples, same statistics);
     * the report is left as it is.
     */
    Path redrawCharts() throws IOException {
        Catalog catalog = new Catalog(options, layout);
        for (Scenario scenario : catalog.all()) {
            Path jtlDir = raw.resolve("s" + scenario.id()).resolve("jtl");
            if (!options.scenarios.contains(scenario.id()) || !Files.isDirectory(jtlDir)) {
                continue;
            }
            Measurements m = new Measurements(scenario);
            for (Point point : scenario.points()) {
                for (int round = 1; round <= options.rounds; round++) {
                    for (Config config : scenario.configs()) {
                        Path jtl = jtlDir.resolve(segmentName(config, point, round) + ".jtl");
                        if (Files.exists(jtl)) {
                            List<Sample> steady = Samples.read(jtl).steady();
                            m.cell(config.id(), point).add(steady, Samples.span(steady));
                        }
                    }
                }
            }
            if (m.hasData()) {
                System.out.println("charts of scenario " + scenario.id() + ": " + Charts.responseTime(m, out) + ", "
                        + Charts.throughput(m, out) + ", " + Charts.p99(m, out));
            }
        }
        return out;
    }

    private static String segmentName(Config config, Point point, int round) {
        return config.id() + "-" + point.number() + "x" + point.sizeKiB() + "-t" + point.threads() + "-r" + round;
    }

    private Path runAll() throws Exception {
        clean();
        Files.createDirectories(raw);
        System.setProperty(NodeCommand.CLASSPATH_PROPERTY, layout.nodeJar().toString());
        Catalog catalog = new Catalog(options, layout);
        List<Scenario> scenarios = catalog.all().stream().filter(s -> options.scenarios.contains(s.id())).toList();
        for (Scenario s : scenarios) {
            if (s.skip() == null) {
                segmentsPlanned += s.points().size() * s.configs().size() * options.rounds;
            }
        }
        Report report = new Report(options, out, started);
        if (scenarios.stream().anyMatch(s -> Catalog.TOMCAT_SCENARIOS.contains(s.id()))) {
            report.tomcatSection = catalog.tomcatSection();
        }
        System.out.printf(Locale.ROOT, "perf run %s: scenarios %s, %d segments of %d s (+%d s warm-up per configuration), load %s%n",
                options.run, options.scenarios, segmentsPlanned, options.segmentSeconds, options.warmupSeconds, Report.loadAverage());
        try (JMeterDriver jmeter = JMeterDriver.start(layout, raw)) {
            for (Scenario scenario : scenarios) {
                Measurements m = scenario.skip() != null ? skipped(scenario)
                        : scenario.custom() != null ? custom(scenario) : measure(scenario, jmeter);
                results.add(m);
                report.write(results, null); // partial report after every scenario
            }
            if (options.dashboards) {
                dashboards(results, jmeter);
            }
        }
        JmhSuite.Results jmh = null;
        if (options.scenarios.contains("jmh")) {
            System.out.println("== JMH benchmarks (request-end cost, serialization, bytes per request)");
            jmh = new JmhSuite(options, raw.resolve("jmh")).run();
        }
        return report.write(results, jmh);
    }

    /** A results folder used before: its raw/, report and charts go (a run appends to its raw files). */
    private void clean() throws IOException {
        if (!Files.isDirectory(out)) {
            return;
        }
        if (Files.isDirectory(raw)) {
            try (var files = Files.walk(raw)) {
                for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        try (var files = Files.list(out)) {
            for (Path p : files.toList()) {
                String name = p.getFileName().toString();
                if (name.equals("report.md") || name.endsWith(".png")) {
                    Files.delete(p);
                }
            }
        }
    }

    /** What the scenarios measured (after {@link #run}). */
    List<Measurements> results() {
        return List.copyOf(results);
    }

    private Measurements skipped(Scenario scenario) {
        System.out.println("== scenario " + scenario.id() + " SKIPPED: " + scenario.skip());
        Measurements m = new Measurements(scenario);
        m.failure = "skipped: " + scenario.skip();
        return m;
    }

    /** Waits for a quiet machine (--settle), then the first snapshot of the scenario's quietness. */
    private java.util.Optional<Quietness.Snapshot> begin(Measurements m) {
        try {
            Quietness.settle(options.settleSeconds, System.out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        m.loadBefore = Report.loadAverage();
        return Quietness.snapshot();
    }

    private void end(Measurements m, java.util.Optional<Quietness.Snapshot> before) {
        m.loadAfter = Report.loadAverage();
        java.util.Optional<Quietness.Snapshot> after = Quietness.snapshot();
        if (before.isPresent() && after.isPresent()) {
            m.quiet = Quietness.verdict(before.get(), after.get());
            System.out.println("-- scenario " + m.scenario.id() + ": " + m.quiet.summary().replace("**", ""));
        }
    }

    /** A scenario with its own client (7 to 10): it starts and stops its configurations itself. */
    private Measurements custom(Scenario scenario) {
        Measurements m = new Measurements(scenario);
        var before = begin(m);
        System.out.println("== scenario " + scenario.id() + ": " + scenario.title() + " (" + scenario.question() + "), load "
                + m.loadBefore);
        List<Target> started = new ArrayList<>();
        try {
            scenario.custom().run(m, raw.resolve("s" + scenario.id()), t -> {
                started.add(t);
                running.add(t);
            });
        } catch (Exception e) {
            m.failure = "failed: " + e.getMessage();
            System.out.println("!! scenario " + scenario.id() + " " + m.failure);
            e.printStackTrace(System.out);
        } finally {
            for (Target t : started) {
                t.close();
                running.remove(t);
            }
        }
        end(m, before);
        return m;
    }

    private Measurements measure(Scenario scenario, JMeterDriver jmeter) throws IOException {
        Measurements m = new Measurements(scenario);
        var before = begin(m);
        System.out.println("== scenario " + scenario.id() + ": " + scenario.title() + " (" + scenario.question() + "), load "
                + m.loadBefore);
        Path dir = raw.resolve("s" + scenario.id());
        Map<String, Target> targets = new LinkedHashMap<>();
        try {
            for (Config config : scenario.configs()) {
                System.out.println("-- starting " + config.id() + ": " + config.label());
                Target target = config.starter().start(dir.resolve("logs").resolve(config.id()));
                targets.put(config.id(), target);
                running.add(target);
            }
            // at the point measured first: every later point follows rounds that ran the same code. Warmed at the
            // middle point instead, the first point's first round still ran on partly compiled code (scenario 3,
            // eight node JVMs: JIT 13 % of the CPU in it, 20261126-quota-encode-once)
            Point warm = scenario.points().get(0);
            for (Config config : scenario.configs()) {
                if (options.warmupSeconds > 0) {
                    Target target = targets.get(config.id());
                    WarmUp.Done done = WarmUp.run(options.warmupSeconds, options.segmentSeconds, options.warmupMaxSeconds,
                            () -> ThreadCpu.snapshot(target.pids()), (part, seconds) -> unmeasured("warm-up",
                                    config.id() + (part == 0 ? "" : "-" + part) + ".jtl", dir, warm, target, seconds, jmeter));
                    m.warmUps.put(config.id(), done);
                    System.out.println("-- warmed up " + config.id() + ": " + done.summary());
                }
            }
            // then one unmeasured round at that point, so that each configuration comes to its first measured
            // segment as it comes to every later one: after one segment of each other configuration. Straight after
            // the warm-ups, the configuration warmed first had stood idle while all the others warmed up (four
            // minutes in scenario 6), and its first round ran slow (ours at 1x1 KiB: 9,223 req/s, then 12,821 in
            // round 2, 20261126-final-build)
            if (options.warmupSeconds > 0 && scenario.configs().size() > 1) {
                for (Config config : scenario.configs()) {
                    unmeasured("unmeasured round", config.id() + "-round-0.jtl", dir, warm, targets.get(config.id()),
                            options.segmentSeconds, jmeter);
                }
            }
            for (Point point : scenario.points()) {
                for (int round = 1; round <= options.rounds; round++) {
                    for (Config config : scenario.configs()) {
                        segment(m, dir, config, point, round, targets.get(config.id()), jmeter);
                    }
                }
            }
        } catch (Exception e) {
            m.failure = "failed: " + e.getMessage();
            System.out.println("!! scenario " + scenario.id() + " " + m.failure);
            e.printStackTrace(System.out);
        } finally {
            targets.forEach((id, t) -> {
                String said = t.workDone();
                if (said != null) {
                    m.workDone.put(id, said);
                }
                t.close();
                running.remove(t);
            });
        }
        for (Config config : scenario.configs()) {
            try {
                GcSummary gc = GcSummary.of(dir.resolve("logs").resolve(config.id()));
                if (gc != null) {
                    m.gc.put(config.id(), gc);
                }
            } catch (IOException | RuntimeException e) {
                m.problems.add("GC summary of " + config.id() + ": " + e);
            }
        }
        if (options.asyncProfiler) {
            for (Config config : scenario.configs()) {
                try {
                    AsyncProfiles.Summary summary = AsyncProfiles.summarize(
                            dir.resolve("logs").resolve(config.id()).resolve("async-profiler"));
                    if (summary != null) {
                        m.asyncProfiles.put(config.id(), summary);
                    }
                } catch (IOException | RuntimeException e) {
                    m.problems.add("async-profiler summary of " + config.id() + ": " + e);
                }
            }
        }
        if (options.jfr) {
            for (Config config : scenario.configs()) {
                try {
                    JfrSummary.Summary summary = JfrSummary.of(dir.resolve("logs").resolve(config.id()).resolve("jfr"),
                            m.windows.getOrDefault(config.id(), List.of()));
                    if (summary != null) {
                        m.jfr.put(config.id(), summary);
                    }
                } catch (IOException | RuntimeException e) {
                    m.problems.add("JFR summary of " + config.id() + ": " + e);
                }
            }
        }
        end(m, before);
        return m;
    }

    /**
     * async-profiler's native library, copied under the run's raw results at the first profiled segment;
     * fails where the jar carries none for this machine.
     */
    private Path asyncProfilerLibrary() throws IOException {
        if (asyncProfilerLibrary == null) {
            asyncProfilerLibrary = AsyncProfiles.library(raw.resolve("async-profiler"));
            if (asyncProfilerLibrary == null) {
                throw new IOException("--async-profiler: no async-profiler library for " + System.getProperty("os.name")
                        + " " + System.getProperty("os.arch") + " on the class path (Linux x64 and arm64 only)");
            }
        }
        return asyncProfilerLibrary;
    }

    /** One JMeter run at {@code point} whose results only go to {@code warmup/<file>}. */
    private void unmeasured(String what, String file, Path dir, Point point, Target target, int seconds,
                            JMeterDriver jmeter) throws IOException {
        System.out.println("-- " + what + " " + file.replace(".jtl", "") + " (" + seconds + " s, " + point.label() + ")");
        Path jtl = dir.resolve("warmup").resolve(file);
        Files.createDirectories(jtl.getParent());
        jmeter.run(properties(point, target, seconds), jtl);
    }

    private void segment(Measurements m, Path dir, Config config, Point point, int round, Target target,
                         JMeterDriver jmeter) throws IOException {
        String name = segmentName(config, point, round);
        Path jtl = dir.resolve("jtl").resolve(name + ".jtl");
        Files.createDirectories(jtl.getParent());
        Path profiler = options.asyncProfiler ? asyncProfilerLibrary() : null;
        if (profiler != null) {
            AsyncProfiles.start(profiler, target.pids());
        }
        Map<String, Long> cpuBefore = ThreadCpu.snapshot(target.pids());
        Instant from = Instant.now();
        jmeter.run(properties(point, target, options.segmentSeconds), jtl);
        Instant to = Instant.now();
        Map<String, Long> cpu = ThreadCpu.difference(cpuBefore, ThreadCpu.snapshot(target.pids()));
        if (profiler != null) {
            AsyncProfiles.stop(profiler, target.pids(), dir.resolve("logs").resolve(config.id()).resolve("async-profiler"), name);
        }
        Samples samples = Samples.read(jtl);
        if (!cpu.isEmpty()) {
            cpu.forEach((role, ticks) -> m.threadCpu.computeIfAbsent(config.id(), k -> new LinkedHashMap<>()).merge(role, ticks, Long::sum));
            m.segmentRequests.merge(config.id(), (long) samples.all.size(), Long::sum);
        }
        m.windows.computeIfAbsent(config.id(), k -> new ArrayList<>()).add(new JfrSummary.Window(from, to, samples.all.size()));
        List<Sample> steady = samples.steady();
        double span = Samples.span(steady);
        m.cell(config.id(), point).add(steady, span);
        Stats s = Stats.of(steady, span);
        if (s.errors() > 0) {
            m.problems.add(name + ": " + s.errors() + " failed requests of " + s.count());
        }
        steadyForDashboard(samples, steady, dir.resolve("dashboards").resolve(config.id() + ".jtl"));
        segmentsDone++;
        Duration elapsed = Duration.between(started, Instant.now());
        long left = segmentsDone == 0 ? 0 : elapsed.toSeconds() * (segmentsPlanned - segmentsDone) / segmentsDone;
        System.out.printf(Locale.ROOT, "[S%s %d/%d %s, ~%s left] %-13s %-24s round %d: %6d samples, mean %7.2f ms,"
                        + " p99 %4d ms, %7.0f req/s, %d errors%n",
                m.scenario.id(), segmentsDone, segmentsPlanned, clock(elapsed.toSeconds()), clock(left), config.id(),
                point.label(), round, s.count(), s.mean(), s.p99(), s.throughput(), s.errors());
    }

    /** The JMeter properties of one segment: the plan's knobs, threads spread over the target's nodes. */
    private static Map<String, String> properties(Point point, Target target, int seconds) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("threads", Integer.toString(point.threads()));
        p.put("rampup", "1");
        p.put("duration", Integer.toString(seconds));
        p.put("number", Integer.toString(point.number()));
        p.put("size", Integer.toString(point.sizeKiB()));
        p.put("hosts", String.join(",", target.hosts()));
        p.put("path", target.path());
        return p;
    }

    /** Appends the steady part of a segment's results file to the configuration's dashboard input. */
    private static void steadyForDashboard(Samples samples, List<Sample> steady, Path dashboardJtl) throws IOException {
        if (steady.isEmpty()) {
            return;
        }
        Files.createDirectories(dashboardJtl.getParent());
        long cutoff = steady.get(0).start();
        boolean fresh = !Files.exists(dashboardJtl);
        try (BufferedWriter w = Files.newBufferedWriter(dashboardJtl, StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND)) {
            if (fresh) {
                w.write(samples.header);
                w.newLine();
            }
            for (Sample s : samples.all) {
                if (s.start() >= cutoff && s.line() != null) {
                    w.write(s.line());
                    w.newLine();
                }
            }
        }
    }

    private void dashboards(List<Measurements> results, JMeterDriver jmeter) {
        for (Measurements m : results) {
            Path dir = raw.resolve("s" + m.scenario.id()).resolve("dashboards");
            for (Config config : m.scenario.configs()) {
                Path jtl = dir.resolve(config.id() + ".jtl");
                if (Files.exists(jtl)) {
                    System.out.println("-- JMeter dashboard: scenario " + m.scenario.id() + " " + config.id());
                    try {
                        jmeter.dashboard(jtl, dir.resolve(config.id()));
                    } catch (IOException e) {
                        m.problems.add("dashboard " + config.id() + ": " + e.getMessage());
                    }
                }
            }
        }
    }

    static String clock(long seconds) {
        return String.format(Locale.ROOT, "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60);
    }
}
