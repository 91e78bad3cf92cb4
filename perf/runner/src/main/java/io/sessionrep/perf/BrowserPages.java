package io.sessionrep.perf;

import io.sessionrep.testservlet.SessionClient;
import io.sessionrep.testservlet.SessionReply;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;

/**
 * Browsers behind a round-robin balancer without affinity, loading pages of one web application: each browser
 * has one cookie (one session, created by an {@code initialize} of {@code number x sizeKiB}) and loops over
 * pages, no think time. A page is one request that writes the session (the test servlet's {@code process},
 * with {@code from=N} so that a request the HTTP client resent is not counted twice), then, once it answered,
 * every static file of the application fetched in parallel over at most {@value #CONNECTIONS} connections,
 * as a browser fetches a page's style sheets, scripts and images. Every request of a browser goes to the next
 * node in turn, and each page starts one node further than the page before (with 2 nodes and an even number of
 * files the two rules are one; with 3 nodes and 8 files the plain rotation would send every write of a browser
 * to the same node): no two consecutive writes of a browser on one node. At the end each browser reads its
 * session back on the next node: increments lost = writes answered 200 that the version read back does not
 * count.
 */
final class BrowserPages {

    /** Parallel requests per browser (what browsers open per host). */
    static final int CONNECTIONS = 6;

    /**
     * One run's outcome, every latency in microseconds.
     *
     * @param writesOk          writes answered 200 with the servlet's answer
     * @param incrementsLost    sum over the browsers of max(0, writes answered 200 - version read back); all of a
     *                          browser's successful writes when its read-back failed
     * @param extraIncrements   sum over the browsers of max(0, version read back - writes answered 200)
     * @param unreadable        browsers whose final read did not answer 200
     * @param failures          requests that did not answer as expected, by kind ("write 404", "static timeout", ...)
     */
    record Outcome(int nodes, int browsers, double seconds, long pages, Histogram pageLoad, Histogram staticFiles,
                   Histogram writes, long writesOk, long incrementsLost, long extraIncrements, long unreadable,
                   Map<String, Long> failures) {

        double pagesPerSecond() {
            return pages / seconds;
        }

        long failed() {
            return failures.values().stream().mapToLong(Long::longValue).sum();
        }

        /** This outcome and {@code other} together (rounds of one configuration): sums and merged histograms. */
        Outcome plus(Outcome other) {
            Histogram page = pageLoad.copy();
            page.add(other.pageLoad);
            Histogram files = staticFiles.copy();
            files.add(other.staticFiles);
            Histogram write = writes.copy();
            write.add(other.writes);
            Map<String, Long> all = new java.util.TreeMap<>(failures);
            other.failures.forEach((k, v) -> all.merge(k, v, Long::sum));
            return new Outcome(nodes, browsers, seconds + other.seconds, pages + other.pages, page, files, write,
                    writesOk + other.writesOk, incrementsLost + other.incrementsLost, extraIncrements + other.extraIncrements,
                    unreadable + other.unreadable, all);
        }
    }

    /** Where the application of one node answers: its context root, e.g. {@code http://127.0.0.1:8080/session-test/}. */
    private final List<URI> roots;
    private final String servletPath;
    private final String cookieName;
    private final StaticFiles files;
    private final Duration timeout;

    /**
     * @param roots       the context root of each node, ending in {@code /}
     * @param servletPath the test servlet relative to the root ({@code session})
     */
    BrowserPages(List<URI> roots, String servletPath, String cookieName, StaticFiles files, Duration timeout) {
        this.roots = List.copyOf(roots);
        this.servletPath = servletPath;
        this.cookieName = cookieName;
        this.files = files;
        this.timeout = timeout;
    }

