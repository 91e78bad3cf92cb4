package io.sessionrep.testservlet.dist;

import io.sessionrep.testservlet.SessionClient;
import io.sessionrep.testservlet.SessionReply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Jetty module install in the official Jetty 12.1 distribution, done as docs/install-jetty.md says:
 * the overlay unzipped into a fresh Jetty base, {@code start.jar --add-modules=http,ee10-deploy,sessionrep},
 * the options appended to {@code start.d/sessionrep.ini}, the test WAR dropped into {@code webapps/}. Two
 * such bases run as separate processes.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class JettyModuleIT {
    static final Duration START = Duration.ofSeconds(90);
    static final String MODULES = "http,ee10-deploy,sessionrep";

    /** Replication, invalidation everywhere, fail-over after kill -9 of the primary with the route rewritten. */
    @Test
    void twoNodesReplicateFailOverAndInvalidateEverywhere() throws Exception {
        int[] ports = Distribution.freePorts(4);
        String cluster = "module-it-" + ProcessHandle.current().pid();
        Path baseA = moduleBase("module-a", "node-a", ports[0], ports[2], ports[3], cluster);
        Path baseB = moduleBase("module-b", "node-b", ports[1], ports[3], ports[2], cluster);
        try (DistNode a = DistNode.jetty("node-a", baseA, ports[0], jvm("node-a"), List.of());
             DistNode b = DistNode.jetty("node-b", baseB, ports[1], jvm("node-b"), List.of())) {
            a.awaitJettyStarted(START);
            b.awaitJettyStarted(START);
            a.awaitView(START, "node-a", "node-b");
            b.awaitView(START, "node-a", "node-b");
            Scenarios.replicateInvalidateFailOver(a, b, SessionClient.COOKIE);
        }
    }

    /** A bad module property stops the server's start-up, with a message that names the option. */
    @Test
    void badModulePropertyStopsTheServerNamingTheOption() throws Exception {
        int[] ports = Distribution.freePorts(2);
        Path base = moduleBase("module-bad", "node-x", ports[0], ports[1], ports[1], "module-bad");
        Distribution.append(base.resolve("start.d/sessionrep.ini"), "sessionrep.write-quota=-1");
        try (DistNode bad = DistNode.jetty("node-x", base, ports[0], jvm("node-x"), List.of())) {
            int exit = bad.awaitExit(START);
            assertNotEquals(0, exit, "start-up must fail:\n" + bad.tail());
            assertTrue(bad.log().contains("write-quota: -1 is not allowed"), "the log names the option:\n" + bad.tail());
            assertTrue(!bad.log().contains("Started oejs.Server@"), "the server must not start:\n" + bad.tail());
        }
    }

    /** A Jetty base set up as docs/install-jetty.md says, for one node of a two-node static ring. */
    static Path moduleBase(String dir, String node, int httpPort, int bindPort, int peerPort, String cluster)
            throws Exception {
        Path base = Distribution.newJettyBase(dir, MODULES, Distribution.moduleZip());
        Path ini = base.resolve("start.d/sessionrep.ini");
        assertTrue(Files.readString(ini).contains("sessionrep.write-quota"), "the ini template lists the options");
        Distribution.append(ini,
                "sessionrep.node-name=" + node,
                "sessionrep.machine-id=machine-" + node,
                "sessionrep.cluster-name=" + cluster,
                "sessionrep.bind-port=" + bindPort,
                "sessionrep.peers=127.0.0.1:" + peerPort);
        Distribution.append(base.resolve("start.d/http.ini"), "jetty.http.port=" + httpPort);
        Files.copy(Distribution.war(), base.resolve("webapps/session-test.war"));
        return base;
    }

    /** JVM options: IPv4 for JGroups, and the test servlet's node name (only what it reports). */
    static List<String> jvm(String node) {
        return List.of("-Djava.net.preferIPv4Stack=true", "-Dsessionrep.node-name=" + node, "-Xmx256m",
                "-XX:TieredStopAtLevel=1");
    }
}
