package io.sessionrep.testservlet.chaos;

import io.sessionrep.testservlet.NodeProcess;
import io.sessionrep.testservlet.SessionClient;
import io.sessionrep.testservlet.SessionReply;
import io.sessionrep.testservlet.Workload;

import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The load of the chaos ITs: {@code threads} client threads, each owning some of {@code sessions} sessions
 * and sending {@code process} to the current {@link #target} round-robin, no think time. The target is where
 * a load balancer sends everyone; {@link #failOver} moves it (after a crash), and then each session's first
 * request on the new target is a {@code verify} whose answer is checked against what the client knew
 * (version + checksum, {@link #check}), before processing continues from there.
 *
 * <p>Per session the client knows the last version whose answer it received (acknowledged) and whether a
 * request was in flight when the target died. Each {@code process} names that version ({@code from}), so a
 * request the JDK HTTP client sends a second time on its own (it retries a GET once when the pooled
 * connection fails before an answer came; its pool has a race that closes a reused connection as a fast
 * answer arrives) is not processed twice: it is answered as {@code replayed} and counted ({@link #replays}).
 * A session's whole state follows from its version ({@link Workload#expected}), so an answer is either
 * exactly some version or corrupt.
 *
 * <p>What a session may lack after a crash is bounded in time, not in versions: every version acknowledged more
 * than {@code maxLag} before the crash must have survived (sync: {@code maxLag} zero, nothing acknowledged may be
 * lost). Async replication loses what was still on its way when the primary died; how many versions of one session
 * that is depends on how fast its client was going, how long it was on its way does not.
 */
final class ChaosLoad implements AutoCloseable {

    static final int NUMBER = 2;
    static final int SIZE_KIB = 5;

    /** Where the load goes, and since when (epoch counts the moves). */
    record Target(int epoch, NodeProcess node) {
    }

    static final class Tracked {
        final int index;
        final SessionClient client;
        String id;
        volatile int acknowledged;
        volatile String checksum;
        volatile boolean inFlight;
        /** The epoch of the target this session was last verified or processed on. */
        volatile int epoch;
        /** acknowledged when the session arrived on its current target (progress is counted from it). */
        volatile int base;
        /** When each of the last {@link #REMEMBERED} versions was acknowledged (nanoTime), by version modulo. */
        private final long[] acknowledgedAt = new long[REMEMBERED];
        static final int REMEMBERED = 256;

        void acknowledge(int version, long at) {
            acknowledged = version;
            acknowledgedAt[Math.floorMod(version, REMEMBERED)] = at;
        }

        /** When {@code version} was acknowledged, or empty if not among the last remembered ones. */
        OptionalLong acknowledgedAt(int version) {
            if (version > acknowledged || acknowledged - version >= REMEMBERED || version < base) {
                return OptionalLong.empty();
            }
            return OptionalLong.of(acknowledgedAt[Math.floorMod(version, REMEMBERED)]);
        }

        Tracked(int index, HttpClient http, Duration timeout) {
            this.index = index;
            this.client = new SessionClient(http, timeout);
        }
    }

    private final List<Tracked> sessions = new ArrayList<>();
    private final Duration maxLag;
    private final ExecutorService threads;
    private final int workers;
    private final List<Future<String>> running = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private volatile Target target;
    /** Set just before the target is killed, cleared by the fail-over: errors meanwhile are expected. */
    private volatile boolean crashing;
    /** When {@link #crashing} was last called (nanoTime). */
    private volatile long crashedAt;
    /** The longest a lost version had been acknowledged before its crash (nanos); -1 while none was lost. */
    private final AtomicLong longestLostAgeNanos = new AtomicLong(-1);
    /** Fail-over checks: outcome -> count ("acknowledged", "in-flight update kept", "lost 1", ...). */
    private final Map<String, Integer> outcomes = new TreeMap<>();
    private final List<String> problems = new ArrayList<>();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong replays = new AtomicLong();
    private final AtomicLong maxLatencyNanos = new AtomicLong();
    private final AtomicLong latencyNanosTotal = new AtomicLong();

    /**
     * @param maxLag how long before its primary crashed a version a session lacks afterwards may have been
     *               acknowledged (sync: zero, nothing acknowledged may be lost; async: how long an update may be on
     *               its way)
     */
    ChaosLoad(int sessions, int threads, Duration maxLag, Duration requestTimeout) {
        HttpClient http = SessionClient.newHttpClient();
        for (int i = 0; i < sessions; i++) {
            this.sessions.add(new Tracked(i, http, requestTimeout));
        }
        this.maxLag = maxLag;
        this.threads = Executors.newFixedThreadPool(threads);
        this.workers = threads;
    }

    /** Initializes every session on {@code first} and starts the client threads. */
    void start(NodeProcess first) {
        target = new Target(0, first);
        for (int t = 0; t < workers; t++) {
            List<Tracked> mine = new ArrayList<>();
            for (int i = t; i < sessions.size(); i += workers) {
                mine.add(sessions.get(i));
            }
            running.add(threads.submit(() -> drive(mine)));
        }
    }

    Target target() {
        return target;
    }

    /** Moves the load to {@code node} (the old target is dead or about to be). */
    void failOver(NodeProcess node) {
        target = new Target(target.epoch() + 1, node);
        crashing = false;
    }

    /** The target is about to be killed: failed requests are expected until {@link #failOver}. */
    void crashing() {
        crashedAt = System.nanoTime();
        crashing = true;
    }

    /** The longest any version lost in a crash had been acknowledged before it, in ms; -1 if none was lost. */
    long longestLostAgeMillis() {
        long nanos = longestLostAgeNanos.get();
        return nanos < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    /** True when every session is on the current target and processed {@code progress} times there. */
    boolean progressed(int progress) {
        int epoch = target.epoch();
        return sessions.stream().allMatch(s -> s.epoch == epoch && s.id != null
                && s.acknowledged >= s.base + progress);
    }

    /** True when every session was verified on the current target (the fail-over is complete). */
    boolean allOnTarget() {
        int epoch = target.epoch();
        return sessions.stream().allMatch(s -> s.epoch == epoch);
    }

    /** A client thread that ended (an unexpected answer or error), or null. */
    String failedThread() {
        for (Future<String> f : running) {
            if (f.isDone()) {
                try {
                    return f.get();
                } catch (Exception e) {
                    return e.toString();
                }
            }
        }
        return null;
    }

    /**
     * Waits until {@code condition} holds, testing it every {@code poll}. Fails the test, with the problems
     * recorded so far, when a client thread ends meanwhile or {@code timeout} passes first.
     */
    void awaitOrFail(String what, Duration timeout, Duration poll, BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            String failed = failedThread();
            if (failed != null) {
                fail("a client thread ended while waiting for: " + what + ": " + failed
                        + "\nproblems: " + problems());
            }
            if (System.nanoTime() > deadline) {
                fail("not within " + timeout + ": " + what + "; problems: " + problems());
            }
            Thread.sleep(poll.toMillis());
        }
    }

    /** Stops the client threads (they finish their current request). */
    void stopLoad() throws InterruptedException {
        stop.set(true);
        threads.shutdown();
        if (!threads.awaitTermination(60, TimeUnit.SECONDS)) {
            threads.shutdownNow();
        }
    }

    List<Tracked> sessions() {
        return sessions;
    }

    synchronized Map<String, Integer> outcomes() {
        return new TreeMap<>(outcomes);
    }

    synchronized List<String> problems() {
        return new ArrayList<>(problems);
    }

    long requests() {
        return requests.get();
    }

    long errors() {
        return errors.get();
    }

    /** {@code process} requests the HTTP client sent twice, answered unchanged the second time. */
    long replays() {
        return replays.get();
    }

    long maxLatencyMillis() {
        return TimeUnit.NANOSECONDS.toMillis(maxLatencyNanos.get());
    }

    double meanLatencyMillis() {
        long n = requests.get();
        return n == 0 ? 0 : latencyNanosTotal.get() / 1e6 / n;
    }

    /** Starts the request count and latency figures afresh (errors are kept). */
    void resetLatency() {
        requests.set(0);
        latencyNanosTotal.set(0);
        maxLatencyNanos.set(0);
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }

    private String drive(List<Tracked> mine) throws InterruptedException {
        Target start = target;
        for (Tracked s : mine) {
            SessionReply reply;
            try {
                reply = timed(() -> s.client.initialize(start.node().sessionUri(), NUMBER, SIZE_KIB));
            } catch (IOException e) {
                return "initialize of session " + s.index + " failed: " + e;
            }
            if (!reply.ok()) {
                return "initialize failed: " + reply;
            }
            s.id = reply.session();
            s.checksum = reply.checksum();
            s.epoch = start.epoch();
        }
        while (!stop.get()) {
            for (Tracked s : mine) {
                if (stop.get()) {
                    break;
                }
                Target t = target;
                try {
                    if (s.epoch != t.epoch()) {
                        SessionReply reply = timed(() -> s.client.verify(t.node().sessionUri()));
                        String problem = check(s, reply, t.node());
                        if (problem != null) {
                            record("session " + s.index + " (" + s.id + ") on " + t.node().name() + ": " + problem);
                            return problem;
                        }
                        s.base = reply.version();
                        s.acknowledge(reply.version(), System.nanoTime());
                        s.checksum = reply.checksum();
                        s.inFlight = false;
                        s.epoch = t.epoch();
                        continue;
                    }
                    s.inFlight = true;
                    int from = s.acknowledged;
                    SessionReply reply = timed(() -> s.client.process(t.node().sessionUri(), from));
                    if (reply.replayed()) {
                        replays.incrementAndGet();
                    }
                    if (crashing && target == t && reply.status() == 503) {
                        // the target is stopping: it refuses new requests as a balancer expects; move on with everyone
                        while (target == t && !stop.get()) {
                            Thread.sleep(10);
                        }
                        continue;
                    }
                    if (!reply.ok() || reply.version() == null || reply.version() != s.acknowledged + 1
                            || !t.node().name().equals(reply.node())) {
                        errors.incrementAndGet();
                        return "unexpected answer from " + t.node().name() + " for session " + s.index
                                + " at version " + s.acknowledged + ": " + reply;
                    }
                    s.checksum = reply.checksum();
                    s.acknowledge(reply.version(), System.nanoTime());
                    s.inFlight = false;
                } catch (IOException e) {
                    if (!crashing && t.node().isAlive() && target == t) {
                        errors.incrementAndGet();
                        return "request to the live " + t.node().name() + " failed: " + e;
                    }
                    // the target was killed: wait for the load balancer to move everyone
                    while (target == t && !stop.get()) {
                        Thread.sleep(10);
                    }
                }
            }
        }
        return "stopped";
    }

    private interface Call {
        SessionReply call() throws IOException, InterruptedException;
    }

    private SessionReply timed(Call call) throws IOException, InterruptedException {
        long start = System.nanoTime();
        SessionReply reply = call.call();
        long took = System.nanoTime() - start;
        requests.incrementAndGet();
        latencyNanosTotal.addAndGet(took);
        maxLatencyNanos.accumulateAndGet(took, Math::max);
        return reply;
    }

    private synchronized void record(String problem) {
        problems.add(problem);
    }

    private synchronized void outcome(String outcome) {
        outcomes.merge(outcome, 1, Integer::sum);
    }

    /** Null when {@code reply} (a verify on the new target) is acceptable for what the client knew. */
    String check(Tracked s, SessionReply reply, NodeProcess node) {
        if (reply.status() == 404) {
            outcome("missing");
            return "missing (404: " + reply.error() + "), last acknowledged version " + s.acknowledged;
        }
        if (!reply.ok()) {
            outcome("error");
            return "HTTP " + reply.status() + ": " + reply.error();
        }
        if (!node.name().equals(reply.node())) {
            return "answered by " + reply.node();
        }
        if (!s.id.equals(reply.session())) {
            return "a different session " + reply.session();
        }
        int version = reply.version() == null ? -1 : reply.version();
        int lag = s.acknowledged - version;
        outcome(lag < 0 ? "in-flight update kept" : lag == 0 ? "acknowledged" : "lost " + lag);
        if (!Workload.expected(NUMBER, SIZE_KIB, Math.max(version, 0)).equals(reply.state())) {
            return "corrupt: " + reply.state() + " is not version " + version + " of the workload";
        }
        if (lag == 0 && !s.checksum.equals(reply.checksum())) {
            return "checksum differs from the acknowledged one at version " + version;
        }
        if (lag < 0 && !(s.inFlight && lag == -1)) {
            return "version " + version + " is newer than acknowledged " + s.acknowledged
                    + (s.inFlight ? " by more than the in-flight request" : " with nothing in flight");
        }
        if (lag > 0) {
            if (maxLag.isZero()) {
                return "version " + version + " but " + s.acknowledged + " was acknowledged"
                        + " (sync: nothing acknowledged may be lost)";
            }
            OptionalLong firstLostAt = s.acknowledgedAt(version + 1);
            if (firstLostAt.isEmpty()) {
                return "version " + version + " but " + s.acknowledged + " was acknowledged: " + lag
                        + " versions lost, more than this test remembers or from before the session's last move";
            }
            // negative when it was acknowledged after the kill was ordered, before the process died: counted as 0
            long age = Math.max(0, crashedAt - firstLostAt.getAsLong());
            longestLostAgeNanos.accumulateAndGet(age, Math::max);
            if (age > maxLag.toNanos()) {
                return "version " + version + " but " + s.acknowledged + " was acknowledged: version " + (version + 1)
                        + " had been acknowledged " + TimeUnit.NANOSECONDS.toMillis(age) + " ms before the crash (at most "
                        + maxLag.toMillis() + " ms may be on its way)";
            }
        }
        return null;
    }
}
