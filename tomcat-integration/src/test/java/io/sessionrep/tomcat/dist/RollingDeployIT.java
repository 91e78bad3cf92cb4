package io.sessionrep.tomcat.dist;

import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.JmxMeters;
import io.sessionrep.testsupport.FreePorts;
import io.sessionrep.tomcat.dist.ShopLoad.State;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.management.ObjectName;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rolling deploy of a web application whose session class changed, in the real product: Tomcat 11
 * distributions installed as docs/install-tomcat.md says (as {@link TomcatDistributionIT} does; the
 * {@code <Manager>} blocks read from the document, with its {@code serializationAllowlist} for the shop's
 * classes), each node a separate process, running {@link ShopApp} exploded in {@code webapps/shop} with
 * sessionrep's readiness endpoint mapped at {@code /shop/sessionrep/ready}.
 * <p>
 * Under load ({@link ShopLoad}: sticky and round-robin shoppers, a request refused by a node that is being
 * stopped or started sent on to the next node), each node in turn as docs/rolling-deploy.md section 3 tells an
 * operator: every node's readiness endpoint answers 200; SIGTERM (Tomcat's shutdown hook stops the web
 * application, which hands its sessions over); its {@code WEB-INF/classes} replaced by the next build; started
 * again; its own endpoint answers 200, then every node's — then the next node.
 * <p>
 * What "every node answers 200" guarantees ({@code io.sessionrep.core.Readiness}): each node is started, not
 * stopping and in a cluster view; every session it owns that has been replicated once has a confirmed copy on
 * each backup the placement picks in that view (write-quota 1 here: one other node), none waits for a new backup
 * to confirm its copy or to be promoted, the pass that restores copies after the last view change has ended; and
 * no node sees a partial cluster (a configured peer up outside its view, a node of the cluster answering from
 * another view). So every session replicated so far has a live copy on another node before the next one is
 * stopped. The gauge {@code sessionrep.sessions.below.quota} (owned sessions with fewer confirmed backups among
 * the members than write-quota) is not awaited as well: with three nodes and write-quota 1 the readiness
 * condition contains it (readiness compares with the very backups the placement picks), and all the gauge would
 * add are the sessions whose first request is still running (it counts them, readiness does not): a state of
 * the moment under load, not of the roll.
 * <p>
 * Afterwards every session is read on every node: found, holding exactly the items whose add was answered
 * 200 (and the counter, the user, the cart's owner and quantity), and on the new build with the new field.
 */
@Timeout(value = 420, unit = TimeUnit.SECONDS)
class RollingDeployIT {
    private static final String[] NAMES = {"node-a", "node-b", "node-c"};
    /** How long a node has to exit after SIGTERM before it is killed (and the run reports it). */
    private static final Duration EXIT_GRACE = Duration.ofSeconds(30);
    private static final Predicate<Reply> NO_SESSION =
            reply -> reply.status() == 404 && reply.body().contains("\"no session\"");
    private static final int CLIENTS = Integer.getInteger("sessionrep.rolling.clients", 8);
    private static final int SESSIONS_PER_CLIENT = Integer.getInteger("sessionrep.rolling.sessions", 40);
    /** How long the load runs before the first stop, between one node's return and the next stop, and after. */
    private static final Duration BETWEEN = Duration.ofSeconds(4);
    private static final long THINK_MILLIS = Long.getLong("sessionrep.rolling.think.ms", 5);
    private static final long WORK_MILLIS = Long.getLong("sessionrep.rolling.work.ms", 20);

    private final TomcatInstall install = new TomcatInstall("rolling");
    private final Map<TomcatProcess, JmxMeters> meters = new HashMap<>();
    private ShopLoad load;

    @AfterEach
    void stopEverything() throws Exception {
        if (load != null) {
            load.stop();
        }
        for (JmxMeters jmx : meters.values()) {
            jmx.close();
        }
        install.killAll();
    }

    /** One node's turn in the roll. */
    private record Restart(String node, TomcatProcess.Exit exit, Duration took) {
        @Override
        public String toString() {
            return String.format("%s: SIGTERM to exit %.1f s%s, back in %.1f s", node, exit.took().toMillis() / 1e3,
                    exit.killed() ? " (not exited: killed)" : "", took.toMillis() / 1e3);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"async", "sync"})
    void aRollingDeployOfAClassThatGainedAFieldLosesNoSessionUnderLoad(String mode) throws Exception {
        List<TomcatProcess> three = cluster(3, mode, ShopApp.V1);
        load = ShopLoad.start(three, CLIENTS, SESSIONS_PER_CLIENT, THINK_MILLIS, WORK_MILLIS);
        List<Restart> restarts = new ArrayList<>();
        Map<String, Double> incompatible = new LinkedHashMap<>(); // each node's counts before it stops, and at the end
        for (TomcatProcess node : three) {
            Thread.sleep(BETWEEN.toMillis()); // the cluster runs (mixed, after the first turn) under load
            awaitEveryNodeReady(three);
            counts(node, ReplicationMetrics.INCOMPATIBLE, "class").forEach((k, v) -> incompatible.put(k + " (v1)", v));
            restarts.add(restart(node, three, ShopApp.V2));
        }
        Thread.sleep(BETWEEN.toMillis());
        ShopLoad.Figures figures = load.stop();
        for (TomcatProcess node : three) {
            counts(node, ReplicationMetrics.INCOMPATIBLE, "class").forEach((k, v) -> incompatible.put(k + " (v2)", v));
        }

        // every session on every node, read only: found, exactly its acknowledged items, the new build's field
        List<Shopper> shoppers = load.shoppers();
        List<String> unverified = new ArrayList<>();
        int verified = 0;
        for (Shopper shopper : shoppers) {
            if (shopper.failure != null) {
                continue; // counted by the load already
            }
            String problem = null;
            for (TomcatProcess node : three) {
                Reply shown = shopper.browser.get(node, "show");
                problem = shown.status() != 200 ? shown.status() + " " + shown.body()
                        : shopper.mismatch(shown, shopper.items);
                if (problem == null && !(shown.field("build").equals("v2") && shown.field("couponField").equals("true")
                        && shown.field("coupon").equals("null"))) {
                    problem = "not the new build's cart without a coupon: " + shown.body();
                }
                if (problem != null) {
                    unverified.add(shopper.name + " on " + node.name + ": " + problem);
                    break;
                }
            }
            if (problem == null) {
                verified++;
            }
        }
        // the new field replicates between nodes of the new build
        int couponsRead = 0;
        for (int i = 0; i < shoppers.size(); i++) {
            Shopper shopper = shoppers.get(i);
            if (shopper.failure != null) {
                continue;
            }
            Reply set = shopper.browser.get(three.get(i % 3), "coupon&code=SAVE" + i);
            Reply shown = shopper.browser.get(three.get((i + 1) % 3), "show");
            if (set.status() == 200 && shown.status() == 200 && shown.field("coupon").equals("SAVE" + i)
                    && shopper.mismatch(shown, shopper.items) == null) {
                couponsRead++;
            } else if (unverified.size() < 20) {
                unverified.add(shopper.name + ": coupon set " + set.body() + ", then read " + shown.body());
            }
        }

        System.out.println("Rolling deploy v1 -> v2 of three Tomcats, " + mode + ": load " + figures);
        System.out.println("Rolling deploy, " + mode + ": " + restarts);
        System.out.printf("Rolling deploy, %s: %d of %d sessions verified on every node, %d coupons set and read"
                + " on another node; incompatible attributes %s%n", mode, verified, shoppers.size(), couponsRead,
                incompatible);
        assertEquals(0, figures.errors(), figures.toString());
        assertEquals(0, figures.lost(), figures.toString());
        assertEquals(0, figures.stale(), figures.toString());
        assertTrue(figures.sessions() >= 30 && figures.acknowledged() >= 300, "too little load: " + figures);
        assertTrue(figures.crossings().getOrDefault("v1->v2", 0L) > 0 && figures.crossings().getOrDefault("v2->v1", 0L) > 0,
                "sessions did not cross between the builds both ways: " + figures);
        assertEquals(List.of(), unverified, "sessions not intact after the roll");
        assertEquals(shoppers.size(), verified);
        assertEquals(shoppers.size(), couponsRead);
        assertTrue(incompatible.values().stream().allMatch(v -> v == 0), "incompatible attributes: " + incompatible);
        for (TomcatProcess node : three) {
            assertEquals(Map.of(), nonZero(counts(node, ReplicationMetrics.REJECTED, "reason"),
                    ReplicationMetrics.REASON_CLASS_NOT_ALLOWED, ReplicationMetrics.REASON_UNDECODABLE), node.name);
            List<String> bad = node.logLines(line -> line.contains("SEVERE") || line.contains("is not restored")
                    || line.contains("refused session attribute") || line.contains("is not replicated"));
            assertEquals(List.of(), bad, node.name + " logged");
        }
        List<Restart> killed = restarts.stream().filter(r -> r.exit().killed()).toList();
        assertEquals(List.of(), killed, "Tomcat did not exit within " + EXIT_GRACE + " of SIGTERM");
    }

    @Test
    void aClassWhoseFieldChangedTypeLeavesThatAttributeMissingAndTheRestOfTheSession() throws Exception {
        List<TomcatProcess> two = cluster(2, "sync", ShopApp.V1);
        TomcatProcess a = two.get(0);
        java.net.http.HttpClient http = ShopLoad.httpClient();
        List<Shopper> shoppers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Shopper shopper = new Shopper("u" + i, false, http);
            assertEquals(200, shopper.browser.get(two.get(i % 2), "login&user=" + shopper.name).status());
            for (int add = 0; add < 3; add++) {
                String item = shopper.nextItem();
                Reply added = shopper.browser.get(two.get((i + add + 1) % 2), ShopApp.add(item));
                shopper.acknowledged(item);
                assertEquals(null, shopper.mismatch(added, shopper.items));
            }
            shoppers.add(shopper); // the last add on node-b for u0, u2, u4; on node-a (stopped next) for the others
        }

        restart(a, two, ShopApp.V3);

        for (Shopper shopper : shoppers) {
            Reply shown = shopper.browser.get(a, "show");
            assertEquals(200, shown.status(), shown.body());
            assertEquals("v3", shown.field("build"));
            assertEquals("false", shown.field("created"), shown.body());
            assertEquals("false", shown.field("cart"), "the cart is missing: " + shown.body());
            assertEquals(shopper.name, shown.field("user"), shown.body());
            assertEquals("3", shown.field("counter"), shown.body());
            Reply added = shopper.browser.get(a, ShopApp.add("new"));
            assertEquals(200, added.status(), added.body());
            assertEquals("1", added.field("items"), "the application starts a new cart: " + added.body());
            assertEquals("4", added.field("counter"), added.body());
        }
        double counted = meters(a).value(ReplicationMetrics.INCOMPATIBLE, "class", "com.example.shop.Cart");
        List<String> warned = a.logLines(line -> line.contains("is not restored"));
        System.out.println("Rolling deploy v1 -> v3 (Cart.quantity int -> long): " + shoppers.size()
                + " sessions read on node-a, sessionrep.attributes.incompatible{class=com.example.shop.Cart} "
                + counted + ", warned " + warned);
        assertEquals(shoppers.size(), counted, "counted on node-a, once per session taken over");
        assertEquals(1, warned.size(), "once per class: " + warned);
        assertTrue(warned.get(0).contains("com.example.shop.Cart") && warned.get(0).contains("quantity"), warned.get(0));
        for (TomcatProcess node : two) {
            assertEquals(List.of(), node.logLines(line -> line.contains("SEVERE")), node.name + " logged");
        }
    }

    // ------------------------------------------------------------------ the cluster

    /** {@code size} nodes installed as the document says, running {@code version}, serving and in one view. */
    private List<TomcatProcess> cluster(int size, String mode, ShopApp.Version version) throws Exception {
        int[] ports = FreePorts.onLoopback(size * 2);
        InstallGuide guide = install.guide;
        List<TomcatProcess> cluster = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            // node-a and node-b as documented; node-c like node-b, on its own port, listing node-a
            String context = i < 2 ? guide.context(NAMES[i], ports[size], ports[size + 1])
                    : guide.context("node-b", ports[size], ports[size + i]);
            TomcatProcess node = install.prepare(NAMES[i], ports[i], CatalinaBase.NO_SHUTDOWN_PORT);
            Files.writeString(node.base.resolve("conf/Catalina/localhost/shop.xml"),
                    shopContext(context, mode, guide.serializationAllowlist()));
            ShopApp.deploy(version, node);
            cluster.add(node);
        }
        for (TomcatProcess node : cluster) {
            node.start();
        }
        for (TomcatProcess node : cluster) {
            node.awaitServing(ShopApp.PATH + "show", NO_SESSION);
        }
        List<String> names = cluster.stream().map(node -> node.name).toList();
        for (TomcatProcess node : cluster) {
            node.awaitView(0, names);
        }
        return cluster;
    }

    /** The documented context for the shop: its own cluster name, the allowlist for its classes. */
    private static String shopContext(String documented, String mode, String allowlist) {
        String context = documented
                .replace("replicationMode=\"sync\"", "replicationMode=\"" + mode + "\"")
                .replace("clusterName=\"session-test\"", "clusterName=\"shop\"")
                .replace("/>", "\n           " + allowlist + "/>");
        assertTrue(context.contains("replicationMode=\"" + mode + "\"") && context.contains("clusterName=\"shop\"")
                && context.indexOf("/>") == context.lastIndexOf("/>"), "the documented context changed: " + documented);
        return context;
    }

    /**
     * One node's turn (docs/rolling-deploy.md section 3, steps 3 to 5): SIGTERM, {@code version} installed,
     * started, awaited until it serves and its readiness endpoint answers 200, then until every node's does.
     */
    private Restart restart(TomcatProcess node, List<TomcatProcess> cluster, ShopApp.Version version) throws Exception {
        long started = System.nanoTime();
        JmxMeters jmx = meters.remove(node);
        if (jmx != null) {
            jmx.close();
        }
        mark(node, State.STOPPING);
        TomcatProcess.Exit exit = node.stop(EXIT_GRACE);
        mark(node, State.DOWN);
        ShopApp.deploy(version, node);
        mark(node, State.STARTING);
        node.start();
        node.awaitServing(ShopApp.PATH + "show", NO_SESSION);
        mark(node, State.UP);
        node.awaitReady(ShopApp.READY);
        awaitEveryNodeReady(cluster);
        return new Restart(node.name, exit, Duration.ofNanos(System.nanoTime() - started));
    }

    private void mark(TomcatProcess node, State state) {
        if (load != null) {
            load.state(node, state);
        }
    }

    /**
     * The runbook's {@code all_ready}: waits, node after node, until each one's readiness endpoint answers 200
     * (the failure names the reasons of a node that stays not ready).
     */
    private static void awaitEveryNodeReady(List<TomcatProcess> cluster) throws Exception {
        for (TomcatProcess node : cluster) {
            node.awaitReady(ShopApp.READY);
        }
    }

    private JmxMeters meters(TomcatProcess node) throws IOException {
        JmxMeters jmx = meters.get(node);
        if (jmx == null) {
            jmx = JmxMeters.attach(node.pid(), node.name);
            meters.put(node, jmx);
        }
        return jmx;
    }

    /** Each value of {@code tag} of {@code meter} on the node, with the meter's count. */
    private Map<String, Double> counts(TomcatProcess node, String meter, String tag) throws IOException {
        JmxMeters jmx = meters(node);
        Map<String, Double> counts = new LinkedHashMap<>();
        for (ObjectName name : jmx.names()) {
            if (meter.equals(name.getKeyProperty("name"))) {
                String value = name.getKeyProperty(tag);
                counts.put(node.name + " " + value, jmx.value(meter, tag, value));
            }
        }
        return counts;
    }

    private static Map<String, Double> nonZero(Map<String, Double> counts, String... tags) {
        Map<String, Double> found = new LinkedHashMap<>();
        counts.forEach((key, value) -> {
            for (String tag : tags) {
                if (key.endsWith(" " + tag) && value != 0) {
                    found.put(key, value);
                }
            }
        });
        return found;
    }
}
