package io.sessionrep.core.sim;

import io.sessionrep.core.config.ReplicationMode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The steps of one simulated run, drawn from its seed: requests of the clients (writes and reads of a handful of
 * sessions, each on any node: a request on another node than the last one is a hand-over), two requests of one
 * session at once on two nodes (with or without the first node dying inside its request), kills (also right after a
 * write), restarts, partitions and heals, a slow link. Each step ends with the cluster settled and the invariants
 * checked; the first violation ends the run.
 */
final class SimSteps {
    private static final int MAX_SESSIONS = 4;
    /** {@code -Dsim.verbose=true}: the trace shows each session's copies after every step. */
    private static final boolean VERBOSE = Boolean.getBoolean("sim.verbose");

    private final SimWorld world;
    private final Random random;
    private final Expectations expected = new Expectations();
    private final List<String> sessions = new ArrayList<>();
    private final List<String> trace = new ArrayList<>();
    private int nextValue = 1;
    private boolean lastSettled = true;
    int refused;

    SimSteps(SimWorld world, Random random) {
        this.world = world;
        this.random = random;
    }

    List<String> trace() {
        return trace;
    }

    /** Runs one step; returns the first violated invariant, or null. */
    String step() {
        double timeoutsBefore = syncTimeouts();
        long started = System.nanoTime();
        Kind kind = draw();
        if (VERBOSE) {
            System.err.println("=== step " + trace.size() + ": " + kind + " (ids: " + sessions.stream().map(id -> id + "=" + io.sessionrep.core.LogIds.shortForm(id)).toList() + ")");
        }
        String problem = run(kind);
        if (syncTimeouts() > timeoutsBefore) {
            trace.add("    (sync-timeout during this step)");
        }
        lastSettled = world.settle();
        if (!lastSettled) {
            trace.add("    (not settled: " + world.lastUnsettled + ")");
        }
        if (VERBOSE) {
            trace.add("    state: " + world.describe(sessions) + " (" + (System.nanoTime() - started) / 1_000_000 + " ms)");
        }
        if (problem == null) {
            problem = world.checkSettled(expected);
        }
        return problem;
    }

    private double syncTimeouts() {
        return world.upNames().stream().mapToDouble(n -> world.node(n).engine.metrics().syncTimeouts.count()).sum();
    }

    private enum Kind {
        CREATE(8), WRITE(30), READ(14), CONCURRENT(10), CONCURRENT_KILL(3), WRITE_THEN_KILL(4), KILL(3),
        RESTART(8), PARTITION(3), HEAL(8), SLOW_LINK(5), INVALIDATE(3);

        final int weight;

        Kind(int weight) {
            this.weight = weight;
        }
    }

    private Kind draw() {
        int total = 0;
        for (Kind k : Kind.values()) {
            total += k.weight;
        }
        int r = random.nextInt(total);
        for (Kind k : Kind.values()) {
            r -= k.weight;
            if (r < 0) {
                return possible(k) ? k : sessions.isEmpty() ? Kind.CREATE : Kind.WRITE;
            }
        }
        throw new AssertionError();
    }

    private boolean possible(Kind k) {
        boolean mayKill = lastSettled && !world.partitioned() && world.upNames().size() >= 3;
        return switch (k) {
            case CREATE -> sessions.size() < MAX_SESSIONS;
            case WRITE, READ, INVALIDATE -> !sessions.isEmpty();
            case CONCURRENT -> !sessions.isEmpty() && world.upNames().size() >= 2;
            case CONCURRENT_KILL, WRITE_THEN_KILL -> !sessions.isEmpty() && mayKill;
            case KILL -> mayKill;
            case RESTART -> !world.partitioned() && !world.downNames().isEmpty();
            case PARTITION -> !world.partitioned() && world.upNames().size() >= 3;
            case HEAL -> world.partitioned();
            case SLOW_LINK -> true;
        };
    }

