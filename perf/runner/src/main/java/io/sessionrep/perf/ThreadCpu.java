package io.sessionrep.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * CPU time of a target's node processes by thread role, from {@code /proc/PID/task/TID/stat} (user + system
 * ticks, so GC, JIT, kernel time of socket writes and wake-ups all count, which JFR's execution samples do
 * not see). Taken before and after each measured segment; the difference, over the requests the segment
 * served, is CPU time per request. Linux only: elsewhere every snapshot is empty.
 *
 * <p>Per thread, not per role: a snapshot holds each thread's ticks under its process, thread id and start time, and
 * the process's own ticks ({@code /proc/PID/stat}, which keep those of its threads that ended). A thread's share of a
 * segment is its ticks then less those it had before (a thread started meanwhile: all of them; one whose id the kernel
 * reused: a new thread); what threads that ended during the segment used is what the process used beyond its live
 * threads ({@link #ENDED}). Summed per role before, a thread that ended took all its earlier ticks out of its role's
 * difference: the data lane's connection threads, replaced after the minute a configuration rests between its
 * segments, made the lane's CPU vanish from the table (reports up to 20261128 show it near 0, with a negative kernel
 * share).
 */
final class ThreadCpu {

    /** Roles in report order, by the thread's name as the kernel keeps it (its first 15 characters). */
    static final List<String> ROLES = List.of("HTTP (Tomcat NIO / Jetty qtp)", "sessionrep sender and lane threads",
            "JGroups", "Tribes (Tomcat cluster)", "GC", "JIT", "JFR", "other", "threads that ended in the segment");

    /** The role of the ticks of threads that ended between two snapshots (their name is gone with them). */
    static final String ENDED = ROLES.get(8);

    /** Snapshot keys: a thread's ticks under {@code THREAD + pid/tid/start + ' ' + role}, a process's under {@code PROCESS + pid}. */
    private static final String THREAD = "thread ";
    private static final String PROCESS = "process ";

    /** The role of the JIT compiler threads (C1, C2). */
    static final String JIT = ROLES.get(5);

    /** Prefix of the keys that hold the system (kernel) part of a role's ticks. */
    static final String KERNEL = "kernel: ";

    private static final double TICKS_PER_SECOND = 100.0; // USER_HZ on Linux

    private ThreadCpu() {
    }

    /** Ticks per thread and per process over the given processes, now (for {@link #difference}). */
    static Map<String, Long> snapshot(List<Long> pids) {
        Map<String, Long> ticks = new LinkedHashMap<>();
        for (long pid : pids) {
            Path process = Path.of("/proc", Long.toString(pid));
            Path tasks = process.resolve("task");
            if (!Files.isDirectory(tasks)) {
                continue;
            }
            try (Stream<Path> s = Files.list(tasks)) {
                for (Path task : s.toList()) {
                    try {
                        Stat stat = Stat.parse(Files.readString(task.resolve("stat")));
                        String key = threadKey(pid, task.getFileName().toString(), stat.start, role(stat.comm));
                        ticks.put(key, stat.user + stat.system);
                        ticks.put(KERNEL + key, stat.system);
                    } catch (IOException | RuntimeException gone) {
                        // the thread ended meanwhile (its ticks are in the process's from now on)
                    }
                }
                // after the threads: what ended between the two reads is counted in the process, never lost
                Stat whole = Stat.parse(Files.readString(process.resolve("stat")));
                ticks.put(PROCESS + pid, whole.user + whole.system);
                ticks.put(KERNEL + PROCESS + pid, whole.system);
            } catch (IOException | RuntimeException gone) {
                // the process ended
            }
        }
        return ticks;
    }

    /** A thread's key in a snapshot: its process, id and start time (an id the kernel reuses is a new thread), its role. */
    static String threadKey(long pid, String tid, long start, String role) {
        return THREAD + pid + "/" + tid + "/" + start + " " + role;
    }

    /** The fields of a {@code stat} file used here. */
    record Stat(String comm, long user, long system, long start) {
        static Stat parse(String stat) {
            int open = stat.indexOf('(');
            int close = stat.lastIndexOf(')');
            String[] f = stat.substring(close + 2).split(" ");
            // utime, stime, starttime: fields 14, 15, 22 (counted from 1, the first two before the name's end)
            return new Stat(stat.substring(open + 1, close), Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[19]));
        }
    }

    static String role(String comm) {
        if (comm.startsWith("http-nio") || comm.startsWith("http-") || comm.startsWith("qtp")) {
            return ROLES.get(0);
        }
        if (comm.startsWith("sessionrep-send") || comm.startsWith("sessionrep-lane")) { // the async sender; the data lane's server
            return ROLES.get(1);
        }
        if (comm.startsWith("jgroups") || comm.startsWith("TQ-") || comm.startsWith("Connection") || comm.startsWith("TcpServer")
                || comm.startsWith("Timer") || comm.toLowerCase(java.util.Locale.ROOT).contains("bundler") || comm.startsWith("FD_SOCK") || comm.startsWith("NioConnection")) {
            return ROLES.get(2);
        }
        if (comm.startsWith("Tribes") || comm.startsWith("GroupChannel") || comm.startsWith("NioReceiver")
                || comm.startsWith("Membership") || comm.startsWith("ClusterReceiver")) {
            return ROLES.get(3);
        }
        if (comm.startsWith("GC ") || comm.startsWith("G1 ") || comm.startsWith("VM Thread") || comm.startsWith("VM Periodic")) {
            return ROLES.get(4);
        }
        if (comm.startsWith("C1 ") || comm.startsWith("C2 ")) {
            return ROLES.get(5);
        }
        if (comm.startsWith("JFR")) {
            return ROLES.get(6);
        }
        return ROLES.get(7);
    }

    /** {@code role}'s share of all the ticks (kernel keys aside); NaN when there are none. */
    static double share(Map<String, Long> ticks, String role) {
        long total = sum(ticks, "");
        return total == 0 ? Double.NaN : (double) ticks.getOrDefault(role, 0L) / total;
    }

    /** The ticks of every role under keys {@code prefix + role}: "" for all ticks, {@link #KERNEL} for the kernel's part. */
    private static long sum(Map<String, Long> ticks, String prefix) {
        long sum = 0;
        for (String r : ROLES) {
            sum += ticks.getOrDefault(prefix + r, 0L);
        }
        return sum;
    }

    /**
     * Ticks per role between two {@link #snapshot}s: each thread's ticks less those it had in {@code before}, and, as
     * {@link #ENDED}, what each process used beyond its threads that are still there.
     */
    static Map<String, Long> difference(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> d = new LinkedHashMap<>();
        for (String kind : List.of("", KERNEL)) {
            Map<String, Long> liveByProcess = new LinkedHashMap<>();
            after.forEach((key, ticks) -> {
                if (!key.startsWith(kind + THREAD)) {
                    return;
                }
                String thread = key.substring((kind + THREAD).length());
                String role = thread.substring(thread.indexOf(' ') + 1);
                String pid = thread.substring(0, thread.indexOf('/'));
                long delta = ticks - before.getOrDefault(key, 0L);
                d.merge(kind + role, delta, Long::sum);
                liveByProcess.merge(pid, delta, Long::sum);
            });
            after.forEach((key, ticks) -> {
                if (key.startsWith(kind + PROCESS)) {
                    String pid = key.substring((kind + PROCESS).length());
                    long ended = ticks - before.getOrDefault(key, ticks) - liveByProcess.getOrDefault(pid, 0L);
                    d.merge(kind + ENDED, Math.max(0, ended), Long::sum); // a tick's rounding between reads aside
                }
            });
        }
        return d;
    }

    /** Markdown: per configuration, CPU ms per request by role (both nodes, share of the total, kernel part), and the total. */
    static String table(List<String[]> configs, Map<String, Map<String, Long>> ticks, Map<String, Long> requests) {
        StringBuilder md = new StringBuilder("| configuration | requests | CPU ms / request (both nodes) |");
        StringBuilder rule = new StringBuilder("| --- | ---: | ---: |");
        for (String r : ROLES) {
            md.append(' ').append(r).append(" |");
            rule.append(" ---: |");
        }
        md.append('\n').append(rule).append('\n');
        for (String[] c : configs) {
            Map<String, Long> t = ticks.get(c[0]);
            long n = requests.getOrDefault(c[0], 0L);
            if (t == null || n == 0) {
                continue;
            }
            long total = sum(t, "");
            long kernel = sum(t, KERNEL);
            md.append("| ").append(c[1]).append(String.format(Locale.ROOT, " | %,d | %.3f (kernel %.0f %%) |", n, ms(total, n),
                    total == 0 ? 0 : 100.0 * kernel / total));
            for (String r : ROLES) {
                long v = t.getOrDefault(r, 0L);
                long k = t.getOrDefault(KERNEL + r, 0L);
                md.append(String.format(Locale.ROOT, " %.3f (%.0f %%; kernel %.0f %%) |", ms(v, n), total == 0 ? 0 : 100.0 * v / total,
                        v == 0 ? 0 : 100.0 * k / v));
            }
            md.append('\n');
        }
        return md.append('\n').toString();
    }

    private static double ms(long ticks, long requests) {
        return ticks / TICKS_PER_SECOND * 1000.0 / requests;
    }
}