    /** {@code browsers} browsers loading pages for {@code duration}, sessions of {@code number x sizeKiB}. */
    Outcome run(int browsers, int number, int sizeKiB, Duration duration) throws Exception {
        HttpClient http = SessionClient.newHttpClient();
        Histogram pageLoad = new ConcurrentHistogram(3);
        Histogram staticFiles = new ConcurrentHistogram(3);
        Histogram writes = new ConcurrentHistogram(3);
        LongAdder pages = new LongAdder();
        LongAdder writesOk = new LongAdder();
        LongAdder lost = new LongAdder();
        LongAdder extra = new LongAdder();
        LongAdder unreadable = new LongAdder();
        ClientLoad.Failures failures = new ClientLoad.Failures();
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        ExecutorService browserThreads = Executors.newFixedThreadPool(browsers);
        List<ExecutorService> connections = new ArrayList<>();
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int b = 0; b < browsers; b++) {
                ExecutorService parallel = Executors.newFixedThreadPool(CONNECTIONS);
                connections.add(parallel);
                int first = b; // browser b starts on node b mod n: the sessions are spread over the nodes
                running.add(browserThreads.submit(() -> {
                    Browser browser = new Browser(new HttpUser(http, timeout, cookieName), first, parallel);
                    SessionReply created = browser.write(() -> browser.user.initialize(browser.servlet(), number, sizeKiB), failures,
                            "initialize", null);
                    if (created == null) {
                        return null;
                    }
                    int version = created.version();
                    long successes = 0;
                    while (System.nanoTime() < end) {
                        browser.startPage();
                        long t0 = System.nanoTime();
                        int from = version;
                        SessionReply written = browser.write(() -> browser.user.process(browser.servlet(), from), failures, "write",
                                writes);
                        if (written != null) {
                            successes++;
                            writesOk.increment();
                            version = written.version();
                        }
                        browser.staticFiles(failures, staticFiles);
                        pageLoad.recordValue((System.nanoTime() - t0) / 1_000);
                        pages.increment();
                    }
                    SessionReply read = browser.write(() -> browser.user.verify(browser.servlet()), failures, "read back", null);
                    if (read == null) {
                        unreadable.increment();
                        lost.add(successes);
                    } else {
                        // counted from the version initialize answered, as the writes were
                        long counted = read.version() - created.version();
                        lost.add(Math.max(0, successes - counted));
                        extra.add(Math.max(0, counted - successes));
                        browser.write(() -> browser.user.destroy(browser.servlet()), failures, "destroy", null);
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
        } finally {
            browserThreads.shutdownNow();
            connections.forEach(ExecutorService::shutdownNow);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Outcome(roots.size(), browsers, seconds, pages.sum(), pageLoad, staticFiles, writes, writesOk.sum(), lost.sum(),
                extra.sum(), unreadable.sum(), failures.snapshot());
    }

    @FunctionalInterface
    private interface Call {
        SessionReply send() throws IOException, InterruptedException;
    }

    /** One browser: its cookie jar, the node its next request goes to, its connections for a page's files. */
    private final class Browser {
        final HttpUser user;
        final ExecutorService parallel;
        private final int first;
        private int next;
        private int pages;

        Browser(HttpUser user, int first, ExecutorService parallel) {
            this.user = user;
            this.first = first;
            this.next = first;
            this.parallel = parallel;
        }

        /** A new page: its write goes to the node after the one of the page before (the first after initialize's). */
        void startPage() {
            next = first + 1 + pages++;
        }

        /** The node of the next request, round robin (called by the browser's own thread only). */
        URI nextRoot() {
            return roots.get(next++ % roots.size());
        }

        URI servlet() {
            return nextRoot().resolve(servletPath);
        }

        /**
         * The servlet's answer if 200 with its fields, else null with the failure counted; a successful call's time
         * goes into {@code latency} (a failed write's time says nothing of writing).
         */
        SessionReply write(Call call, ClientLoad.Failures failures, String what, Histogram latency) throws InterruptedException {
            long t0 = System.nanoTime();
            try {
                SessionReply reply = call.send();
                if (reply.status() == 200 && reply.version() != null) {
                    if (latency != null) {
                        latency.recordValue((System.nanoTime() - t0) / 1_000);
                    }
                    return reply;
                }
                failures.add(what + " " + (reply.status() == 200 ? "200 without the servlet's answer" : reply.status()));
            } catch (HttpTimeoutException e) {
                failures.add(what + " timeout");
            } catch (IOException e) {
                failures.add(what + " io");
            }
            return null;
        }

        /** Every static file, each to the next node, in parallel; returns when all answered. */
        void staticFiles(ClientLoad.Failures failures, Histogram latency) throws InterruptedException {
            List<Future<?>> fetches = new ArrayList<>();
            for (StaticFiles.File file : files.files()) {
                URI uri = nextRoot().resolve(file.path());
                fetches.add(parallel.submit(() -> {
                    long t0 = System.nanoTime();
                    try {
                        HttpUser.Fetched got = user.fetch(uri);
                        if (got.status() != 200) {
                            failures.add("static " + got.status());
                        } else if (got.bytes() != file.bytes()) {
                            failures.add("static file incomplete");
                        }
                    } catch (HttpTimeoutException e) {
                        failures.add("static timeout");
                    } catch (IOException e) {
                        failures.add("static io");
                    } finally {
                        latency.recordValue((System.nanoTime() - t0) / 1_000);
                    }
                    return null;
                }));
            }
            for (Future<?> f : fetches) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    failures.add("static " + e.getCause().getClass().getSimpleName());
                }
            }
        }
    }
}
