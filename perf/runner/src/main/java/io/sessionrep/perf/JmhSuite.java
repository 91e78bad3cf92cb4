package io.sessionrep.perf;

import io.sessionrep.perf.jmh.RequestEndBenchmark;
import io.sessionrep.perf.jmh.SerializationBenchmark;
import io.sessionrep.perf.jmh.WireBytesBenchmark;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;


import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Runs the JMH benchmarks (forked JVMs, the runner's class path) and collects what the report needs.
 * The same benchmarks run standalone with {@code perf/jmh.sh} (JMH's own command line).
 */
final class JmhSuite {

    static final List<String> FORK_JVM_ARGS = List.of("-Xms512m", "-Xmx512m", "-XX:+UseSerialGC",
            "-Djava.net.preferIPv4Stack=true");

    /** One benchmark result row. */
    record Row(String benchmark, String params, String mode, double score, double error, double p50, double p99,
               String unit) {
    }

    /** Bytes per process request, from the product's metrics. */
    record Wire(String shape, long requests, double bytes, double valueBytes, long modifiedBytes) {
    }

    record Serialized(String serializer, int attributes, long bytes) {
    }

    record Results(List<Row> rows, List<Wire> wire, List<Serialized> sizes, String settings) {
    }

    private final Options options;
    private final Path dir;

    JmhSuite(Options options, Path dir) {
        this.options = options;
        this.dir = dir;
    }

    Results run() throws Exception {
        Files.createDirectories(dir);
        Files.deleteIfExists(dir.resolve("side-results.tsv"));
        boolean full = options.profile == Options.Profile.FULL;
        int warmups = full ? 3 : 1;
        int iterations = full ? 5 : 2;
        TimeValue time = full ? TimeValue.seconds(1) : TimeValue.milliseconds(500);
        String settings = "1 fork, " + warmups + " warm-up + " + iterations + " measured iterations of " + time
                + " each; fork JVM " + String.join(" ", FORK_JVM_ARGS);
        List<Row> rows = new ArrayList<>();
        for (Class<?> benchmark : List.of(RequestEndBenchmark.class, SerializationBenchmark.class, WireBytesBenchmark.class)) {
            System.out.println("-- JMH " + benchmark.getSimpleName());
            ChainedOptionsBuilder b = new OptionsBuilder()
                    .include(benchmark.getName().replace(".", "\\.") + "\\.")
                    .forks(1).warmupIterations(warmups).warmupTime(time)
                    .measurementIterations(iterations).measurementTime(time)
                    .jvmArgsAppend(FORK_JVM_ARGS.toArray(String[]::new))
                    .jvmArgsAppend("-Dperf.jmh.out=" + dir.toAbsolutePath())
                    .output(dir.resolve(benchmark.getSimpleName() + ".txt").toString());
            Collection<RunResult> results = new Runner(b.build()).run();
            for (RunResult r : results) {
                var p = r.getParams();
                StringBuilder params = new StringBuilder();
                for (String key : p.getParamsKeys()) {
                    params.append(params.length() == 0 ? "" : ", ").append(key).append('=').append(p.getParam(key));
                }
                var primary = r.getPrimaryResult();
                var stats = primary.getStatistics();
                String name = p.getBenchmark().substring(p.getBenchmark().lastIndexOf('.', p.getBenchmark().lastIndexOf('.') - 1) + 1);
                rows.add(new Row(name, params.toString(), p.getMode().shortLabel(), primary.getScore(),
                        primary.getScoreError(), stats.getPercentile(50), stats.getPercentile(99), primary.getScoreUnit()));
                System.out.printf(java.util.Locale.ROOT, "   %s %s: %.3f %s (p50 %.3f)%n", name, params,
                        primary.getScore(), primary.getScoreUnit(), stats.getPercentile(50));
            }
        }
        List<Wire> wire = new ArrayList<>();
        List<Serialized> sizes = new ArrayList<>();
        Path side = dir.resolve("side-results.tsv");
        if (Files.exists(side)) {
            for (String line : Files.readAllLines(side, StandardCharsets.UTF_8)) {
                String[] f = line.split("\t");
                if (f[0].equals("wire")) {
                    wire.add(new Wire(f[1], Long.parseLong(f[2]), Double.parseDouble(f[3]), Double.parseDouble(f[4]),
                            Long.parseLong(f[5])));
                } else if (f[0].equals("serialization")) {
                    sizes.add(new Serialized(f[1], Integer.parseInt(f[2]), Long.parseLong(f[3])));
                }
            }
        }
        // a benchmark's trial may run more than once (JMH forks per parameter set); keep the last of each
        return new Results(rows, lastPer(wire, Wire::shape), lastPer(sizes, Serialized::serializer), settings);
    }

    private static <T> List<T> lastPer(List<T> list, java.util.function.Function<T, String> key) {
        java.util.Map<String, T> last = new java.util.LinkedHashMap<>();
        for (T t : list) {
            last.put(key.apply(t), t);
        }
        return new ArrayList<>(last.values());
    }

}
