package io.sessionrep.testservlet;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Load without session affinity, as a balancer without stickiness sends it, against the test servlet on
 * several nodes. Two shapes:
 * <ul>
 *   <li>{@link #roundRobin}: each client runs the sample servlet's journey (initialize, process x N, verify) and
 *       sends every request of its session to the next node in turn. A session is <b>lost</b> when its
 *       verify does not show exactly the number of process requests that were answered 200.</li>
 *   <li>{@link #sharedSession}: several clients share one session, each pinned to its own node, and
 *       process concurrently. The final version must equal the number of process requests answered 200.</li>
 * </ul>
 * A request answered 503 (a hand-over that did not come within {@code ownership-timeout}) is counted as
 * <b>refused</b>, not as a success: it ran no application code. Bounded in time; no thread outlives a run.
 */
public final class NonStickyLoad {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private NonStickyLoad() {
    }

    /** What a run saw. {@code examples}: the first few lost sessions, described. */
    public record Result(int sessions, int lost, long processed, long refused, long errors, long requests,
                         double seconds, List<String> examples) {
        public double requestsPerSecond() {
            return seconds <= 0 ? 0 : requests / seconds;
        }

        @Override
        public String toString() {
            return String.format("%d sessions, %d lost, %d process answered 200, %d refused (503), %d errors, %d requests"
                    + " in %.1f s (%.0f req/s)%s", sessions, lost, processed, refused, errors, requests, seconds,
                    requestsPerSecond(), examples.isEmpty() ? "" : "; lost: " + examples);
        }
    }

    /**
     * {@code clients} users for {@code duration}, each session: initialize (2 x 5 KiB) on one node, then
     * {@code processes} x process and a verify, each on the next node of {@code sessionUris}.
     */
    public static Result roundRobin(List<URI> sessionUris, String cookieName, int clients, Duration duration,
                                    int processes) throws InterruptedException {
        HttpClient http = SessionClient.newHttpClient();
        AtomicInteger sessions = new AtomicInteger();
        AtomicInteger lost = new AtomicInteger();
        AtomicLong processed = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong requests = new AtomicLong();
        List<String> examples = Collections.synchronizedList(new ArrayList<>());
        long started = System.nanoTime();
        long deadline = started + duration.toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int offset = c;
                running.add(pool.submit(() -> {
                    int next = offset;
                    while (System.nanoTime() < deadline) {
                        SessionClient user = new SessionClient(http, REQUEST_TIMEOUT, cookieName);
                        try {
                            SessionReply created = user.initialize(node(sessionUris, next++), 2, 5);
                            requests.incrementAndGet();
                            if (created.status() != 200) {
                                errors.incrementAndGet();
                                continue;
                            }
                            int ok = 0;
                            int version = 0;
                            List<String> trail = new ArrayList<>();
                            for (int p = 0; p < processes; p++) {
                                SessionReply reply = user.process(node(sessionUris, next++), version);
                                requests.incrementAndGet();
                                trail.add(reply.status() + (reply.status() == 200 ? "@" + reply.node() + ":v" + reply.version() : ""));
                                if (reply.status() == 200) {
                                    ok++;
                                    version = reply.version();
                                    processed.incrementAndGet();
                                } else if (reply.status() == 503) {
                                    refused.incrementAndGet();
                                } else {
                                    errors.incrementAndGet();
                                }
                            }
                            SessionReply verified = user.verify(node(sessionUris, next++));
                            requests.incrementAndGet();
                            sessions.incrementAndGet();
                            if (verified.status() != 200 || verified.version() == null || verified.version() != ok) {
                                lost.incrementAndGet();
                                if (examples.size() < 5) {
                                    examples.add("process " + trail + " then verify " + verified.status() + "@"
                                            + verified.node() + ":v" + verified.version() + " (expected v" + ok + ")");
                                }
                            }
                        } catch (IOException e) {
                            errors.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                try {
                    f.get(duration.toMillis() + REQUEST_TIMEOUT.toMillis() * 8, TimeUnit.MILLISECONDS);
                } catch (Exception e) {
                    errors.incrementAndGet();
                }
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
        return new Result(sessions.get(), lost.get(), processed.get(), refused.get(), errors.get(), requests.get(),
                (System.nanoTime() - started) / 1e9, List.copyOf(examples));
    }

    /**
     * One session created on the first node, then one client per node of {@code sessionUris}, all at once,
     * each sending {@code processesEach} process requests to its own node. Result: one "session", lost = 1
     * when its final version is not the number of process requests answered 200.
     */
    public static Result sharedSession(List<URI> sessionUris, String cookieName, int processesEach)
            throws InterruptedException, IOException {
        HttpClient http = SessionClient.newHttpClient();
        long started = System.nanoTime();
        SessionClient creator = new SessionClient(http, REQUEST_TIMEOUT, cookieName);
        SessionReply created = creator.initialize(sessionUris.get(0), 2, 5);
        if (created.status() != 200) {
            throw new IOException("initialize failed: " + created);
        }
        AtomicLong processed = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong requests = new AtomicLong(1);
        ExecutorService pool = Executors.newFixedThreadPool(sessionUris.size());
        try {
            List<Future<?>> running = new ArrayList<>();
            for (URI node : sessionUris) {
                running.add(pool.submit(() -> {
                    SessionClient user = new SessionClient(http, REQUEST_TIMEOUT, cookieName);
                    user.cookie(creator.cookie());
                    for (int i = 0; i < processesEach; i++) {
                        SessionReply reply = user.process(node);
                        requests.incrementAndGet();
                        if (reply.status() == 200) {
                            processed.incrementAndGet();
                        } else if (reply.status() == 503) {
                            refused.incrementAndGet();
                        } else {
                            errors.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                try {
                    f.get(REQUEST_TIMEOUT.toMillis() * (processesEach + 2L), TimeUnit.MILLISECONDS);
                } catch (Exception e) {
                    errors.incrementAndGet();
                }
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
        SessionReply verified = creator.verify(sessionUris.get(sessionUris.size() - 1));
        requests.incrementAndGet();
        boolean exact = verified.status() == 200 && verified.version() != null && verified.version() == processed.get();
        return new Result(1, exact ? 0 : 1, processed.get(), refused.get(), errors.get(), requests.get(),
                (System.nanoTime() - started) / 1e9,
                exact ? List.of() : List.of("final " + verified.status() + ":v" + verified.version() + ", expected v" + processed.get()));
    }

    private static URI node(List<URI> nodes, int i) {
        return nodes.get(Math.floorMod(i, nodes.size()));
    }
}
