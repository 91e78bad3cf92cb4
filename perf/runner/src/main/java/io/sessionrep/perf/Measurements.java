package io.sessionrep.perf;

import io.sessionrep.perf.Samples.Sample;
import io.sessionrep.perf.Samples.Stats;
import io.sessionrep.perf.Scenario.Point;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What one scenario measured: per configuration and point, every round's steady-state statistics. */
final class Measurements {

    /** One configuration at one point: the rounds, and all their steady samples together. */
    static final class Cell {
        final List<Stats> rounds = new ArrayList<>();
        private final List<Sample> steady = new ArrayList<>();
        private double seconds;

        void add(List<Sample> samples, double span) {
            rounds.add(Stats.of(samples, span));
            for (Sample s : samples) {
                steady.add(new Sample(s.start(), s.elapsed(), s.label().equals("process") ? "process" : "", s.ok(), null));
            }
            seconds += span;
        }

        /** All rounds together: mean and percentiles over every steady sample, throughput = samples / time. */
        Stats combined() {
            return Stats.of(steady, seconds);
        }
    }

    final Scenario scenario;
    final Map<String, Map<Point, Cell>> cells = new LinkedHashMap<>();
    final List<String> problems = new ArrayList<>();
    /** Per configuration, with --async-profiler: where the nodes' CPU time went, kernel included. */
    final Map<String, AsyncProfiles.Summary> asyncProfiles = new LinkedHashMap<>();
    /** Per configuration, with --jfr: where the nodes' CPU time went. */
    final Map<String, JfrSummary.Summary> jfr = new LinkedHashMap<>();
    /** Per configuration: the wall-clock windows of its measured JMeter runs and the requests each served (--jfr). */
    final Map<String, List<JfrSummary.Window>> windows = new LinkedHashMap<>();
    /** Per configuration: CPU ticks of its node processes over its measured segments, by thread role ({@link ThreadCpu}). */
    final Map<String, Map<String, Long>> threadCpu = new LinkedHashMap<>();
    /** Per configuration: requests served in its measured segments (all samples, warm-up of a segment included). */
    final Map<String, Long> segmentRequests = new LinkedHashMap<>();
    /** Per configuration: how long its warm-up ran and whether its nodes were still compiling at its end. */
    final Map<String, WarmUp.Done> warmUps = new LinkedHashMap<>();
    /** Per configuration: GC pauses of its node JVMs over the whole scenario. */
    final Map<String, GcSummary> gc = new LinkedHashMap<>();
    /** Per configuration that has something to say ({@link Target#workDone}): what its nodes did, read at the end. */
    final Map<String, String> workDone = new LinkedHashMap<>();
    String failure;
    String loadBefore;
    String loadAfter;
    /** How quiet the machine was during the scenario (null: not measured). */
    Quietness.Verdict quiet;
    /** A custom scenario's figures, markdown. */
    final StringBuilder section = new StringBuilder();
    /** A custom scenario's benchmark goals. */
    final List<Report.Verdict> verdicts = new ArrayList<>();

    Measurements(Scenario scenario) {
        this.scenario = scenario;
        for (Scenario.Config c : scenario.configs()) {
            Map<Point, Cell> byPoint = new LinkedHashMap<>();
            for (Point p : scenario.points()) {
                byPoint.put(p, new Cell());
            }
            cells.put(c.id(), byPoint);
        }
    }

    Cell cell(String config, Point point) {
        return cells.get(config).get(point);
    }

    /** JIT's share of {@code config}'s node CPU over its measured segments; NaN when not measured. */
    double jitShareMeasured(String config) {
        Map<String, Long> ticks = threadCpu.get(config);
        return ticks == null ? Double.NaN : ThreadCpu.share(ticks, ThreadCpu.JIT);
    }

    /** Whether {@code config}'s nodes were still compiling in its measured segments: its figures are not results. */
    boolean stillCompiling(String config) {
        return WarmUp.stillCompiling(jitShareMeasured(config));
    }

    /** "{@code config} (JIT n %)" when {@code config} was still compiling in its measured segments, else null. */
    String compilingNote(String config) {
        return stillCompiling(config)
                ? String.format(Locale.ROOT, "%s (JIT %.0f %%)", config, 100 * jitShareMeasured(config)) : null;
    }

    boolean hasData() {
        return cells.values().stream().flatMap(m -> m.values().stream()).anyMatch(c -> !c.rounds.isEmpty());
    }
}