    private String run(Kind kind) {
        return switch (kind) {
            case CREATE -> create();
            case WRITE -> write(anyUp(), anySession(), false);
            case READ -> read(anyUp(), anySession());
            case CONCURRENT -> concurrent(false);
            case CONCURRENT_KILL -> concurrent(true);
            case WRITE_THEN_KILL -> write(anyUp(), anySession(), true);
            case KILL -> kill(anyUp());
            case RESTART -> restart();
            case PARTITION -> partition();
            case HEAL -> heal();
            case SLOW_LINK -> slowLink();
            case INVALIDATE -> invalidate(anyUp(), anySession());
        };
    }

    private String anyUp() {
        List<String> up = world.upNames();
        return up.get(random.nextInt(up.size()));
    }

    private String anySession() {
        return sessions.get(random.nextInt(sessions.size()));
    }

    private String create() {
        String id = "s" + (sessions.size() + 1);
        String on = anyUp();
        int value = nextValue++;
        trace.add("create " + id + "=v" + value + " on " + on);
        world.node(on).create(id, value);
        sessions.add(id);
        expected.created(id, world.side(on), value);
        return null;
    }

    private String write(String on, String id, boolean thenKill) {
        int value = nextValue++;
        SimNode node = world.node(on);
        int side = world.side(on);
        double timeoutsBefore = node.engine.metrics().syncTimeouts.count();
        boolean backupInView = node.engine.members().size() > 1 && world.writeQuota > 0;
        SimNode.Seen seen = node.request(id, value, () -> { });
        trace.add("write " + id + "=v" + value + " on " + on + (thenKill ? " then kill " + on : "") + ": saw " + seen);
        String problem = observe(id, side, seen);
        if (problem == null && seen.kind() == SimNode.Seen.Kind.VALUE) {
            expected.wrote(id, side, value);
            boolean acknowledged = world.mode == ReplicationMode.SYNC && backupInView
                    && node.engine.metrics().syncTimeouts.count() == timeoutsBefore;
            if (thenKill && !acknowledged) {
                expected.mayLose(id, side, seen.value()); // async: still queued; sync: not acknowledged
            }
        }
        if (thenKill) {
            world.crash(on);
        }
        return problem;
    }

    private String read(String on, String id) {
        SimNode.Seen seen = world.node(on).request(id, null, () -> { });
        trace.add("read " + id + " on " + on + ": saw " + seen);
        return observe(id, world.side(on), seen);
    }

    private String invalidate(String on, String id) {
        int side = world.side(on);
        boolean done = world.node(on).invalidate(id);
        trace.add("invalidate " + id + " on " + on + (done ? "" : ": no session there"));
        if (done) {
            expected.invalidated(id, side);
            return null;
        }
        return observe(id, side, SimNode.Seen.NOT_FOUND);
    }

