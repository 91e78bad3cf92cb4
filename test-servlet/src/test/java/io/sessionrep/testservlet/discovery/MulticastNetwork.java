package io.sessionrep.testservlet.discovery;

import io.sessionrep.testservlet.LocalCluster;
import io.sessionrep.testsupport.LoopbackMulticast;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the multicast tests' nodes run: on this host's loopback when it carries IP multicast (a probe
 * datagram to the test's group comes back), otherwise in a network namespace the test creates itself
 * ({@code src/test/scripts/multicast-netns.sh}: loopback with multicast on and a 224.0.0.0/4 route, a veth
 * pair to reach the nodes' HTTP ports; installs iproute2 if missing), otherwise the test is skipped with
 * the reason. Never a silent pass.
 *
 * <p>System property {@value #PROPERTY}: {@code auto} (default), {@code loopback} (never a namespace) or
 * {@code netns} (always the namespace, to exercise the fallback on a host whose loopback works).
 */
final class MulticastNetwork implements AutoCloseable {

    static final String PROPERTY = "sessionrep.it.multicast-network";
    private static final AtomicInteger NETWORKS = new AtomicInteger();
    private static final Path SCRIPT = Path.of("src/test/scripts/multicast-netns.sh");

    /** A group and port of their own, so concurrent runs on one host do not even see each other's traffic. */
    final String group = "228.9." + ThreadLocalRandom.current().nextInt(1, 255) + "."
            + ThreadLocalRandom.current().nextInt(1, 255);
    final int port = ThreadLocalRandom.current().nextInt(47_000, 48_000);

    private final String namespace;
    private final String httpHost;
    private final String description;

    private MulticastNetwork(String namespace, String httpHost, String description) {
        this.namespace = namespace;
        this.httpHost = httpHost;
        this.description = description;
    }

    /** The network for a multicast test; skips the calling test (JUnit assumption) when there is none. */
    static MulticastNetwork prepare() throws IOException, InterruptedException {
        String wanted = System.getProperty(PROPERTY, "auto");
        if (!List.of("auto", "loopback", "netns").contains(wanted)) {
            throw new IllegalArgumentException(PROPERTY + ": '" + wanted + "'; expected auto, loopback or netns");
        }
        MulticastNetwork loopback = new MulticastNetwork(null, "127.0.0.1", "this host's loopback");
        if (!wanted.equals("netns")) {
            String problem = LoopbackMulticast.problem(loopback.group, loopback.port);
            if (problem == null) {
                return loopback;
            }
            Assumptions.assumeFalse(wanted.equals("loopback"), () -> "skipped: IP multicast does not work on this"
                    + " host's loopback (" + problem + ") and " + PROPERTY + "=loopback forbids a namespace");
            System.out.println("IP multicast does not work on this host's loopback (" + problem
                    + "): running the nodes in a network namespace");
        }
        long pid = ProcessHandle.current().pid();
        String name = "srmc" + (pid % 100_000) + "-" + ThreadLocalRandom.current().nextInt(100);
        int index = (int) ((pid + NETWORKS.getAndIncrement()) % 250) + 1; // a /30 of its own: 10.251.<index>.0
        Process setup = new ProcessBuilder("/bin/sh", SCRIPT.toString(), "setup", name, String.valueOf(index))
                .redirectErrorStream(true).start();
        String output = new String(setup.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!setup.waitFor(5, TimeUnit.MINUTES)) {
            setup.destroyForcibly();
            teardown(name);
            Assumptions.abort("skipped: setting up a multicast network namespace did not finish in 5 minutes");
        }
        if (setup.exitValue() == 3) {
            Assumptions.abort("skipped: IP multicast does not work on this host's loopback and no network"
                    + " namespace could be made for it: " + output.strip());
        }
        if (setup.exitValue() != 0) {
            teardown(name);
            throw new IllegalStateException(SCRIPT + " setup failed (exit " + setup.exitValue() + "): " + output);
        }
        String nsAddress = output.lines().filter(l -> l.startsWith("NS_ADDRESS=")).findFirst()
                .map(l -> l.substring("NS_ADDRESS=".length()).strip())
                .orElseThrow(() -> new IllegalStateException("no NS_ADDRESS from " + SCRIPT + ": " + output));
        MulticastNetwork network = new MulticastNetwork(name, nsAddress, "network namespace " + name);
        Runtime.getRuntime().addShutdownHook(new Thread(network::close));
        return network;
    }

    /** Runs the cluster's nodes on this network: inside the namespace, HTTP on its veth address. */
    LocalCluster.Builder apply(LocalCluster.Builder cluster) {
        if (namespace != null) {
            cluster.commandPrefix(List.of("ip", "netns", "exec", namespace)).httpHost(httpHost);
        }
        return cluster;
    }

    @Override
    public String toString() {
        return description + ", group " + group + ":" + port;
    }

    /** Removes the namespace (if any). Idempotent. */
    @Override
    public void close() {
        if (namespace != null) {
            teardown(namespace);
        }
    }

    private static void teardown(String name) {
        try {
            Process p = new ProcessBuilder("/bin/sh", SCRIPT.toString(), "teardown", name)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            p.waitFor(30, TimeUnit.SECONDS);
        } catch (IOException e) {
            System.err.println("could not remove network namespace " + name + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
