package io.sessionrep.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Was the machine quiet while a scenario ran? Two snapshots (before, after) of the 1-minute load average,
 * the machine's CPU time ({@code /proc/stat}) and the CPU time of the runner's own process tree (this JVM,
 * the node and JMeter JVMs it started, children it already reaped): what the machine spent beyond the
 * runner's own work is someone else's. A scenario is <b>noisy</b> if
 * <ul>
 *   <li>the 1-minute load average was above {@value #MAX_START_LOAD} when it started, or</li>
 *   <li>other processes used more than {@value #MAX_FOREIGN_CORES} cores on average, or</li>
 *   <li>the hypervisor stole more than {@value #MAX_STEAL_CORES} cores on average, or</li>
 *   <li>the load average rose by more than {@value #MAX_UNEXPLAINED_RISE} beyond the cores the runner's
 *       own processes used on average, while other processes used more than {@value #MIN_FOREIGN_FOR_RISE}
 *       cores (the rise of a saturated machine alone is the runner's own queueing).</li>
 * </ul>
 * Linux only; elsewhere nothing is measured and no verdict is given.
 */
final class Quietness {

    static final double MAX_START_LOAD = 1.0;
    static final double MAX_FOREIGN_CORES = 0.5;
    static final double MAX_STEAL_CORES = 0.2;
    static final double MAX_UNEXPLAINED_RISE = 0.5;
    static final double MIN_FOREIGN_FOR_RISE = 0.2;
    /** USER_HZ: the unit of /proc CPU times on every Linux this runs on. */
    private static final double TICKS = 100.0;

    record Snapshot(long nanos, double load1, long busyTicks, long stealTicks, long ownTicks) {
    }

    /**
     * @param foreignCores CPU used by other processes, average cores
     * @param ownCores     CPU used by the runner's process tree, average cores
     */
    record Verdict(double loadBefore, double loadAfter, double ownCores, double foreignCores, double stealCores,
                   double seconds, List<String> reasons) {
        boolean noisy() {
            return !reasons.isEmpty();
        }

        String summary() {
            return String.format(Locale.ROOT, "1-min load %.2f before, %.2f after; over %.0f s the runner's processes used %.2f cores,"
                            + " other processes %.2f, steal %.2f: %s", loadBefore, loadAfter, seconds, ownCores, foreignCores,
                    stealCores, noisy() ? "**NOISY** (" + String.join("; ", reasons) + ")" : "quiet");
        }
    }

    private Quietness() {
    }

    static Optional<Snapshot> snapshot() {
        try {
            String[] load = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            String cpu = Files.readAllLines(Path.of("/proc/stat")).get(0);
            String[] f = cpu.trim().split("\\s+");
            // cpu user nice system idle iowait irq softirq steal ...
            long busy = Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6])
                    + Long.parseLong(f[7]);
            long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
            long own = ticks(ProcessHandle.current().pid());
            for (ProcessHandle h : ProcessHandle.current().descendants().toList()) {
                own += ticks(h.pid());
            }
            return Optional.of(new Snapshot(System.nanoTime(), Double.parseDouble(load[0]), busy, steal, own));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** utime + stime + cutime + cstime of a process (0 if it is gone). */
    private static long ticks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split("\\s+");
            // after the command: state(0) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(11) stime cutime cstime
            return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    static Verdict verdict(Snapshot before, Snapshot after) {
        double seconds = Math.max(0.001, (after.nanos() - before.nanos()) / 1e9);
        double own = Math.max(0, (after.ownTicks() - before.ownTicks()) / TICKS / seconds);
        double busy = (after.busyTicks() - before.busyTicks()) / TICKS / seconds;
        double foreign = Math.max(0, busy - own);
        double steal = (after.stealTicks() - before.stealTicks()) / TICKS / seconds;
        List<String> reasons = new ArrayList<>();
        if (before.load1() > MAX_START_LOAD) {
            reasons.add(String.format(Locale.ROOT, "load %.2f > %.1f at the start", before.load1(), MAX_START_LOAD));
        }
        if (foreign > MAX_FOREIGN_CORES) {
            reasons.add(String.format(Locale.ROOT, "other processes used %.2f cores > %.1f", foreign, MAX_FOREIGN_CORES));
        }
        if (steal > MAX_STEAL_CORES) {
            reasons.add(String.format(Locale.ROOT, "steal %.2f cores > %.1f", steal, MAX_STEAL_CORES));
        }
        double unexplained = after.load1() - before.load1() - own;
        if (unexplained > MAX_UNEXPLAINED_RISE && foreign > MIN_FOREIGN_FOR_RISE) {
            reasons.add(String.format(Locale.ROOT, "load rose %.2f beyond the runner's own %.2f cores", unexplained, own));
        }
        return new Verdict(before.load1(), after.load1(), own, foreign, steal, seconds, List.copyOf(reasons));
    }

    /** Waits (at most {@code maxSeconds}) for the 1-minute load average to fall to {@value #MAX_START_LOAD} or below. */
    static double settle(int maxSeconds, java.io.PrintStream echo) throws InterruptedException {
        long deadline = System.nanoTime() + maxSeconds * 1_000_000_000L;
        double load = snapshot().map(Snapshot::load1).orElse(0.0);
        if (load > MAX_START_LOAD && maxSeconds > 0) {
            echo.printf(Locale.ROOT, "-- load %.2f: waiting up to %d s for it to fall to %.1f%n", load, maxSeconds, MAX_START_LOAD);
        }
        while (load > MAX_START_LOAD && System.nanoTime() < deadline) {
            Thread.sleep(2_000);
            load = snapshot().map(Snapshot::load1).orElse(0.0);
        }
        return load;
    }
}
