package io.sessionrep.testservlet;

import io.sessionrep.core.config.ConfigException;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The fail-over demo behind {@code ./demo.sh}: three nodes on 127.0.0.1, a session created and processed on
 * node-a, node-a killed with SIGKILL, the same cookie sent to node-b, which serves the session with the
 * same checksum. Then it keeps the survivors running until Ctrl-C, or with {@code --exit} returns.
 *
 * <p>Flags: {@code --exit}, {@code --log-dir=DIR} (node logs, default target/demo-logs); every other
 * {@code --name=value} is a replication option for all nodes (e.g. {@code --replication-mode=sync}).
 * Exit code: 0 the session survived intact, 1 it did not (or a node failed to start), 2 bad flags.
 */
public final class ClusterDemo {

    static final int NUMBER = 2;
    static final int SIZE_KIB = 5;

    private ClusterDemo() {
    }

    public static void main(String[] args) throws Exception {
        boolean exit = false;
        for (String arg : args) {
            exit |= arg.equals("--exit");
        }
        int code = run(args, System.out);
        if (exit || code != 0) {
            System.exit(code);
        }
    }

    /**
     * Runs the scenario. Without {@code --exit} and on success, waits (for Ctrl-C) with the survivors running
     * and never returns; otherwise kills the nodes and returns the exit code.
     */
    public static int run(String[] args, PrintStream out) throws Exception {
        boolean exit = false;
        Path logDir = Path.of("target", "demo-logs");
        Map<String, String> options = new LinkedHashMap<>();
        try {
            for (String arg : args) {
                if (arg.equals("--exit")) {
                    exit = true;
                } else if (arg.startsWith("--log-dir=")) {
                    logDir = Path.of(arg.substring("--log-dir=".length()));
                } else {
                    LauncherOptions parsed = LauncherOptions.parse(arg);
                    if (!parsed.replication() || parsed.help() || parsed.replicationOptions().isEmpty()) {
                        throw new ConfigException(arg, "is not a replication option; expected --name=value");
                    }
                    options.putAll(parsed.replicationOptions());
                }
            }
        } catch (ConfigException e) {
            System.err.println("configuration error: " + e.getMessage());
            return NodeLauncher.EXIT_CONFIGURATION_ERROR;
        }
        String mode = options.getOrDefault("replication-mode", "async");

        out.println("== Starting 3 nodes on 127.0.0.1 (replication " + (options.isEmpty() ? "defaults" : options)
                + "), logs in " + logDir.toAbsolutePath());
        LocalCluster cluster;
        try {
            cluster = LocalCluster.builder().size(3).options(options).logDir(logDir).echo(out).start();
        } catch (NodeStartException e) {
            System.err.println("a node did not start: " + e.getMessage());
            Integer code = e.exitCode();
            return code != null && code == NodeLauncher.EXIT_CONFIGURATION_ERROR ? code : 1;
        }
        try {
            printNodes(cluster, out);
            SessionClient user = new SessionClient(SessionClient.newHttpClient(), Duration.ofSeconds(10));
            boolean survived = scenario(cluster, user, mode, out);
            if (!survived || exit) {
                return survived ? 0 : 1;
            }
            out.println();
            out.println("== Survivors still running (Ctrl-C stops them):");
            printNodes(cluster, out);
            out.println("   try: curl -s -H 'Cookie: " + SessionClient.COOKIE + "=" + user.cookie() + "' '"
                    + cluster.alive().get(cluster.alive().size() - 1).sessionUri() + "?mode=verify'");
            Thread.currentThread().join();
            return 0;
        } finally {
            cluster.close();
        }
    }

    private static boolean scenario(LocalCluster cluster, SessionClient user, String mode, PrintStream out)
            throws Exception {
        NodeProcess a = cluster.node(0);
        NodeProcess b = cluster.node(1);

        out.println();
        out.println("== 1. Create a session on " + a.name() + ": initialize number=" + NUMBER + " size=" + SIZE_KIB
                + " KiB, then process");
        SessionReply created = user.initialize(a.sessionUri(), NUMBER, SIZE_KIB);
        out.println("   initialize -> " + describe(created));
        SessionReply processed = user.process(a.sessionUri());
        out.println("   process    -> " + describe(processed));
        out.println("   cookie     JSESSIONID=" + user.cookie());
        if (!created.ok() || !processed.ok()) {
            out.println("FAILED: " + a.name() + " did not serve the session");
            return false;
        }
        if (!"sync".equals(mode)) {
            out.println("   (" + mode + " replication: giving the update 1 s to reach its backup)");
            Thread.sleep(1000);
        }

        out.println();
        out.println("== 2. kill -9 " + a.name() + " (pid " + a.pid() + ")");
        int code = cluster.kill9(a);
        out.println("   " + a.name() + " is gone, exit code " + code + (code == 137 ? " (SIGKILL)" : ""));

        out.println();
        out.println("== 3. Same cookie to " + b.name() + ": verify");
        String cookieBefore = user.cookie();
        SessionReply verified = user.verify(b.sessionUri());
        out.println("   verify     -> " + describe(verified));
        out.println("   cookie     JSESSIONID=" + user.cookie() + (verified.setCookie() == null
                ? " (unchanged, no Set-Cookie)" : " (Set-Cookie from " + verified.node() + ")"));
        out.println("   route      " + route(cookieBefore) + " -> " + route(user.cookie()));

        boolean same = verified.ok() && processed.checksum().equals(verified.checksum())
                && processed.session().equals(verified.session());
        out.println();
        if (same) {
            out.println("OK: " + verified.node() + " serves session " + verified.session() + " at version "
                    + verified.version() + " with the same checksum " + shortSum(verified.checksum()));
        } else {
            out.println("FAILED: expected session " + processed.session() + " version " + processed.version()
                    + " checksum " + shortSum(processed.checksum()) + ", got " + describe(verified));
        }
        return same;
    }

    private static void printNodes(LocalCluster cluster, PrintStream out) {
        for (NodeProcess node : cluster.alive()) {
            URI uri = node.sessionUri();
            out.printf("   %-7s pid %-7d %s   replication 127.0.0.1:%d   log %s%n",
                    node.name(), node.pid(), uri, node.bindPort(), node.logFile());
        }
    }

    private static String describe(SessionReply reply) {
        if (!reply.ok()) {
            return "HTTP " + reply.status() + " from " + reply.node() + ": " + reply.error();
        }
        return "node=" + reply.node() + " session=" + reply.session() + " version=" + reply.version()
                + " attributes=" + reply.fields().get("attributes") + " bytes=" + reply.fields().get("bytes")
                + " checksum=" + shortSum(reply.checksum());
    }

    /** The route suffix of a session cookie ({@code .node-a}), or "(none)". */
    static String route(String cookie) {
        if (cookie == null) {
            return "(no cookie)";
        }
        int dot = cookie.lastIndexOf('.');
        return dot < 0 ? "(none)" : cookie.substring(dot);
    }

    private static String shortSum(String checksum) {
        return checksum == null ? "null" : checksum.substring(0, Math.min(16, checksum.length())) + "...";
    }
}
