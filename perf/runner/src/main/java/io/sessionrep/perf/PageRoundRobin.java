package io.sessionrep.perf;

import org.HdrHistogram.Histogram;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Scenario 8p, pages without affinity: {@link BrowserPages} against Tomcat clusters of every configuration at
 * once (ours async and sync, Tomcat's BackupManager async and sync, StandardManager), measured configuration
 * after configuration, round after round (A/B/A/B). For ours, the hand-overs each page caused, from the nodes'
 * own meters ({@link HandOverMeters}) read before and after each measured segment. Writes its tables into the
 * scenario's {@link Measurements#section}, its goals into {@link Measurements#verdicts}.
 */
final class PageRoundRobin {

    /** The session every browser writes with each page: 2 attributes of 5 KiB (the plan's second point). */
    static final int NUMBER = 2;
    static final int SIZE_KIB = 5;
    /** The configurations, each of ours right before BackupManager in its mode, the reference first. */
    static final List<TomcatSetup> SETUPS = List.of(TomcatSetup.OFF, TomcatSetup.OURS_ASYNC, TomcatSetup.BACKUP_ASYNC,
            TomcatSetup.OURS_SYNC, TomcatSetup.BACKUP);

    /**
     * The longest warm-up per configuration unless --warmup-max says otherwise: the five configurations warm one
     * after the other, and the scenario keeps to about six minutes with the default flags.
     */
    static final int WARMUP_MAX_SECONDS = 45;

    /** One measured segment of one configuration: what the browsers saw, and ours' hand-overs (null for a peer). */
    record Round(BrowserPages.Outcome outcome, HandOverMeters.Counts handOvers) {
    }

    private final Catalog catalog;
    private final Options options;

    PageRoundRobin(Catalog catalog, Options options) {
        this.catalog = catalog;
        this.options = options;
    }

    /** What the report says the scenario does. */
    static String describe(Options options, StaticFiles files) {
        return "Tomcat configurations as in the section \"Tomcat configurations\" above. " + options.browsers + " browsers (the"
                + " runner's own HTTP client), each with one cookie and one session of " + NUMBER + " x " + SIZE_KIB + " KiB,"
                + " loading pages without think time: a page = one write (the servlet's `process`, with `from=N`), then, once it"
                + " answered, the application's " + (files == null ? "" : files.files().size() + " ") + "static files"
                + (files == null ? "" : String.format(Locale.ROOT, " (%,d bytes in all, under `static/`)", files.totalBytes()))
                + " in parallel over at most " + BrowserPages.CONNECTIONS + " connections, each checked complete. Every"
                + " request of a browser goes to the next of " + options.rrNodes + " nodes in turn (a round-robin balancer"
                + " without affinity), each page starting one node further than the page before, so that no two writes"
                + " of a browser in a row meet one node. Page load = from the write's start to the last file's answer;"
                + " write = the write's response time, writes answered 200 only. At the end of each"
                + " segment every browser reads its session back on the next node: increments lost = writes answered 200"
                + " the version read back does not count. Hand-overs per page: the nodes' own meter"
                + " `sessionrep.handovers{direction=acquired}` (JMX) over the segment, divided by its pages (ours only)."
                + " StandardManager keeps a session on the node that created it: its writes on any other node answer 404"
                + " and its read-back may find no session; it is the reference for what the static files cost without any"
                + " replication. Segments of " + options.segmentSeconds + " s, " + options.rounds + " rounds A/B/A/B, after a"
                + " warm-up per configuration (" + options.warmupSeconds + " s, longer while its nodes were still compiling)"
                + " and one unmeasured round.";
    }

    void run(Measurements m, Path dir, Consumer<Target> track) throws Exception {
        StaticFiles files = StaticFiles.of(catalog.testWar());
        List<TomcatSetup> setups = catalog.withoutUnavailable(SETUPS);
        Map<TomcatSetup, TomcatCluster> clusters = catalog.startTomcats(setups, options.rrNodes, dir, track);
        Map<TomcatSetup, HandOverMeters> meters = new LinkedHashMap<>();
        Map<TomcatSetup, List<Round>> rounds = new LinkedHashMap<>();
        try {
            for (TomcatSetup s : setups) {
                if (s.ours()) {
                    meters.put(s, HandOverMeters.attach(clusters.get(s)));
                }
                rounds.put(s, new ArrayList<>());
            }
            int warmupMax = options.warmupMaxGiven ? options.warmupMaxSeconds : Math.min(options.warmupMaxSeconds, WARMUP_MAX_SECONDS);
            Map<TomcatSetup, WarmUp.Done> warmUps = new LinkedHashMap<>();
            for (TomcatSetup s : setups) {
                if (options.warmupSeconds > 0) {
                    TomcatCluster cluster = clusters.get(s);
                    BrowserPages load = browsers(cluster, files);
                    WarmUp.Done done = WarmUp.run(options.warmupSeconds, options.segmentSeconds, Math.max(warmupMax, options.warmupSeconds),
                            () -> ThreadCpu.snapshot(cluster.pids()), (part, seconds) -> pages(load, seconds));
                    warmUps.put(s, done);
                    System.out.println("-- warmed up " + s.id() + ": " + done.summary());
                }
            }
            // one unmeasured round, so that each configuration comes to its first measured segment as to every later
            // one: after one segment of each other configuration (as the scenarios of the JMeter plan do)
            if (options.warmupSeconds > 0) {
                for (TomcatSetup s : setups) {
                    pages(browsers(clusters.get(s), files), options.segmentSeconds);
                }
            }
            if (!warmUps.isEmpty()) {
                StringBuilder warm = new StringBuilder();
                warmUps.forEach((s, done) -> warm.append(warm.length() == 0 ? "" : "; ").append(s.id()).append(' ').append(done.summary()));
                m.section.append("Unmeasured warm-up per configuration (longer while its nodes' JIT compilers used more than ")
                        .append(Math.round(100 * WarmUp.STILL_COMPILING)).append(" % of their CPU, at most ").append(warmupMax)
                        .append(" s), then one unmeasured round: ").append(warm).append(".\n\n");
            }
            for (int round = 1; round <= options.rounds; round++) {
                for (TomcatSetup s : setups) {
                    HandOverMeters meter = meters.get(s);
                    HandOverMeters.Counts before = meter == null ? null : meter.read();
                    BrowserPages.Outcome o = browsers(clusters.get(s), files).run(options.browsers, NUMBER, SIZE_KIB,
                            Duration.ofSeconds(options.segmentSeconds));
                    HandOverMeters.Counts handOvers = meter == null ? null : meter.read().minus(before);
                    rounds.get(s).add(new Round(o, handOvers));
                    System.out.printf(Locale.ROOT, "[S8p] %-15s round %d: %5d pages, %6.1f pages/s, page p50 %.1f ms, static p50 %.1f"
                                    + " ms, write p50 %.1f ms, %d increments lost, hand-overs/page %s, failures %s%n", s.id(), round,
                            o.pages(), o.pagesPerSecond(), ms(o.pageLoad(), 50), ms(o.staticFiles(), 50), ms(o.writes(), 50),
                            o.incrementsLost(), handOvers == null ? "-" : fmt(handOvers.acquired() / o.pages()),
                            ClientLoad.Failures.format(o.failures()));
                }
            }
        } finally {
            meters.values().forEach(HandOverMeters::close);
            clusters.values().forEach(TomcatCluster::close);
        }
        m.section.append(table(rounds, options.rounds));
        for (TomcatSetup s : TomcatSetup.PAIRED_WITH_BACKUP_MANAGER) {
            List<Round> r = rounds.get(s);
            if (r == null || r.isEmpty()) {
                continue;
            }
            BrowserPages.Outcome all = together(r).outcome();
            m.verdicts.add(new Report.Verdict("pages without affinity: increments lost, " + s.label(), "0",
                    String.format(Locale.ROOT, "%,d of %,d writes answered 200", all.incrementsLost(), all.writesOk()),
                    all.incrementsLost() == 0 && all.unreadable() == 0));
        }
    }

    /** Unmeasured pages for {@code seconds}. */
    private void pages(BrowserPages load, int seconds) throws java.io.IOException {
        try {
            load.run(options.browsers, NUMBER, SIZE_KIB, Duration.ofSeconds(seconds));
        } catch (java.io.IOException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while warming up");
        } catch (Exception e) {
            throw new java.io.IOException("warm-up pages failed: " + e, e);
        }
    }

    private BrowserPages browsers(TomcatCluster cluster, StaticFiles files) {
        List<URI> roots = cluster.nodes().stream()
                .map(n -> URI.create("http://127.0.0.1:" + n.httpPort() + TomcatCluster.CONTEXT + "/")).toList();
        return new BrowserPages(roots, TomcatCluster.PATH.substring(TomcatCluster.CONTEXT.length() + 1), cluster.setup().cookie(),
                files, ClientLoad.REQUEST_TIMEOUT);
    }

    /** Every round of one configuration together. */
    static Round together(List<Round> rounds) {
        BrowserPages.Outcome o = rounds.get(0).outcome();
        HandOverMeters.Counts h = rounds.get(0).handOvers();
        for (Round r : rounds.subList(1, rounds.size())) {
            o = o.plus(r.outcome());
            h = h == null || r.handOvers() == null ? null : h.plus(r.handOvers());
        }
        return new Round(o, h);
    }

    /**
     * The scenario's tables: every round of every configuration, then all rounds together with ours beside
     * BackupManager in the same mode (ratios ours / BackupManager).
     */
    static String table(Map<TomcatSetup, List<Round>> rounds, int roundCount) {
        StringBuilder md = new StringBuilder();
        md.append("| configuration | round | pages | pages/s | page load p50 / p90 ms | static file p50 / p90 ms | write p50 ms"
                + " | writes 200 | increments lost | hand-overs per page (all) | failures |\n");
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
        Map<TomcatSetup, Round> all = new LinkedHashMap<>();
        rounds.forEach((s, list) -> {
            for (int i = 0; i < list.size(); i++) {
                md.append(row(s.label(), Integer.toString(i + 1), list.get(i)));
            }
            if (!list.isEmpty()) {
                all.put(s, together(list));
            }
        });
        md.append('\n');
        md.append("All " + roundCount + " rounds together; ours beside Tomcat's BackupManager in the same replication mode"
                + " (ours / BackupManager: pages/s higher is better, times lower is better):\n\n");
        md.append("| configuration | pages | pages/s | page load p50 / p90 ms | static file p50 / p90 ms | write p50 ms | writes 200"
                + " | increments lost | hand-overs per page (all) | failures |\n");
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
        all.forEach((s, r) -> md.append(row(s.label(), null, r)));
        md.append('\n');
        StringBuilder pairs = new StringBuilder();
        for (TomcatSetup ours : TomcatSetup.PAIRED_WITH_BACKUP_MANAGER) {
            Round a = all.get(ours);
            Round b = all.get(ours.sameModeBackupManager());
            if (a == null || b == null) {
                continue;
            }
            BrowserPages.Outcome x = a.outcome();
            BrowserPages.Outcome y = b.outcome();
            pairs.append(String.format(Locale.ROOT, "| %s | %sx | %sx / %sx | %sx / %sx | %sx | %,d / %,d |%n", ours.sync() ? "sync" : "async",
                    fmt(x.pagesPerSecond() / y.pagesPerSecond()),
                    fmt(ms(x.pageLoad(), 50) / ms(y.pageLoad(), 50)), fmt(ms(x.pageLoad(), 90) / ms(y.pageLoad(), 90)),
                    fmt(ms(x.staticFiles(), 50) / ms(y.staticFiles(), 50)), fmt(ms(x.staticFiles(), 90) / ms(y.staticFiles(), 90)),
                    fmt(ms(x.writes(), 50) / ms(y.writes(), 50)), x.pages() - x.writesOk(), y.pages() - y.writesOk()));
        }
        if (pairs.length() > 0) {
            md.append("| mode | pages/s ours / BackupManager | page load p50 / p90 | static file p50 / p90 | write p50"
                    + " | pages whose write failed, ours / BackupManager |\n");
            md.append("| --- | ---: | ---: | ---: | ---: | ---: |\n");
            md.append(pairs).append('\n');
        }
        return md.toString();
    }

    private static String row(String label, String round, Round r) {
        BrowserPages.Outcome o = r.outcome();
        String handOvers = r.handOvers() == null ? "-" : o.pages() == 0 ? "?" : String.format(Locale.ROOT, "%.2f (%,.0f)",
                r.handOvers().acquired() / o.pages(), r.handOvers().acquired())
                + (r.handOvers().ownershipTimeouts() > 0 ? String.format(Locale.ROOT, " (%,.0f ownership time-outs)",
                r.handOvers().ownershipTimeouts()) : "");
        String lost = String.format(Locale.ROOT, "%,d", o.incrementsLost()) + (o.unreadable() > 0
                ? String.format(Locale.ROOT, " (%d sessions unreadable)", o.unreadable()) : "");
        return String.format(Locale.ROOT, "| %s |%s %,d | %,.1f | %.1f / %.1f | %.1f / %.1f | %.1f | %,d | %s | %s | %s |%n", label,
                round == null ? "" : " " + round + " |", o.pages(), o.pagesPerSecond(), ms(o.pageLoad(), 50), ms(o.pageLoad(), 90),
                ms(o.staticFiles(), 50), ms(o.staticFiles(), 90), ms(o.writes(), 50), o.writesOk(), lost, handOvers,
                ClientLoad.Failures.format(o.failures()));
    }

    /** The {@code percentile} of a histogram of microseconds, in milliseconds (NaN when empty). */
    static double ms(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
    }

    private static String fmt(double d) {
        return Report.fmt(d);
    }
}
