package io.sessionrep.perf;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * The samples of one JMeter CSV results file (a segment), in start order, treated as follows:
 * the first 20 % of samples are discarded (warm-up, "to get a steady state value").
 */
final class Samples {

    static final double DISCARD = 0.20;

    /** One request: start (epoch ms), elapsed (ms, JMeter's whole milliseconds), label, success. */
    record Sample(long start, int elapsed, String label, boolean ok, String line) {
    }

    final String header;
    final List<Sample> all;

    private Samples(String header, List<Sample> all) {
        this.header = header;
        this.all = all;
    }

    static Samples read(Path jtl) throws IOException {
        List<Sample> samples = new ArrayList<>();
        String header;
        try (BufferedReader in = Files.newBufferedReader(jtl, StandardCharsets.UTF_8)) {
            header = in.readLine();
            if (header == null) {
                return new Samples("", List.of());
            }
            List<String> columns = Arrays.asList(header.split(","));
            int ts = columns.indexOf("timeStamp");
            int el = columns.indexOf("elapsed");
            int lb = columns.indexOf("label");
            int ok = columns.indexOf("success");
            for (String line; (line = in.readLine()) != null; ) {
                List<String> f = csv(line);
                if (f.size() <= Math.max(Math.max(ts, el), Math.max(lb, ok))) {
                    continue;
                }
                samples.add(new Sample(Long.parseLong(f.get(ts)), Integer.parseInt(f.get(el)), f.get(lb),
                        Boolean.parseBoolean(f.get(ok)), line));
            }
        }
        samples.sort(Comparator.comparingLong(Sample::start));
        return new Samples(header, samples);
    }

    /** Without the first {@value #DISCARD} of the samples. */
    List<Sample> steady() {
        return all.subList((int) Math.floor(all.size() * DISCARD), all.size());
    }

    /** Mean, percentiles, throughput and errors of some samples. */
    record Stats(int count, double mean, int p50, int p90, int p99, double throughput, int errors, double processMean) {

        static Stats of(Collection<Sample> samples, double seconds) {
            int n = samples.size();
            if (n == 0) {
                return new Stats(0, Double.NaN, 0, 0, 0, 0, 0, Double.NaN);
            }
            int[] times = new int[n];
            long sum = 0;
            long processSum = 0;
            int processCount = 0;
            int errors = 0;
            int i = 0;
            for (Sample s : samples) {
                times[i++] = s.elapsed();
                sum += s.elapsed();
                if (!s.ok()) {
                    errors++;
                }
                if (s.label().equals("process")) {
                    processSum += s.elapsed();
                    processCount++;
                }
            }
            Arrays.sort(times);
            return new Stats(n, (double) sum / n, percentile(times, 50), percentile(times, 90), percentile(times, 99),
                    seconds > 0 ? n / seconds : 0, errors,
                    processCount == 0 ? Double.NaN : (double) processSum / processCount);
        }

        private static int percentile(int[] sorted, double p) {
            int rank = (int) Math.ceil(p / 100.0 * sorted.length);
            return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
        }
    }

    /** Seconds covered by some samples: first start to last end. */
    static double span(List<Sample> samples) {
        if (samples.isEmpty()) {
            return 0;
        }
        long first = samples.get(0).start();
        long last = 0;
        for (Sample s : samples) {
            last = Math.max(last, s.start() + s.elapsed());
        }
        return Math.max(1, last - first) / 1000.0;
    }

    /** A CSV line's fields (JMeter quotes fields holding the delimiter or quotes). */
    static List<String> csv(String line) {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                fields.add(field.toString());
                field.setLength(0);
            } else {
                field.append(c);
            }
        }
        fields.add(field.toString());
        return fields;
    }
}
