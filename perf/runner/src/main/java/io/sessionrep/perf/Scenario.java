package io.sessionrep.perf;

import java.nio.file.Path;
import java.util.List;

/**
 * One side-by-side comparison: configurations measured at the same load points, A/B/A/B
 * (every point: each configuration once per round, rounds interleaved, so a slow phase of the machine
 * hits every configuration alike).
 *
 * @param id       1, 2, 3, 4, 5a, 5b, 6
 * @param xAxis    what varies between points: {@code state} (KiB of session state) or {@code threads}
 * @param skip     why the scenario cannot run here, or null
 */
record Scenario(String id, String title, String question, List<Config> configs, List<Point> points, String xAxis,
                String notes, String skip, Custom custom) {

    /** A scenario measured with the JMeter plan, A/B/A/B at its points. */
    Scenario(String id, String title, String question, List<Config> configs, List<Point> points, String xAxis,
             String notes, String skip) {
        this(id, title, question, configs, points, xAxis, notes, skip, null);
    }

    /**
     * A scenario that measures with its own client instead of the JMeter plan (round robin, concurrent
     * clients, memory, fail-over): it starts its configurations itself, writes its figures into
     * {@link Measurements#section} and its verdicts into {@link Measurements#verdicts}.
     */
    @FunctionalInterface
    interface Custom {
        void run(Measurements m, Path dir, java.util.function.Consumer<Target> running) throws Exception;
    }

    /** A load point: the plan's threads and the session shape (number x size KiB). */
    record Point(int threads, int number, int sizeKiB) {
        int stateKiB() {
            return number * sizeKiB;
        }

        String label() {
            return number + "x" + sizeKiB + " KiB, " + threads + " threads";
        }

        double x(String axis) {
            return axis.equals("threads") ? threads : stateKiB();
        }
    }

    /** One configuration: how to start it. */
    record Config(String id, String label, Starter starter) {
    }

    @FunctionalInterface
    interface Starter {
        Target start(java.nio.file.Path logDir) throws Exception;
    }

    Scenario withSkip(String reason) {
        return new Scenario(id, title, question, configs, points, xAxis, notes, reason, custom);
    }
}
