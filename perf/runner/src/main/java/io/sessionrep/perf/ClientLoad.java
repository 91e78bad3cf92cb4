package io.sessionrep.perf;

import io.sessionrep.testservlet.SessionClient;
import io.sessionrep.testservlet.SessionReply;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The workloads of the non-sticky scenarios, driven by the runner's own client (the JDK HTTP client, one
 * cookie per simulated user sent to whichever node a request goes to, any {@code Set-Cookie} taken, as a
 * browser behind a balancer without affinity):
 * <ul>
 *   <li>{@link #roundRobin}: the seed workload (initialize, process x4, verify; then destroy, so that sessions
 *       do not pile up) with every request of a session sent to the next node in turn;</li>
 *   <li>{@link #concurrentClients}: several clients share one session (and one cookie, as the parallel
 *       requests of one browser do), each pinned to its own node, each sends N {@code process}; the session's
 *       final version is compared with the number of successful answers.</li>
 * </ul>
 * An answer other than 200 (or a 200 that is not the servlet's JSON) is never a success; it is counted by
 * status code, a request that timed out (no answer within {@link #REQUEST_TIMEOUT}) or failed at the
 * connection level separately.
 */
final class ClientLoad {

    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private ClientLoad() {
    }

    /** Non-200 answers and client-side failures, by kind ("404", "503", "timeout", "io"). */
    static final class Failures {
        private final Map<String, LongAdder> byKind = new java.util.concurrent.ConcurrentSkipListMap<>();

        void add(String kind) {
            byKind.computeIfAbsent(kind, k -> new LongAdder()).increment();
        }

        Map<String, Long> snapshot() {
            Map<String, Long> m = new TreeMap<>();
            byKind.forEach((k, v) -> m.put(k, v.sum()));
            return m;
        }

        long total() {
            return byKind.values().stream().mapToLong(LongAdder::sum).sum();
        }

        static String format(Map<String, Long> m) {
            if (m.isEmpty()) {
                return "none";
            }
            StringBuilder b = new StringBuilder();
            m.forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append(": ").append(v));
            return b.toString();
        }
    }

    /**
     * One round-robin segment's outcome.
     *
     * @param verified    sessions whose verify answered 200 with exactly the successful process count
     * @param wrongVersion verify answered 200 with another version (lost updates, or extra ones)
     * @param noSession   verify answered 404: the session was lost
     * @param aborted     sessions that could not be verified (initialize or verify failed otherwise)
     * @param lostUpdates process answers that were 200 but are missing from the verified version
     */
    record RoundRobin(int nodes, int threads, double seconds, long requests, double meanMs, long sessions, long verified,
                      long wrongVersion, long noSession, long aborted, long lostUpdates, long processOk,
                      Map<String, Long> processFailures, Map<String, Long> otherFailures) {
        double throughput() {
            return requests / seconds;
        }

        long lostSessions() {
            return wrongVersion + noSession;
        }
    }

    static RoundRobin roundRobin(List<URI> nodes, String cookie, int threads, int number, int sizeKiB, Duration duration)
            throws Exception {
        HttpClient http = SessionClient.newHttpClient();
        LongAdder requests = new LongAdder();
        LongAdder nanos = new LongAdder();
        LongAdder sessions = new LongAdder();
        LongAdder verified = new LongAdder();
        LongAdder wrong = new LongAdder();
        LongAdder noSession = new LongAdder();
        LongAdder aborted = new LongAdder();
        LongAdder lost = new LongAdder();
        LongAdder processOk = new LongAdder();
        Failures processFailures = new Failures();
        Failures other = new Failures();
        int n = nodes.size();
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    int iteration = 0;
                    while (System.nanoTime() < end) {
                        int first = (thread + iteration++) % n;
                        HttpUser user = new HttpUser(http, REQUEST_TIMEOUT, cookie);
                        Timed init = timed(() -> user.initialize(nodes.get(first), number, sizeKiB), requests, nanos);
                        if (!init.ok()) {
                            other.add("initialize " + init.kind());
                            continue;
                        }
                        sessions.increment();
                        int successes = 0;
                        int version = init.reply().version();
                        for (int p = 1; p <= 4; p++) {
                            int from = version;
                            URI node = nodes.get((first + p) % n);
                            Timed r = timed(() -> user.process(node, from), requests, nanos);
                            if (r.ok()) {
                                successes++;
                                version = r.reply().version();
                            } else {
                                processFailures.add(r.kind());
                            }
                        }
                        processOk.add(successes);
                        Timed verify = timed(() -> user.verify(nodes.get((first + 5) % n)), requests, nanos);
                        if (verify.ok()) {
                            int seen = verify.reply().version();
                            if (seen == successes) {
                                verified.increment();
                            } else {
                                wrong.increment();
                                lost.add(Math.max(0, successes - seen));
                            }
                        } else if (verify.reply() != null && verify.reply().status() == 404) {
                            noSession.increment();
                            lost.add(successes);
                        } else {
                            aborted.increment();
                            other.add("verify " + verify.kind());
                        }
                        Timed destroy = timed(() -> user.destroy(nodes.get((first + 6) % n)), requests, nanos);
                        if (!destroy.ok() && !(destroy.reply() != null && destroy.reply().status() == 404)) {
                            other.add("destroy " + destroy.kind());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long count = requests.sum();
        return new RoundRobin(n, threads, seconds, count, count == 0 ? Double.NaN : nanos.sum() / 1e6 / count,
                sessions.sum(), verified.sum(), wrong.sum(), noSession.sum(), aborted.sum(), lost.sum(), processOk.sum(),
                processFailures.snapshot(), other.snapshot());
    }

    /**
     * One concurrent-clients segment's outcome, over all its sessions.
     *
     * @param processOk   process answers 200 (successes)
     * @param finalVersions sum over sessions of the version the final verify showed
     * @param lostUpdates sum over sessions of max(0, successes - final version); every success of a session whose
     *                    final verify failed
     * @param extraUpdates sum over sessions of max(0, final version - successes): applied without a 200 answer
     */
    record Concurrent(int nodes, int clients, int processEach, double seconds, long sessions, long processSent, long processOk,
                      long finalVersions, long lostUpdates, long extraUpdates, long sessionsWithLoss, long unverified,
                      Map<String, Long> processFailures, double meanMs) {
        double throughput() {
            return processSent / seconds;
        }
    }

    static Concurrent concurrentClients(List<URI> nodes, String cookie, int clients, int processEach, Duration duration)
            throws Exception {
        HttpClient http = SessionClient.newHttpClient();
        Failures failures = new Failures();
        long sessions = 0;
        long sent = 0;
        long ok = 0;
        long finals = 0;
        long lost = 0;
        long extra = 0;
        long withLoss = 0;
        long unverified = 0;
        LongAdder requests = new LongAdder();
        LongAdder nanos = new LongAdder();
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            while (System.nanoTime() < end || sessions == 0) {
                HttpUser owner = new HttpUser(http, REQUEST_TIMEOUT, cookie);
                Timed init = timed(() -> owner.initialize(nodes.get(0), 2, 5), requests, nanos);
                if (!init.ok()) {
                    failures.add("initialize " + init.kind());
                    continue;
                }
                sessions++;
                // one cookie for all clients of the session, as the tabs or parallel requests of one browser share
                // its cookie jar: a Set-Cookie any of them gets (a route rewrite, a new id) is what the next one sends
                List<Future<Integer>> done = new ArrayList<>();
                List<Answer> answers = java.util.Collections.synchronizedList(new ArrayList<>());
                long sessionStart = System.nanoTime();
                for (int c = 0; c < clients; c++) {
                    URI node = nodes.get(c % nodes.size());
                    int client = c;
                    done.add(pool.submit(() -> {
                        int successes = 0;
                        for (int i = 0; i < processEach; i++) {
                            long sentAt = System.nanoTime();
                            Timed r = timed(() -> owner.process(node), requests, nanos);
                            if (r.ok()) {
                                successes++;
                                answers.add(new Answer(client, r.reply().node(), r.reply().version(),
                                        (sentAt - sessionStart) / 1_000, (System.nanoTime() - sessionStart) / 1_000));
                            } else {
                                failures.add(r.kind());
                            }
                        }
                        return successes;
                    }));
                }
                int successes = 0;
                for (Future<Integer> f : done) {
                    successes += f.get();
                }
                sent += (long) clients * processEach;
                ok += successes;
                Timed verify = timed(() -> owner.verify(nodes.get(0)), requests, nanos);
                if (!verify.ok()) {
                    // the user can no longer read the session: every update it had acknowledged is gone for it
                    unverified++;
                    lost += successes;
                    withLoss += successes > 0 ? 1 : 0;
                    failures.add("final verify " + verify.kind());
                    continue;
                }
                int version = verify.reply().version();
                finals += version;
                lost += Math.max(0, successes - version);
                extra += Math.max(0, version - successes);
                if (version < successes) {
                    withLoss++;
                    if (withLoss <= 20) { // which sessions, so that the nodes' logs can be searched (short form)
                        String id = verify.reply().session();
                        System.out.printf(Locale.ROOT, "[S9] session %s: final version %d, %d process answered 200 (from"
                                        + " node-a's clock at %s); the answers by version:%n%s",
                                id == null ? "?" : io.sessionrep.core.LogIds.shortForm(io.sessionrep.core.ReplicationNode.clusterId(id)),
                                version, successes, java.time.Instant.now(), Answer.describe(answers));
                    }
                }
                timed(() -> owner.destroy(nodes.get(0)), requests, nanos);
            }
        } finally {
            pool.shutdownNow();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long count = requests.sum();
        return new Concurrent(nodes.size(), clients, processEach, seconds, sessions, sent, ok, finals, lost, extra, withLoss,
                unverified, failures.snapshot(), count == 0 ? Double.NaN : nanos.sum() / 1e6 / count);
    }

    /**
     * One successful {@code process} answer of scenario 9: which client sent it, which node answered, the
     * version it reported, and when it was sent and answered (microseconds since the session's clients
     * started). Two answers with one version are the two requests that read the same state: one update lost.
     */
    record Answer(int client, String node, Integer version, long sentMicros, long answeredMicros) {
        static String describe(List<Answer> answers) {
            List<Answer> sorted;
            synchronized (answers) {
                sorted = new ArrayList<>(answers);
            }
            sorted.sort(java.util.Comparator.comparing((Answer a) -> a.version() == null ? -1 : a.version())
                    .thenComparingLong(Answer::sentMicros));
            StringBuilder out = new StringBuilder();
            Integer previous = null;
            for (Answer a : sorted) {
                boolean repeated = previous != null && previous.equals(a.version());
                out.append(String.format(Locale.ROOT, "[S9]   version %3s from %-8s client %d, sent +%,d us, answered +%,d us%s%n",
                        a.version(), a.node(), a.client(), a.sentMicros(), a.answeredMicros(),
                        repeated ? "   <- the same version again" : ""));
                previous = a.version();
            }
            return out.toString();
        }
    }

    @FunctionalInterface
    private interface Call {
        SessionReply send() throws IOException, InterruptedException;
    }

    /** An answer (null if none came) and what kind of failure it was, if any. */
    private record Timed(SessionReply reply, String failure) {
        boolean ok() {
            return failure == null;
        }

        String kind() {
            return failure;
        }
    }

    private static Timed timed(Call call, LongAdder requests, LongAdder nanos) throws InterruptedException {
        long t0 = System.nanoTime();
        try {
            SessionReply reply = call.send();
            if (reply.status() == 200 && reply.version() == null) {
                return new Timed(reply, "200 without the servlet's answer");
            }
            return new Timed(reply, reply.status() == 200 ? null : Integer.toString(reply.status()));
        } catch (HttpTimeoutException e) {
            return new Timed(null, "timeout");
        } catch (IOException e) {
            return new Timed(null, "io");
        } catch (RuntimeException e) {
            return new Timed(null, "unreadable answer (" + e.getClass().getSimpleName() + ")");
        } finally {
            requests.increment();
            nanos.add(System.nanoTime() - t0);
        }
    }

    /** Creates {@code count} sessions on one node ({@code threads} users at a time); returns how many failed. */
    static long createSessions(URI node, String cookie, int count, int threads, int number, int sizeKiB) throws Exception {
        HttpClient http = SessionClient.newHttpClient();
        AtomicLong next = new AtomicLong();
        LongAdder failed = new LongAdder();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    while (next.getAndIncrement() < count) {
                        SessionReply r = new HttpUser(http, REQUEST_TIMEOUT, cookie).initialize(node, number, sizeKiB);
                        if (r.status() != 200) {
                            failed.increment();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        return failed.sum();
    }
}
