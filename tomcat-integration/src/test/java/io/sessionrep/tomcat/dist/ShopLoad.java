package io.sessionrep.tomcat.dist;

import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Shoppers against the shop on several nodes, as a balancer that sends a refused request on to another
 * node would send them, until {@link #stop}. Half the clients are sticky (each request to the node its cookie's route names), half round
 * robin (each request to the next node). Each client logs in a new shopper every {@value #EVERY}th request,
 * up to {@code sessionsPerClient}, and adds an item to one of its carts per request.
 *
 * <p>A request that a node refuses (no connection, a reset, 503, or an answer that is not the shop's own) is
 * sent to the next node, as a balancer retries; the adds are idempotent, so a retry of an add whose answer
 * was lost adds nothing twice. Such a refusal is expected only from a node that the test has said is not
 * {@link State#UP} (being stopped, down or starting) at some moment of the attempt; from a node up
 * throughout it is an <b>error</b>. Every add answered 200 must show exactly the items acknowledged before
 * it and itself, the counter likewise: a session without them is <b>stale</b>, one that is gone (404) is
 * <b>lost</b>; either stops that shopper.
 */
final class ShopLoad {
    /** A node's state, as the test tells the load (a balancer's health check would). */
    enum State { UP, STOPPING, DOWN, STARTING }

    /** A client logs in a new shopper every this many requests (up to its sessions), throughout the run. */
    private static final int EVERY = 40;
    /** How long one request is sent on from node to node before it counts as unanswered. */
    private static final Duration RETRY_FOR = Duration.ofSeconds(60);

    /**
     * What the clients saw. {@code refusals}: the refusals by a node not up, by kind (an HTTP status or an
     * exception); {@code crossings}: how often a session's add was served by another build than its previous
     * add ({@code v1->v2}, {@code v2->v1}).
     */
    record Figures(int sessions, long requests, long acknowledged, long replayed, long refused, long errors,
                   long lost, long stale, double seconds, Map<String, Long> refusals, Map<String, Long> crossings,
                   List<String> problems) {
        @Override
        public String toString() {
            return String.format("%d sessions, %d requests (%d adds acknowledged, %d of them found already added by"
                            + " an attempt whose answer was lost; %d refused by a node not up and sent on: %s), %d errors,"
                            + " %d lost, %d stale in %.1f s (%.0f req/s); sessions crossing builds %s%s", sessions,
                    requests, acknowledged, replayed, refused, refusals, errors, lost, stale, seconds,
                    requests / Math.max(seconds, 0.001), crossings,
                    problems.isEmpty() ? "" : "; first problems: " + problems);
        }
    }

    private final List<TomcatProcess> nodes;
    private final int sessionsPerClient;
    private final long thinkMillis;
    private final long workMillis;
    private final HttpClient http = httpClient();
    private final Map<String, State> states = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> changes = new ConcurrentHashMap<>();
    private final List<Shopper> shoppers = Collections.synchronizedList(new ArrayList<>());
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong replayed = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong lost = new AtomicLong();
    private final AtomicLong stale = new AtomicLong();
    private final Map<String, Long> refusals = new ConcurrentHashMap<>();
    private final Map<String, Long> crossings = new ConcurrentHashMap<>();
    private final ExecutorService pool;
    private final List<Future<?>> tasks = new ArrayList<>();
    private final long started = System.nanoTime();

    /**
     * Starts {@code clients} threads, each pausing {@code thinkMillis} between its requests, each add taking the
     * servlet {@code workMillis} (so that requests are under way whenever a node is stopped).
     */
    static ShopLoad start(List<TomcatProcess> nodes, int clients, int sessionsPerClient, long thinkMillis, long workMillis) {
        ShopLoad load = new ShopLoad(nodes, clients, sessionsPerClient, thinkMillis, workMillis);
        for (int c = 0; c < clients; c++) {
            int index = c;
            load.tasks.add(load.pool.submit(() -> {
                load.client(index);
                return null;
            }));
        }
        return load;
    }

    private ShopLoad(List<TomcatProcess> nodes, int clients, int sessionsPerClient, long thinkMillis, long workMillis) {
        this.nodes = List.copyOf(nodes);
        this.sessionsPerClient = sessionsPerClient;
        this.thinkMillis = thinkMillis;
        this.workMillis = workMillis;
        for (TomcatProcess node : nodes) {
            states.put(node.name, State.UP);
            changes.put(node.name, new AtomicLong());
        }
        this.pool = Executors.newFixedThreadPool(clients);
    }

    /** A client as the shoppers use: HTTP/1.1, keep-alive. */
    static HttpClient httpClient() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    }

    void state(TomcatProcess node, State state) {
        states.put(node.name, state);
        changes.get(node.name).incrementAndGet();
    }

    /** Stops the clients (each finishes its request) and answers what they saw. */
    Figures stop() throws InterruptedException {
        running.set(false);
        for (Future<?> client : tasks) {
            try {
                client.get(RETRY_FOR.toSeconds() + 30, TimeUnit.SECONDS);
            } catch (Exception e) {
                errors.incrementAndGet();
                problem("client failed: " + e);
            }
        }
        pool.shutdownNow();
        pool.awaitTermination(30, TimeUnit.SECONDS);
        return new Figures(shoppers.size(), requests.get(), acknowledged.get(), replayed.get(), refused.get(), errors.get(),
                lost.get(), stale.get(), (System.nanoTime() - started) / 1e9, new TreeMap<>(refusals),
                new TreeMap<>(crossings), List.copyOf(problems));
    }

    /** Every shopper logged in so far; read them after {@link #stop}. */
    List<Shopper> shoppers() {
        synchronized (shoppers) {
            return List.copyOf(shoppers);
        }
    }

    private void client(int index) throws InterruptedException {
        boolean sticky = index % 2 == 0;
        List<Shopper> mine = new ArrayList<>();
        int turn = index;
        for (long count = 0; running.get(); count++) {
            if (mine.size() < sessionsPerClient && count % EVERY == 0) {
                Shopper shopper = new Shopper("c" + index + "s" + mine.size(), sticky, http);
                if (login(shopper, turn++)) {
                    mine.add(shopper);
                    shoppers.add(shopper);
                }
            }
            List<Shopper> usable = mine.stream().filter(s -> s.failure == null).toList();
            if (!usable.isEmpty()) {
                add(usable.get((int) (count % usable.size())), turn++);
            }
            Thread.sleep(thinkMillis);
        }
    }

    private boolean login(Shopper shopper, int turn) throws InterruptedException {
        Reply reply = send(shopper, "login&user=" + shopper.name, turn);
        if (reply == null || reply.status() != 200 || !"true".equals(reply.field("created"))) {
            errors.incrementAndGet();
            problem(shopper.name + ": login answered " + (reply == null ? "by no node" : reply.body()));
            return false;
        }
        return true;
    }

    private void add(Shopper shopper, int turn) throws InterruptedException {
        String item = shopper.nextItem();
        Reply reply = send(shopper, ShopApp.add(item) + "&work=" + workMillis, preferred(shopper, turn));
        if (reply == null || (reply.status() != 200 && reply.status() != 404)) {
            errors.incrementAndGet();
            shopper.failure = "add " + item + " answered " + (reply == null ? "by no node" : reply.body());
        } else if (reply.status() == 404) {
            lost.incrementAndGet();
            shopper.failure = "lost at add " + item + ": " + reply.body();
        } else {
            List<String> expected = new ArrayList<>(shopper.items);
            if (!expected.contains(item)) {
                expected.add(item);
            }
            String wrong = shopper.mismatch(reply, expected);
            if (wrong != null) {
                stale.incrementAndGet();
                shopper.failure = "stale at add " + item + ": " + wrong;
            } else {
                String build = reply.field("build");
                if (shopper.build != null && !shopper.build.equals(build)) {
                    crossings.merge(shopper.build + "->" + build, 1L, Long::sum);
                }
                shopper.build = build;
                shopper.acknowledged(item);
                acknowledged.incrementAndGet();
                if ("false".equals(reply.field("added"))) {
                    replayed.incrementAndGet();
                }
                return;
            }
        }
        problem(shopper.toString());
    }

    /** The node a balancer sends this shopper's next request to. */
    private int preferred(Shopper shopper, int turn) {
        String route = shopper.route();
        if (shopper.sticky && route != null) {
            for (int i = 0; i < nodes.size(); i++) {
                if (nodes.get(i).name.equals(route)) {
                    return i;
                }
            }
        }
        return turn;
    }

    /**
     * The shop's answer to {@code query}, sent to node {@code first} and on to the next while refused, for at
     * most {@link #RETRY_FOR}; null when no node answered.
     */
    private Reply send(Shopper shopper, String query, int first) throws InterruptedException {
        long deadline = System.nanoTime() + RETRY_FOR.toNanos();
        for (int attempt = 0; System.nanoTime() < deadline; attempt++) {
            TomcatProcess node = nodes.get(Math.floorMod(first + attempt, nodes.size()));
            long change = changes.get(node.name).get();
            State before = states.get(node.name);
            String kind;
            String refusal;
            requests.incrementAndGet();
            try {
                Reply reply = shopper.browser.get(node, query);
                if (reply.status() != 503 && reply.body().startsWith("{") && reply.body().contains("\"node\":\"")) {
                    return reply;
                }
                kind = "HTTP " + reply.status();
                refusal = reply.status() + " " + reply.body().lines().findFirst().orElse("");
            } catch (IOException e) {
                kind = e.getClass().getSimpleName();
                refusal = e.toString();
            }
            if (before == State.UP && changes.get(node.name).get() == change) {
                errors.incrementAndGet();
                problem(shopper.name + ": " + node.name + ", up, refused " + query + ": " + refusal);
            } else {
                refused.incrementAndGet();
                refusals.merge(kind, 1L, Long::sum);
            }
            if (attempt % nodes.size() == nodes.size() - 1) {
                Thread.sleep(100);
            }
        }
        return null;
    }

    private void problem(String description) {
        if (problems.size() < 20) {
            problems.add(description);
        }
    }
}
