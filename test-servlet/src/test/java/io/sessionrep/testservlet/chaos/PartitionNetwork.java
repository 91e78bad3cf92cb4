package io.sessionrep.testservlet.chaos;

import io.sessionrep.testservlet.NetworkCommands.Result;

import static io.sessionrep.testservlet.NetworkCommands.in;
import static io.sessionrep.testservlet.NetworkCommands.run;
import static io.sessionrep.testservlet.NetworkCommands.vethPair;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Two "machines" for {@link PartitionHealIT}: network namespaces {@link #nsA} and {@link #nsB}, each with an
 * app-tier veth link to the root namespace (where the test and its HTTP clients run) and one replication
 * veth link between them (the topology of the perf runner's {@code Netns}, with names of its own):
 * <pre>
 *   root  sp&lt;pid&gt;ha0 NET.1/30 ==veth== sp&lt;pid&gt;ha1 NET.2/30   srpart-&lt;pid&gt;-a   (HTTP of node-a)
 *   root  sp&lt;pid&gt;hb0 NET.5/30 ==veth== sp&lt;pid&gt;hb1 NET.6/30   srpart-&lt;pid&gt;-b   (HTTP of node-b, node-c)
 *   srpart-&lt;pid&gt;-a  sp&lt;pid&gt;r0 NET.9/30 ==veth== sp&lt;pid&gt;r1 NET.10/30  srpart-&lt;pid&gt;-b   (replication)
 * </pre>
 * NET is a 10.252.x.0/24 that no address or route of this host uses (x from this JVM's pid, so two runs on
 * one host do not collide). {@link #cut()} sets the replication link down in namespace A (the peer end loses
 * its carrier), {@link #heal()} sets it up again; the app-tier links stay up, so both sides keep answering
 * HTTP from the root namespace while the replication network is split.
 *
 * <p>{@link #create()} skips the calling test (JUnit assumption, with the reason) when it cannot be done here:
 * not root, no {@code ip} even after {@code apt-get install -y iproute2}, or namespaces not permitted. Never
 * a silent pass. {@link #close()} removes both namespaces (their veths go with them) and the root ends, and
 * runs as a JVM shutdown hook too; namespaces left by an earlier run whose JVM was killed are removed first.
 */
final class PartitionNetwork implements AutoCloseable {

    private static final Pattern OURS = Pattern.compile("srpart-(\\d+)-[ab]");

    final String nsA;
    final String nsB;
    /** HTTP address of node-a (namespace A's app-tier end). */
    final String httpA;
    /** HTTP address of node-b and node-c (namespace B's app-tier end). */
    final String httpB;
    /** Replication (JGroups bind) address of namespace A. */
    final String replA;
    /** Replication (JGroups bind) address of namespace B. */
    final String replB;
    private final String net;
    private final String tag;
    private final Thread hook = new Thread(this::teardown, "partition-network-teardown");

    private PartitionNetwork(String tag, String net) {
        this.tag = tag;
        this.net = net;
        this.nsA = "srpart-" + tag + "-a";
        this.nsB = "srpart-" + tag + "-b";
        this.httpA = net + ".2";
        this.httpB = net + ".6";
        this.replA = net + ".9";
        this.replB = net + ".10";
    }

    /** Builds the topology, or skips the calling test with the reason it cannot be built here. */
    static PartitionNetwork create() {
        String reason = unavailableReason();
        Assumptions.assumeTrue(reason == null, () -> "skipped: " + reason);
        removeLeftovers();
        long pid = ProcessHandle.current().pid();
        PartitionNetwork network = new PartitionNetwork(Long.toString(pid), freeNet(pid));
        Runtime.getRuntime().addShutdownHook(network.hook);
        try {
            network.build();
        } catch (RuntimeException e) {
            network.close();
            throw e;
        }
        return network;
    }

    /** The command prefix that runs a process inside namespace {@code ns}. */
    static List<String> exec(String ns) {
        return List.of("ip", "netns", "exec", ns);
    }

    /** Cuts the replication link: namespace A's end goes down, namespace B's end loses its carrier. */
    void cut() {
        run(true, "ip", "-n", nsA, "link", "set", replicationEnd(), "down");
    }

    /** Restores the replication link. */
    void heal() {
        run(true, "ip", "-n", nsA, "link", "set", replicationEnd(), "up");
    }

    String describe() {
        return "namespaces " + nsA + " (node-a) and " + nsB + " (node-b, node-c), " + net
                + ".0/24, replication veth " + replicationEnd() + " between them";
    }

    /** Removes the namespaces and links. Idempotent. */
    @Override
    public void close() {
        teardown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook is running or has run
        }
    }

    private String replicationEnd() {
        return "sp" + tag + "r0";
    }

    private void build() {
        run(true, "ip", "netns", "add", nsA);
        run(true, "ip", "netns", "add", nsB);
        for (String ns : List.of(nsA, nsB)) {
            run(true, "ip", "-n", ns, "link", "set", "lo", "up");
        }
        vethPair("sp" + tag + "ha0", null, net + ".1/30", "sp" + tag + "ha1", nsA, httpA + "/30");
        vethPair("sp" + tag + "hb0", null, net + ".5/30", "sp" + tag + "hb1", nsB, httpB + "/30");
        vethPair(replicationEnd(), nsA, replA + "/30", "sp" + tag + "r1", nsB, replB + "/30");
    }

    private void teardown() {
        // a namespace still holding processes lives on until they end; its veths go with it
        run(false, "ip", "netns", "del", nsA);
        run(false, "ip", "netns", "del", nsB);
        run(false, "ip", "link", "del", "sp" + tag + "ha0");
        run(false, "ip", "link", "del", "sp" + tag + "hb0");
    }

    /** Namespaces of earlier runs whose JVM no longer exists (killed before its shutdown hook ran). */
    private static void removeLeftovers() {
        for (String line : run(false, "ip", "netns", "list").output().lines().toList()) {
            Matcher m = OURS.matcher(line.split("\\s+")[0]);
            if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                System.out.println("removing network namespace " + m.group() + " left by an earlier run");
                run(false, "ip", "netns", "del", m.group());
                run(false, "ip", "link", "del", "sp" + m.group(1) + "ha0");
                run(false, "ip", "link", "del", "sp" + m.group(1) + "hb0");
            }
        }
    }

    /**
     * Why namespaces cannot be used here, or null when they can: not root, no {@code ip} (after trying
     * {@code apt-get install -y iproute2}), or the kernel/sandbox refuses a namespace or a veth pair.
     */
    private static String unavailableReason() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "network namespaces need root (running as " + System.getProperty("user.name") + ")";
        }
        if (!hasIp()) {
            System.out.println("iproute2 missing: apt-get install -y iproute2");
            if (run(false, "apt-get", "install", "-y", "-q", "iproute2").code() != 0) {
                run(false, "apt-get", "update", "-q");
                run(false, "apt-get", "install", "-y", "-q", "iproute2");
            }
            if (!hasIp()) {
                return "iproute2 (ip) is not installed and apt-get install -y iproute2 failed";
            }
        }
        String probe = "srpart-probe-" + ProcessHandle.current().pid();
        run(false, "ip", "netns", "del", probe);
        Result add = run(false, "ip", "netns", "add", probe);
        if (add.code() != 0) {
            return "creating a network namespace is not permitted here: " + add.output().trim();
        }
        String veth = "spprobe" + (ProcessHandle.current().pid() % 100_000);
        Result link = run(false, "ip", "-n", probe, "link", "add", veth, "type", "veth", "peer", "name", veth + "p");
        run(false, "ip", "netns", "del", probe);
        if (link.code() != 0) {
            return "creating a veth pair is not permitted here: " + link.output().trim();
        }
        return null;
    }

    private static boolean hasIp() {
        return run(false, "ip", "-V").code() == 0;
    }

    /** The first 10.252.x.0/24 (x from {@code pid}) that no address or route of this host uses. */
    private static String freeNet(long pid) {
        String addresses = run(true, "ip", "-4", "addr").output();
        String routes = run(true, "ip", "-4", "route", "show", "table", "all").output();
        for (int i = 0; i < 250; i++) {
            String candidate = "10.252." + ((pid + i) % 250 + 1);
            if (!addresses.contains(" " + candidate + ".") && !routes.contains(candidate + ".")) {
                return candidate;
            }
        }
        throw new IllegalStateException("every 10.252.x.0/24 is in use on this host");
    }

}
