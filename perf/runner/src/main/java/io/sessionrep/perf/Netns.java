package io.sessionrep.perf;

import io.sessionrep.testservlet.NetworkCommands.Result;

import static io.sessionrep.testservlet.NetworkCommands.in;
import static io.sessionrep.testservlet.NetworkCommands.run;
import static io.sessionrep.testservlet.NetworkCommands.vethPair;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Two "machines" on one host for scenario 4: network namespaces {@value #NS_A} and {@value #NS_B}, each
 * with an app-tier link to the root namespace (where the load driver runs) and one replication link
 * between them, as a dedicated replication network would:
 * <pre>
 *   root  srp-ha0 NET.1/30 ==veth== srp-ha1 NET.2/30  sessionrep-a   (HTTP of node-a)
 *   root  srp-hb0 NET.5/30 ==veth== srp-hb1 NET.6/30  sessionrep-b   (HTTP of node-b)
 *   sessionrep-a  srp-r0 NET.9/30 ==veth== srp-r1 NET.10/30  sessionrep-b  (replication)
 * </pre>
 * NET is the first of {@link #CANDIDATES} (198.18.0.0/15 is the range RFC 2544 sets aside for network
 * benchmarks) that no address or route of this host already uses: the addresses exist only on these links.
 * The replication link's two ends get a token-bucket qdisc ({@code tbf}) at the configured rate (1 Gbit/s by
 * default: a dedicated replication network); latency is not shaped here (no {@code netem} in this kernel) but
 * in the nodes' JGroups stacks (PerfNode {@code --net-delay}). Needs root and iproute2.
 */
final class Netns implements AutoCloseable {

    static final String NS_A = "sessionrep-a";
    static final String NS_B = "sessionrep-b";
    static final List<String> CANDIDATES = List.of("198.18.231", "198.19.231", "10.231.77", "172.31.231");

    final String httpA;
    final String httpB;
    final String replA;
    final String replB;
    private final String net;
    private final String rate;

    private Netns(String net, String rate) {
        this.net = net;
        this.rate = rate;
        this.httpA = net + ".2";
        this.httpB = net + ".6";
        this.replA = net + ".9";
        this.replB = net + ".10";
    }

    /** The first candidate /24 that this host does not use (no address in it, not a connected route). */
    private static String freeNet() {
        String addresses = run(false, "ip", "-4", "addr").output();
        String routes = run(false, "ip", "-4", "route", "show", "table", "all").output();
        for (String c : CANDIDATES) {
            String first = c.substring(0, c.indexOf('.') + 1);
            boolean used = addresses.contains(" " + c + ".") || routes.contains(c + ".")
                    || routes.lines().anyMatch(l -> l.startsWith(first) && !l.startsWith("default"));
            if (!used) {
                return c;
            }
        }
        throw new IllegalStateException("every candidate network " + CANDIDATES + " is in use on this host");
    }

    /**
     * Why namespaces cannot be used here, or null when they can: not root, no {@code ip} (after trying
     * {@code apt-get install -y iproute2}), or the kernel/sandbox refuses.
     */
    static String unavailableReason() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "network namespaces need root (running as " + System.getProperty("user.name") + ")";
        }
        if (!hasIp()) {
            System.out.println("iproute2 missing: apt-get install -y iproute2");
            run(false, "apt-get", "install", "-y", "-q", "iproute2");
            if (!hasIp()) {
                return "iproute2 (ip) is not installed and apt-get install -y iproute2 failed";
            }
        }
        String probe = "sessionrep-probe";
        run(false, "ip", "netns", "del", probe);
        Result add = run(false, "ip", "netns", "add", probe);
        run(false, "ip", "netns", "del", probe);
        if (add.code() != 0) {
            return "creating a network namespace is not permitted here: " + add.output().trim();
        }
        return null;
    }

    private static boolean hasIp() {
        return run(false, "ip", "-V").code() == 0;
    }

    /** Builds the topology (removing leftovers of an earlier run first). */
    static Netns create(String rate) {
        teardown();
        Netns netns = new Netns(freeNet(), rate);
        run(true, "ip", "netns", "add", NS_A);
        run(true, "ip", "netns", "add", NS_B);
        for (String ns : List.of(NS_A, NS_B)) {
            run(true, "ip", "-n", ns, "link", "set", "lo", "up");
        }
        vethPair("srp-ha0", null, netns.net + ".1/30", "srp-ha1", NS_A, netns.httpA + "/30");
        vethPair("srp-hb0", null, netns.net + ".5/30", "srp-hb1", NS_B, netns.httpB + "/30");
        vethPair("srp-r0", NS_A, netns.replA + "/30", "srp-r1", NS_B, netns.replB + "/30");
        if (rate != null && !rate.equals("none")) {
            run(true, "ip", "netns", "exec", NS_A, "tc", "qdisc", "add", "dev", "srp-r0", "root", "tbf",
                    "rate", rate, "burst", "256kb", "latency", "50ms");
            run(true, "ip", "netns", "exec", NS_B, "tc", "qdisc", "add", "dev", "srp-r1", "root", "tbf",
                    "rate", rate, "burst", "256kb", "latency", "50ms");
        }
        return netns;
    }

    /** The command prefix that runs a process inside namespace {@code ns}. */
    static List<String> exec(String ns) {
        return List.of("ip", "netns", "exec", ns);
    }

    /** What the report says about the links. */
    String describe() {
        return "namespaces " + NS_A + " and " + NS_B + " (" + net + ".0/24) joined by a veth replication link"
                + (rate == null || rate.equals("none") ? " (no rate limit)" : " shaped by tbf to " + rate)
                + ", each with a veth app-tier link to the load driver";
    }

    private static void teardown() {
        run(false, "ip", "link", "del", "srp-ha0");
        run(false, "ip", "link", "del", "srp-hb0");
        run(false, "ip", "netns", "del", NS_A);
        run(false, "ip", "netns", "del", NS_B);
    }

    @Override
    public void close() {
        teardown();
    }

}
