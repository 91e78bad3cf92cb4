package io.sessionrep.perf;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The runner's command line ({@code perf/run.sh [flags]}).
 * <pre>
 * --quick                 short segments and two points per chart (development)
 * --smoke                 the bounded run of the integration test: tiny segments, one point
 * --scenarios=1,2,...     which scenarios: 1 2 3 4 5 (= 5a and 5b) 6 7 8 8p 9 10 jmh; default all
 *                         (6: Tomcat peers in one container, 7: memory, 8: round robin, 8p: pages (a write and
 *                         static files) round robin, 9: concurrent clients on one session, 10: fail-over by kill -9)
 * --segment=SECONDS       length of one measured segment (default 6 full, 3 quick, 2 smoke)
 * --warmup=SECONDS        unmeasured warm-up per configuration (default 8 full, 3 quick, 1 smoke)
 * --warmup-max=SECONDS    longest warm-up: after --warmup, one more --segment at a time while the configuration's node
 *                         JVMs spent more than 5 % of their CPU compiling (JIT) in the part before (WarmUp); default
 *                         180 full (or --warmup if longer), --warmup quick and smoke (no extension)
 * --rounds=N              A/B rounds per point (default 2: A B A B)
 * --run=NAME              results folder perf/results/NAME (default the start time, yyyyMMdd-HHmm)
 * --out=DIR               results folder DIR instead (the integration test writes under target/)
 * --net-delay=200us       scenario 4: one-way replication latency of the distributed nodes (in their JGroups stacks)
 * --net-rate=1gbit        scenario 4: rate of the replication link (tbf), or none
 * --no-dashboards         skip the JMeter HTML dashboards
 * --jfr                   record every node with JFR and summarize where its CPU time and allocations go
 *                         (per node: thread roles, top frames self/total, top allocation sites, bytes per request)
 * --jfr=profile           the same with JFR's "profile" settings (CPU samples every 10 ms, more allocation samples)
 * --async-profiler        profile every node with async-profiler during each measured segment (CPU every 1 ms, kernel
 *                         frames where perf events allow): where the CPU goes, system calls included (AsyncProfiles)
 * --points=NxS,...       the state-size points (scenarios 1-6): N attributes of S KiB, 5 threads, e.g. 10x50;
 *                         default the profile's (full: 1x1,2x5,5x10,10x20,10x50)
 * --configs=ID,...        scenarios 1-3, 6 and 9: only these configurations (1: off async-wq1 floor-async; 2: async sync
 *                         floor-async floor-sync; 3: wq1 wq2 floor-wq1 floor-wq2; 6: tc-off tc-ours-async tc-ours-sync
 *                         tc-delta tc-backup tc-backup-async tc-redis tc-floor-async tc-floor-sync; 9: as 6 without the floor; a scenario
 *                         left without any is skipped; in scenario 9 tc-off is the one-Tomcat reference, and jetty-ours-async jetty-ours-sync run ours
 *                         on embedded Jetty beside them)
 * --sessions=N            scenario 7: sessions created (default 5000 full, 1000 quick, 300 smoke)
 * --rr-nodes=N            scenarios 8 and 8p: nodes of the round robin (default 2; 2 or 3)
 * --browsers=N            scenario 8p: browsers loading pages, each with one session (default 5)
 * --clients=N             scenario 9: clients sharing one session, client i on node i mod nodes (default 4)
 * --cc-nodes=N            scenario 9: nodes (default 2; 2 or 3)
 * --settle=SECONDS        before each scenario, wait at most this long for the 1-minute load average to fall
 *                         to 1.0 (default 300 full, 60 quick, 0 smoke; it stops waiting as soon as the load is below 1)
 * --baseline-jar=PATH     scenario 6: also each of ours that runs (async, sync, a secured variant) with this
 *                         sessionrep-tomcat.jar (e.g. built from the commit before a change), id {@code <id>-baseline},
 *                         A/B against this build's: sticky throughput before and after;
 *                         scenario 9: also ours async (Tomcat) with it, under the same concurrent clients
 * --baseline-node-jar=PATH scenarios 1-3: also each of ours' Jetty configurations on nodes of this sessionrep-node.jar
 *                         (test-servlet's, e.g. built from the commit before a change), id {@code <id>-baseline}, right
 *                         after this build's: A/B of two builds in one run
 * --charts-only           redraw the charts of an earlier run (--run=NAME) from its raw results files
 * </pre>
 */
final class Options {

    enum Profile { FULL, QUICK, SMOKE }

    Profile profile = Profile.FULL;
    static final List<String> ALL = List.of("1", "2", "3", "4", "5a", "5b", "6", "7", "8", "8p", "9", "10", "jmh");
    Set<String> scenarios = new LinkedHashSet<>(ALL);
    int sessions = -1;
    int rrNodes = 2;
    int browsers = 5;
    int clients = 4;
    int ccNodes = 2;
    int settleSeconds = -1;
    String baselineJar;
    String baselineNodeJar;
    int segmentSeconds = -1;
    int warmupSeconds = -1;
    int warmupMaxSeconds = -1;
    /** Whether --warmup-max was given (a scenario with a time bound of its own caps only the default). */
    boolean warmupMaxGiven;
    int rounds = 2;
    String run = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmm"));
    String netDelay = "200us";
    String netRate = "1gbit";
    boolean dashboards = true;
    String out;
    boolean jfr;
    boolean asyncProfiler;
    Set<String> configs = new LinkedHashSet<>();
    /** From --points: the state-size points (5 threads each); empty means the profile's. */
    List<Scenario.Point> points = new ArrayList<>();
    boolean chartsOnly;
    List<String> commandLine = new ArrayList<>();

    static Options parse(String... args) {
        Options o = new Options();
        o.commandLine = List.of(args);
        for (String arg : args) {
            String value = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1) : "";
            if (arg.equals("--quick")) {
                o.profile = Profile.QUICK;
            } else if (arg.equals("--smoke")) {
                o.profile = Profile.SMOKE;
            } else if (arg.startsWith("--scenarios=")) {
                o.scenarios = new LinkedHashSet<>();
                for (String s : value.split(",")) {
                    String id = s.trim().toLowerCase();
                    if (id.equals("5")) {
                        o.scenarios.add("5a");
                        o.scenarios.add("5b");
                    } else if (ALL.contains(id)) {
                        o.scenarios.add(id);
                    } else {
                        throw new IllegalArgumentException("--scenarios: '" + s + "' is not allowed; expected 1,2,3,4,5,5a,5b,6,7,8,8p,9,10,jmh");
                    }
                }
            } else if (arg.startsWith("--segment=")) {
                o.segmentSeconds = positive("segment", value);
            } else if (arg.startsWith("--warmup=")) {
                o.warmupSeconds = Integer.parseInt(value);
            } else if (arg.startsWith("--warmup-max=")) {
                o.warmupMaxSeconds = positive("warmup-max", value);
                o.warmupMaxGiven = true;
            } else if (arg.startsWith("--rounds=")) {
                o.rounds = positive("rounds", value);
            } else if (arg.startsWith("--sessions=")) {
                o.sessions = positive("sessions", value);
            } else if (arg.startsWith("--rr-nodes=")) {
                o.rrNodes = nodes("rr-nodes", value);
            } else if (arg.startsWith("--browsers=")) {
                o.browsers = positive("browsers", value);
            } else if (arg.startsWith("--cc-nodes=")) {
                o.ccNodes = nodes("cc-nodes", value);
            } else if (arg.startsWith("--clients=")) {
                o.clients = positive("clients", value);
            } else if (arg.startsWith("--baseline-jar=")) {
                o.baselineJar = existingFile("baseline-jar", value, "a sessionrep-tomcat.jar");
            } else if (arg.startsWith("--baseline-node-jar=")) {
                o.baselineNodeJar = existingFile("baseline-node-jar", value, "a sessionrep-node.jar");
            } else if (arg.startsWith("--settle=")) {
                o.settleSeconds = Integer.parseInt(value);
            } else if (arg.startsWith("--run=")) {
                o.run = value;
            } else if (arg.startsWith("--out=")) {
                o.out = value;
            } else if (arg.startsWith("--net-delay=")) {
                o.netDelay = value;
            } else if (arg.startsWith("--net-rate=")) {
                o.netRate = value;
            } else if (arg.equals("--charts-only")) {
                o.chartsOnly = true;
            } else if (arg.equals("--jfr")) {
                o.jfr = true;
            } else if (arg.equals("--async-profiler")) {
                o.asyncProfiler = true;
            } else if (arg.equals("--jfr=profile")) {
                o.jfr = true;
                JfrSummary.settings = "profile";
            } else if (arg.startsWith("--configs=")) {
                for (String c : value.split(",")) {
                    o.configs.add(c.trim());
                }
            } else if (arg.startsWith("--points=")) {
                for (String p : value.split(",")) {
                    o.points.add(point(p.trim()));
                }
            } else if (arg.equals("--no-dashboards")) {
                o.dashboards = false;
            } else if (arg.equals("--help") || arg.equals("-h")) {
                throw new IllegalArgumentException("help");
            } else {
                throw new IllegalArgumentException("unknown flag '" + arg + "'");
            }
        }
        if (o.segmentSeconds < 0) {
            o.segmentSeconds = switch (o.profile) {
                case FULL -> 6;
                case QUICK -> 3;
                case SMOKE -> 2;
            };
        }
        if (o.warmupSeconds < 0) {
            o.warmupSeconds = switch (o.profile) {
                case FULL -> 8;
                case QUICK -> 3;
                case SMOKE -> 1;
            };
        }
        if (o.warmupMaxSeconds < 0) {
            o.warmupMaxSeconds = o.profile == Profile.FULL ? Math.max(180, o.warmupSeconds) : o.warmupSeconds;
        } else if (o.warmupMaxSeconds < o.warmupSeconds) {
            throw new IllegalArgumentException("--warmup-max: " + o.warmupMaxSeconds + " is not allowed; expected at least --warmup ("
                    + o.warmupSeconds + ")");
        }
        if (o.sessions < 0) {
            o.sessions = switch (o.profile) {
                case FULL -> 5000;
                case QUICK -> 1000;
                case SMOKE -> 300;
            };
        }
        if (o.settleSeconds < 0) {
            o.settleSeconds = switch (o.profile) {
                case FULL -> 300; // a saturated 2-core run leaves a load of 8-16: ~2-3 min to fall below 1
                case QUICK -> 60;
                case SMOKE -> 0;
            };
        }
        return o;
    }

    private static int nodes(String name, String value) {
        int n = Integer.parseInt(value);
        if (n != 2 && n != 3) {
            throw new IllegalArgumentException("--" + name + ": " + value + " is not allowed; expected 2 or 3");
        }
        return n;
    }

    private static Scenario.Point point(String value) {
        String[] parts = value.split("x");
        try {
            if (parts.length == 2) {
                int number = Integer.parseInt(parts[0]);
                int size = Integer.parseInt(parts[1]);
                if (number >= 1 && size >= 1) {
                    return new Scenario.Point(5, number, size);
                }
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--points: '" + value + "' is not allowed; expected NxS (N attributes of S KiB, both 1 or more), e.g. 10x50");
    }

    private static int positive(String name, String value) {
        int n = Integer.parseInt(value);
        if (n < 1) {
            throw new IllegalArgumentException("--" + name + ": " + value + " is not allowed; expected 1 or more");
        }
        return n;
    }

    private static String existingFile(String name, String value, String expected) {
        if (!java.nio.file.Files.isRegularFile(java.nio.file.Path.of(value))) {
            throw new IllegalArgumentException("--" + name + ": '" + value + "' is not a file; expected " + expected);
        }
        return value;
    }

    static String usage() {
        return """
                usage: perf/run.sh [--quick | --smoke] [--scenarios=1,2,3,4,5,6,7,8,8p,9,10,jmh] [--segment=S] [--warmup=S] [--warmup-max=S]
                                   [--rounds=N] [--run=NAME] [--out=DIR] [--net-delay=200us] [--net-rate=1gbit] [--no-dashboards] [--jfr[=profile]] [--async-profiler] [--configs=ID,...] [--points=NxS,...]
                                   [--sessions=N] [--rr-nodes=2|3] [--browsers=N] [--clients=N] [--cc-nodes=2|3] [--settle=S] [--baseline-jar=PATH] [--baseline-node-jar=PATH]
                Runs the benchmark scenarios side by side, A/B/A/B, and writes
                perf/results/NAME/report.md, charts (*.png) and JMeter dashboards (raw/, not in git).
                """;
    }
}
