package io.sessionrep.perf;

import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A configuration's unmeasured warm-up, long enough for its node JVMs to have compiled what the load runs: first
 * {@code --warmup} seconds, then one part of {@code --segment} seconds after another while the JIT compiler threads
 * used more than {@link #STILL_COMPILING} of the nodes' CPU in the part before, up to {@code --warmup-max} seconds.
 * A fixed warm-up was not enough where four or more node JVMs share two cores: in one run JIT was 10 % of a
 * configuration's CPU in its measured segments and its throughput doubled between rounds
 * (20261127-quota-alone-check).
 */
final class WarmUp {

    /** Above this share of the node JVMs' CPU going to their JIT compilers, a configuration is still warming up. */
    static final double STILL_COMPILING = 0.05;

    /** One unmeasured JMeter run of the configuration; {@code part} 0 is the first. */
    interface Load {
        void run(int part, int seconds) throws IOException;
    }

    /**
     * How a warm-up ended.
     *
     * @param seconds  load seconds it ran
     * @param jitShare JIT's share of the node JVMs' CPU in its last part (NaN: CPU not measurable here)
     */
    record Done(int seconds, double jitShare) {
        boolean stillCompiling() {
            return WarmUp.stillCompiling(jitShare);
        }

        String summary() {
            return seconds + " s" + (Double.isNaN(jitShare) ? ""
                    : String.format(Locale.ROOT, " (JIT %.0f %% of its nodes' CPU in the last part%s)", 100 * jitShare,
                    stillCompiling() ? ", still compiling when the longest warm-up ended" : ""));
        }
    }

    private WarmUp() {
    }

    /** Whether JIT's share {@code jitShare} of the nodes' CPU says they were still compiling (NaN: cannot tell, no). */
    static boolean stillCompiling(double jitShare) {
        return jitShare > STILL_COMPILING;
    }

    /**
     * Runs {@code load} for {@code first} seconds, then for {@code step} seconds at a time while the part before was
     * still compiling and another part fits in {@code max}; {@code cpu} gives the node JVMs' CPU ticks by thread role
     * ({@link ThreadCpu#snapshot}), empty where it cannot be read (then one part only).
     */
    static Done run(int first, int step, int max, Supplier<Map<String, Long>> cpu, Load load) throws IOException {
        int done = 0;
        int seconds = first;
        for (int part = 0; ; part++) {
            Map<String, Long> before = cpu.get();
            load.run(part, seconds);
            double jit = ThreadCpu.share(ThreadCpu.difference(before, cpu.get()), ThreadCpu.JIT);
            done += seconds;
            seconds = step;
            if (Double.isNaN(jit) || jit <= STILL_COMPILING || done + step > max) {
                return new Done(done, jit);
            }
        }
    }
}
