package io.sessionrep.perf;

import io.sessionrep.testservlet.SessionClient;
import io.sessionrep.testservlet.SessionReply;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The scenarios that compare ours with its peers in one container without the JMeter plan: 7 memory, 8
 * round robin, 9 concurrent clients on one session, 10 fail-over. Each starts its Tomcat configurations
 * through {@link Catalog#startTomcat}, measures, stops them, and writes its table into the scenario's
 * {@link Measurements#section} and its benchmark goals into {@link Measurements#verdicts}.
 */
final class PeerScenarios {

    private final Catalog catalog;
    private final Options options;

    PeerScenarios(Catalog catalog, Options options) {
        this.catalog = catalog;
        this.options = options;
    }

    private static List<URI> uris(TomcatCluster c) {
        return c.nodes().stream().map(TomcatCluster.Node::uri).toList();
    }

    private Map<TomcatSetup, TomcatCluster> startAll(List<TomcatSetup> setups, int nodes, Path dir, Consumer<Target> track)
            throws Exception {
        return catalog.startTomcats(setups, nodes, dir, track);
    }

    // ------------------------------------------------------------------ 8: round robin

    void roundRobin(Measurements m, Path dir, Consumer<Target> track) throws Exception {
        List<TomcatSetup> setups = catalog.withoutUnavailable(List.of(TomcatSetup.OURS_ASYNC, TomcatSetup.BACKUP_ASYNC,
                TomcatSetup.OURS_SYNC, TomcatSetup.BACKUP));
        Map<TomcatSetup, TomcatCluster> clusters = startAll(setups, options.rrNodes, dir, track);
        Map<TomcatSetup, List<ClientLoad.RoundRobin>> rounds = new LinkedHashMap<>();
        for (TomcatSetup s : setups) {
            if (options.warmupSeconds > 0) {
                System.out.println("-- warm-up " + s.id() + " (" + options.warmupSeconds + " s round robin)");
                ClientLoad.roundRobin(uris(clusters.get(s)), s.cookie(), 5, 2, 5, Duration.ofSeconds(options.warmupSeconds));
            }
            rounds.put(s, new ArrayList<>());
        }
        for (int round = 1; round <= options.rounds; round++) {
            for (TomcatSetup s : setups) {
                ClientLoad.RoundRobin r = ClientLoad.roundRobin(uris(clusters.get(s)), s.cookie(), 5, 2, 5,
                        Duration.ofSeconds(options.segmentSeconds));
                rounds.get(s).add(r);
                System.out.printf(Locale.ROOT, "[S8] %-14s round %d: %5d sessions, %4d lost (%d wrong version, %d no session),"
                                + " %6.0f req/s, mean %.2f ms, process failures %s%n", s.id(), round, r.sessions(), r.lostSessions(),
                        r.wrongVersion(), r.noSession(), r.throughput(), r.meanMs(), ClientLoad.Failures.format(r.processFailures()));
            }
        }
        for (TomcatCluster c : clusters.values()) {
            c.close();
        }
        StringBuilder md = m.section;
        md.append("| configuration | round | sessions | verified exact | lost: wrong version | lost: no session (404) | updates lost"
                + " | process answers not 200 | other failures | req/s | mean ms |\n");
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: |\n");
        Map<TomcatSetup, double[]> totals = new LinkedHashMap<>();
        for (TomcatSetup s : setups) {
            long sessions = 0;
            long lost = 0;
            long requests = 0;
            double seconds = 0;
            int i = 1;
            for (ClientLoad.RoundRobin r : rounds.get(s)) {
                md.append(String.format(Locale.ROOT, "| %s | %d | %,d | %,d | %,d | %,d | %,d | %s | %s | %,.0f | %.2f |%n", s.label(), i++,
                        r.sessions(), r.verified(), r.wrongVersion(), r.noSession(), r.lostUpdates(),
                        ClientLoad.Failures.format(r.processFailures()), ClientLoad.Failures.format(r.otherFailures()),
                        r.throughput(), r.meanMs()));
                sessions += r.sessions();
                lost += r.lostSessions();
                requests += r.requests();
                seconds += r.seconds();
            }
            totals.put(s, new double[]{sessions, lost, requests / seconds});
        }
        md.append('\n');
        md.append("All rounds together (ratios: ours against Tomcat's BackupManager in the same replication mode):\n\n"
                + "| configuration | sessions | lost | lost % | req/s | req/s vs BackupManager of the same mode |\n");
        md.append("| --- | ---: | ---: | ---: | ---: | ---: |\n");
        for (Map.Entry<TomcatSetup, double[]> e : totals.entrySet()) {
            double[] t = e.getValue();
            double[] peer = e.getKey().ours() ? totals.get(e.getKey().sameModeBackupManager()) : null;
            md.append(String.format(Locale.ROOT, "| %s | %,.0f | %,.0f | %.1f %% | %,.0f | %s |%n", e.getKey().label(), t[0], t[1],
                    t[0] == 0 ? 0 : 100 * t[1] / t[0], t[2], peer == null ? "-" : String.format(Locale.ROOT, "%.2fx", t[2] / peer[2])));
        }
        md.append('\n');
        for (TomcatSetup s : TomcatSetup.PAIRED_WITH_BACKUP_MANAGER) {
            double[] t = totals.get(s);
            if (t == null) {
                continue;
            }
            m.verdicts.add(new Report.Verdict("round robin (" + options.rrNodes + " nodes): sessions lost, " + s.label(), "0",
                    String.format(Locale.ROOT, "%,.0f of %,.0f", t[1], t[0]), t[1] == 0));
            TomcatSetup peerSetup = s.sameModeBackupManager();
            double[] peer = totals.get(peerSetup);
            if (peer != null) {
                double ratio = t[2] / peer[2];
                m.verdicts.add(new Report.Verdict("round robin: throughput, " + s.label(), ">= 1.5x " + peerSetup.label(),
                        String.format(Locale.ROOT, "%.2fx (%,.0f vs %,.0f req/s)", ratio, t[2], peer[2]), ratio >= 1.5));
            }
        }
    }

    // ------------------------------------------------------------------ 9: concurrent clients

    /** --configs names the configurations to run (all when empty). */
    private boolean selected(TomcatSetup setup) {
        return options.configs.isEmpty() || options.configs.contains(setup.id());
    }

    /** Ours on embedded Jetty in scenario 9, beside the Tomcat configurations: id and replication options. */
    static final Map<String, Map<String, String>> JETTY_CONCURRENCY = new LinkedHashMap<>();

    static {
        JETTY_CONCURRENCY.put("jetty-ours-async", Map.of("replication-mode", "async", "write-quota", "1"));
        JETTY_CONCURRENCY.put("jetty-ours-sync", Map.of("replication-mode", "sync", "write-quota", "1"));
    }

    /** One cluster under scenario 9's load: where its nodes answer, its session cookie, whether it is ours. */
    private record Shared(String label, List<URI> uris, String cookie, boolean ours, AutoCloseable target) {
    }

    void concurrentClients(Measurements m, Path dir, Consumer<Target> track) throws Exception {
        List<TomcatSetup> setups = catalog.withoutUnavailable(List.of(TomcatSetup.OURS_ASYNC, TomcatSetup.OURS_SYNC, TomcatSetup.BACKUP))
                .stream().filter(this::selected).toList();
        Map<TomcatSetup, TomcatCluster> clusters = startAll(setups, options.ccNodes, dir, track);
        Map<String, Shared> all = new LinkedHashMap<>();
        if (selected(TomcatSetup.OFF)) {
            // the reference: one Tomcat serializes the requests of a session itself
            System.out.println("-- starting " + TomcatSetup.OFF.id() + " (1 node): the single-container reference");
            TomcatCluster single = catalog.startTomcat(TomcatSetup.OFF, 1, dir.resolve("logs").resolve(TomcatSetup.OFF.id()));
            track.accept(single);
            all.put(TomcatSetup.OFF.id(), new Shared("one Tomcat (StandardManager), every client on it", uris(single),
                    TomcatSetup.OFF.cookie(), false, single));
        }
        clusters.forEach((s, c) -> all.put(s.id(), new Shared(s.label(), uris(c), s.cookie(), s.ours(), c)));
        if (options.baselineJar != null && clusters.containsKey(TomcatSetup.OURS_ASYNC)) {
            // the A/B of two builds under this load, interleaved round by round like every other configuration
            Path baseline = Path.of(options.baselineJar).toAbsolutePath();
            System.out.println("-- starting " + Catalog.BASELINE + " (" + options.ccNodes + " nodes): " + baseline);
            TomcatCluster c = catalog.startTomcat(TomcatSetup.OURS_ASYNC, baseline, options.ccNodes,
                    dir.resolve("logs").resolve(Catalog.BASELINE));
            track.accept(c);
            all.put(Catalog.BASELINE, new Shared("sessionrep async, baseline jar (" + baseline.getFileName() + ")", uris(c),
                    TomcatSetup.OURS_ASYNC.cookie(), true, c));
        }
        for (Map.Entry<String, Map<String, String>> jetty : JETTY_CONCURRENCY.entrySet()) {
            if (!options.configs.isEmpty() && !options.configs.contains(jetty.getKey())) {
                continue;
            }
            String mode = jetty.getValue().get("replication-mode");
            System.out.println("-- starting " + jetty.getKey() + " (" + options.ccNodes + " nodes): ours on embedded Jetty, " + mode);
            JettyTarget target = catalog.startJetty(options.ccNodes, jetty.getValue(), dir.resolve("logs").resolve(jetty.getKey()));
            track.accept(target);
            List<URI> uris = target.hosts().stream().map(h -> URI.create("http://" + h + target.path())).toList();
            all.put(jetty.getKey(), new Shared("sessionrep " + mode + " in embedded Jetty 12.1 (ee10)", uris,
                    SessionClient.COOKIE, true, target));
        }
        int each = 10;
        Map<String, List<ClientLoad.Concurrent>> rounds = new LinkedHashMap<>();
        all.keySet().forEach(id -> rounds.put(id, new ArrayList<>()));
        for (int round = 1; round <= options.rounds; round++) {
            for (Map.Entry<String, Shared> e : all.entrySet()) {
                Shared c = e.getValue();
                ClientLoad.Concurrent r = ClientLoad.concurrentClients(c.uris(), c.cookie(), options.clients, each,
                        Duration.ofSeconds(options.segmentSeconds));
                rounds.get(e.getKey()).add(r);
                System.out.printf(Locale.ROOT, "[S9] %-16s round %d: %4d sessions, %5d process sent, %5d answered 200, final versions %5d,"
                                + " %d lost, %d extra, failures %s%n", e.getKey(), round, r.sessions(), r.processSent(), r.processOk(),
                        r.finalVersions(), r.lostUpdates(), r.extraUpdates(), ClientLoad.Failures.format(r.processFailures()));
            }
        }
        for (Shared c : all.values()) {
            c.target().close();
        }
        StringBuilder md = m.section;
        md.append("| configuration | round | sessions | process sent | answered 200 | sum of final versions | updates lost"
                + " | sessions with a loss | applied without a 200 | not 200 / failed (by status) | process sent/s | mean ms |\n");
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |\n");
        for (Map.Entry<String, List<ClientLoad.Concurrent>> e : rounds.entrySet()) {
            long lost = 0;
            long ok = 0;
            int i = 1;
            for (ClientLoad.Concurrent r : e.getValue()) {
                md.append(String.format(Locale.ROOT, "| %s | %d | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %s | %,.0f | %.2f |%n",
                        all.get(e.getKey()).label(), i++, r.sessions(), r.processSent(), r.processOk(), r.finalVersions(), r.lostUpdates(),
                        r.sessionsWithLoss(), r.extraUpdates(), ClientLoad.Failures.format(r.processFailures()), r.throughput(), r.meanMs()));
                lost += r.lostUpdates();
                ok += r.processOk();
            }
            Shared s = all.get(e.getKey());
            if (s.ours()) {
                m.verdicts.add(new Report.Verdict("concurrent clients on one session: updates lost, " + s.label(), "0",
                        String.format(Locale.ROOT, "%,d of %,d successful", lost, ok), lost == 0));
            }
        }
        md.append('\n');
    }

    // ------------------------------------------------------------------ 7: memory

    void memory(Measurements m, Path dir, Consumer<Target> track) throws Exception {
        List<TomcatSetup> setups = catalog.withoutUnavailable(List.of(TomcatSetup.OFF, TomcatSetup.OURS_ASYNC, TomcatSetup.OURS_SYNC,
                TomcatSetup.BACKUP, TomcatSetup.DELTA, TomcatSetup.REDIS));
        int n = options.sessions;
        int number = 2;
        int size = 5;
        long attributeBytes = (long) n * number * size * 1024;
        StringBuilder md = m.section;
        md.append(String.format(Locale.ROOT, "%,d sessions of %d x %d KiB created on node-a (%,.1f MB of attribute bytes),"
                + " then heap used after a full GC (`jcmd <pid> GC.run` twice, then `GC.heap_info`) on node-a (primary)"
                + " and node-b (backup), minus the same measure taken before the sessions were created; measured again every"
                + " 3 s (at most 5 times) until the backup grows by less than 1 %% between two measures. Ratio = heap"
                + " growth / attribute bytes; per session = (growth - attribute bytes) / sessions.%n%n", n, number, size, attributeBytes / 1e6));
        md.append("| configuration | primary (node-a) | ratio | per session beyond the attributes | backup (node-b) | ratio | per session beyond the attributes | notes |\n");
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
        StringBuilder growthShown = new StringBuilder();
        for (TomcatSetup s : setups) {
            int nodes = s == TomcatSetup.OFF ? 1 : 2;
            System.out.println("-- memory: " + s.id() + " (" + nodes + " nodes, " + n + " sessions)");
            TomcatCluster c = catalog.startTomcat(s, nodes, dir.resolve("logs").resolve(s.id()));
            track.accept(c);
            try {
                long[] before = new long[nodes];
                List<HeapHistogram> histogramsBefore = new ArrayList<>();
                for (int i = 0; i < nodes; i++) {
                    before[i] = HeapProbe.usedAfterFullGc(c.nodes().get(i).process().pid());
                    histogramsBefore.add(HeapHistogram.of(c.nodes().get(i).process().pid()));
                }
                long redisBefore = c.redis() == null ? 0 : c.redis().usedMemory();
                long failed = ClientLoad.createSessions(c.nodes().get(0).uri(), s.cookie(), n, 4, number, size);
                // asynchronous copies may still be on their way: measure until the backup stops growing (< 1 %)
                long[] after = new long[nodes];
                int waited = 0;
                for (int attempt = 0; attempt < 5; attempt++) {
                    Thread.sleep(3_000);
                    waited += 3;
                    long[] previous = after.clone();
                    for (int i = 0; i < nodes; i++) {
                        after[i] = HeapProbe.usedAfterFullGc(c.nodes().get(i).process().pid());
                    }
                    if (nodes < 2 || attempt > 0 && Math.abs(after[1] - previous[1]) < 0.01 * Math.max(1, after[1] - before[1])) {
                        break;
                    }
                }
                String growth = writeGrowth(dir, s, c, histogramsBefore, n);
                if (s == TomcatSetup.OFF || s == TomcatSetup.OURS_ASYNC) {
                    growthShown.append("**").append(s.label()).append("**\n\n```\n").append(growth).append("```\n\n");
                }
                String notes = (failed == 0 ? "" : failed + " initialize requests failed; ") + "measured " + waited + " s after the last session";
                if (s == TomcatSetup.REDIS) {
                    notes = "the sessions live in Redis; the Tomcat heaps only show the filter's caches. " + notes;
                }
                if (c.redis() != null) {
                    long redis = c.redis().usedMemory() - redisBefore;
                    notes += String.format(Locale.ROOT, "%sredis-server used_memory +%.1f MB (%.2fx, %,.0f B per session beyond the attributes),"
                                    + " %s keys", notes.isEmpty() ? "" : "; ", redis / 1e6, (double) redis / attributeBytes,
                            (double) (redis - attributeBytes) / n, c.redis().command("DBSIZE"));
                }
                String backupCells = nodes < 2 ? "- | - | -" : cells(after[1] - before[1], attributeBytes, n);
                md.append("| ").append(s.label()).append(" | ").append(cells(after[0] - before[0], attributeBytes, n)).append(" | ")
                        .append(backupCells).append(" | ").append(notes).append(" |\n");
                System.out.printf(Locale.ROOT, "[S7] %-14s primary %+.1f MB, backup %s%n", s.id(), (after[0] - before[0]) / 1e6,
                        nodes < 2 ? "-" : String.format(Locale.ROOT, "%+.1f MB", (after[1] - before[1]) / 1e6));
                if (s == TomcatSetup.OURS_ASYNC) {
                    double primary = (double) (after[0] - before[0]) / attributeBytes;
                    double backup = (double) (after[1] - before[1]) / attributeBytes;
                    m.verdicts.add(new Report.Verdict("heap on the primary (ours async)", "<= 1.2x attribute bytes",
                            String.format(Locale.ROOT, "%.2fx", primary), primary <= 1.2));
                    m.verdicts.add(new Report.Verdict("heap on the backup (ours async)", "<= 1.1x attribute bytes",
                            String.format(Locale.ROOT, "%.2fx", backup), backup <= 1.1));
                }
            } finally {
                c.close();
            }
        }
        md.append('\n');
        if (!growthShown.isEmpty()) {
            md.append("Where the heap growth went, by class (`jcmd <pid> GC.class_histogram` after the sessions minus before;"
                    + " the largest growths; every configuration's in `raw/s7/growth-<configuration>.txt`):\n\n").append(growthShown);
        }
    }

    /** What grew on each node, by class, into {@code raw/s7/growth-<configuration>.txt} (where the heap went). */
    private static String writeGrowth(Path dir, TomcatSetup s, TomcatCluster c, List<HeapHistogram> before, int sessions)
            throws IOException, InterruptedException {
        StringBuilder out = new StringBuilder();
        StringBuilder shown = new StringBuilder();
        for (int i = 0; i < before.size(); i++) {
            List<HeapHistogram.Growth> growth = HeapHistogram.of(c.nodes().get(i).process().pid()).growthSince(before.get(i));
            String node = c.nodes().get(i).name() + (i == 0 ? " (primary)" : " (backup)");
            out.append("== ").append(node).append(": growth by class, jcmd GC.class_histogram after minus before\n")
                    .append(HeapHistogram.describe(growth, 30, sessions)).append('\n');
            shown.append(node).append(": ").append(HeapHistogram.describe(growth, 15, sessions)).append('\n');
        }
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("growth-" + s.id() + ".txt"), out.toString());
        return shown.toString();
    }

    private static String cells(long growth, long attributeBytes, int sessions) {
        return String.format(Locale.ROOT, "%+.1f MB | %.2fx | %,.0f B", growth / 1e6, (double) growth / attributeBytes,
                (double) (growth - attributeBytes) / sessions);
    }

    // ------------------------------------------------------------------ 10: fail-over

    void failover(Measurements m, Path dir, Consumer<Target> track) throws Exception {
        List<TomcatSetup> setups = catalog.withoutUnavailable(List.of(TomcatSetup.OURS_ASYNC, TomcatSetup.OURS_SYNC, TomcatSetup.BACKUP,
                TomcatSetup.DELTA, TomcatSetup.REDIS));
        int count = Math.max(20, Math.min(200, options.sessions / 10));
        StringBuilder md = m.section;
        md.append(String.format(Locale.ROOT, "%d sessions created on node-a (initialize 2 x 5 KiB, one process: version 1), 1 s of"
                + " quiet, `kill -9` of node-a, then every session verified on node-b.%n%n", count));
        md.append("| configuration | sessions | readable on node-b with version 1 and the same checksum | other version | no session (404) | other answers | first answer after the kill |\n");
        md.append("| --- | ---: | ---: | ---: | ---: | --- | ---: |\n");
        HttpClient http = SessionClient.newHttpClient();
        for (TomcatSetup s : setups) {
            System.out.println("-- fail-over: " + s.id());
            TomcatCluster c = catalog.startTomcat(s, 2, dir.resolve("logs").resolve(s.id()));
            track.accept(c);
            try {
                URI a = c.nodes().get(0).uri();
                URI b = c.nodes().get(1).uri();
                List<HttpUser> users = new ArrayList<>();
                List<String> checksums = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    HttpUser u = new HttpUser(http, ClientLoad.REQUEST_TIMEOUT, s.cookie());
                    u.initialize(a, 2, 5);
                    SessionReply p = u.process(a);
                    users.add(u);
                    checksums.add(p.status() == 200 ? p.checksum() : null);
                }
                Thread.sleep(1_000);
                long killed = System.nanoTime();
                c.kill(0);
                int same = 0;
                int otherVersion = 0;
                int missing = 0;
                ClientLoad.Failures others = new ClientLoad.Failures();
                double firstMs = -1;
                for (int i = 0; i < count; i++) {
                    SessionReply r;
                    try {
                        r = users.get(i).verify(b);
                    } catch (java.io.IOException e) {
                        others.add(e instanceof java.net.http.HttpTimeoutException ? "timeout" : "io");
                        continue;
                    }
                    if (firstMs < 0) {
                        firstMs = (System.nanoTime() - killed) / 1e6;
                    }
                    if (r.status() == 200 && Integer.valueOf(1).equals(r.version()) && java.util.Objects.equals(r.checksum(), checksums.get(i))) {
                        same++;
                    } else if (r.status() == 200 && r.version() != null) {
                        otherVersion++;
                    } else if (r.status() == 404) {
                        missing++;
                    } else {
                        others.add(r.status() == 200 ? "200 without the servlet's answer" : Integer.toString(r.status()));
                    }
                }
                md.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %s | %.0f ms |%n", s.label(), count, same, otherVersion,
                        missing, ClientLoad.Failures.format(others.snapshot()), firstMs));
                System.out.printf(Locale.ROOT, "[S10] %-14s %d of %d sessions intact on node-b after kill -9 of node-a%n", s.id(), same, count);
                if (s.ours() || s == TomcatSetup.REDIS) {
                    m.verdicts.add(new Report.Verdict("fail-over after kill -9: sessions intact, " + s.label(), "all",
                            same + " of " + count, same == count));
                }
            } finally {
                c.close();
            }
        }
        md.append('\n');
    }
}