    /**
     * A request on one node holds a session while a request for it arrives on another node (which must wait for a
     * hand-over); the first ends normally, or its node dies inside it.
     */
    private String concurrent(boolean killFirst) {
        List<String> up = world.upNames();
        String first = up.get(random.nextInt(up.size()));
        List<String> others = new ArrayList<>(up);
        others.remove(first);
        String second = others.get(random.nextInt(others.size()));
        String id = anySession();
        int firstValue = nextValue++;
        int secondValue = nextValue++;
        int firstSide = world.side(first);
        int secondSide = world.side(second);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<SimNode.Seen> firstSeen = new AtomicReference<>();
        AtomicReference<SimNode.Seen> secondSeen = new AtomicReference<>();
        SimNode firstNode = world.node(first);
        Thread a = new Thread(() -> firstSeen.set(firstNode.request(id, firstValue, () -> {
            inside.countDown();
            await(release);
        })), "sim-request-" + first);
        a.start();
        boolean entered = awaitEither(inside, a);
        Thread b = new Thread(() -> secondSeen.set(world.node(second).request(id, secondValue, () -> { })),
                "sim-request-" + second);
        if (entered) {
            b.start();
            waitUntilBlocked(b);
            if (killFirst) {
                world.crash(first);
            }
        }
        release.countDown();
        join(a);
        if (!entered) {
            b.start();
        }
        join(b);
        trace.add("concurrent " + id + ": v" + firstValue + " on " + first + (killFirst ? " (killed inside)" : "")
                + " saw " + firstSeen.get() + ", v" + secondValue + " on " + second + " saw " + secondSeen.get());
        String problem = observe(id, firstSide, firstSeen.get());
        if (problem != null) {
            return problem;
        }
        if (firstSeen.get().kind() == SimNode.Seen.Kind.VALUE) {
            expected.wrote(id, firstSide, firstValue);
        } else if (firstSeen.get().kind() == SimNode.Seen.Kind.CRASHED) {
            expected.mayHaveWritten(id, firstSide, firstValue);
        }
        problem = observe(id, secondSide, secondSeen.get());
        if (problem == null && secondSeen.get().kind() == SimNode.Seen.Kind.VALUE) {
            expected.wrote(id, secondSide, secondValue);
        }
        return problem;
    }

    private String kill(String name) {
        trace.add("kill " + name);
        world.crash(name);
        return null;
    }

    private String restart() {
        List<String> down = world.downNames();
        String name = down.get(random.nextInt(down.size()));
        trace.add("restart " + name);
        world.start(name);
        return null;
    }

    private String partition() {
        List<String> up = new ArrayList<>(world.upNames());
        Collections.shuffle(up, random);
        int cut = 1 + random.nextInt(up.size() - 1);
        List<List<String>> groups = List.of(List.copyOf(up.subList(0, cut)), List.copyOf(up.subList(cut, up.size())));
        trace.add("partition " + groups);
        java.util.Map<String, Expectations.Held> held = new java.util.HashMap<>();
        for (String id : sessions) {
            for (int side = 0; side < groups.size(); side++) {
                held.put(id + "@" + side, world.groupHolds(id, groups.get(side)));
            }
        }
        world.partition(groups);
        expected.split(groups.size(), (id, side) -> held.get(id + "@" + side));
        return null;
    }

    private String heal() {
        trace.add("heal");
        world.heal();
        expected.heal();
        return null;
    }

    private String slowLink() {
        List<String> up = world.upNames();
        if (up.size() < 2 || random.nextInt(3) == 0) {
            trace.add("no slow link");
            world.network.slowLink(null, null);
            return null;
        }
        String from = up.get(random.nextInt(up.size()));
        List<String> others = new ArrayList<>(up);
        others.remove(from);
        String to = others.get(random.nextInt(others.size()));
        trace.add("slow link " + from + ">" + to);
        world.network.slowLink(from, to);
        return null;
    }

    private String observe(String id, int side, SimNode.Seen seen) {
        if (seen.kind() == SimNode.Seen.Kind.REFUSED) {
            refused++;
            return null; // ownership-timeout: no application code ran, nothing to check
        }
        String problem = expected.seen(id, side, seen);
        return problem == null ? null : "session " + id + ": " + problem;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** True once {@code latch} opened; false when {@code thread} ended first. */
    private static boolean awaitEither(CountDownLatch latch, Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (latch.getCount() == 0) {
                return true;
            }
            if (!thread.isAlive()) {
                return latch.getCount() == 0;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("the first request neither entered nor ended");
    }

    /** Lets {@code thread} run until it waits (for the hand-over), at most a moment. */
    private static void waitUntilBlocked(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        while (System.nanoTime() < deadline) {
            Thread.State state = thread.getState();
            if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || state == Thread.State.TERMINATED) {
                return;
            }
            Thread.onSpinWait();
        }
    }

    private static void join(Thread thread) {
        try {
            thread.join(15_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            throw new AssertionError(thread.getName() + " still runs after 15 s");
        }
    }
}
