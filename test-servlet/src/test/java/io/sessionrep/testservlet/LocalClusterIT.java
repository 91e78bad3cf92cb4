package io.sessionrep.testservlet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The multi-process harness itself, on plain nodes ({@code --replication=off}): needs no other module. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LocalClusterIT {

    @Test
    void startsNamedNodesThatServeTheServletAndDieBySigkill() throws Exception {
        ByteArrayOutputStream echo = new ByteArrayOutputStream();
        try (LocalCluster cluster = LocalCluster.builder().size(2).replication(false)
                .echo(new PrintStream(echo, true)).start()) {
            NodeProcess a = cluster.node("node-a");
            NodeProcess b = cluster.node(1);
            assertEquals("node-b", b.name());
            assertNotEquals(a.sessionUri(), b.sessionUri());
            assertTrue(echo.toString().contains("[node-a] READY node=node-a http=" + a.sessionUri()), echo.toString());
            assertTrue(echo.toString().contains("[node-b] READY node=node-b http=" + b.sessionUri()), echo.toString());

            SessionClient user = new SessionClient(SessionClient.newHttpClient(), Duration.ofSeconds(10));
            SessionReply created = user.initialize(a.sessionUri(), 2, 5);
            assertEquals("node-a", created.node());
            assertTrue(user.cookie().endsWith(".node-a"), user.cookie());
            assertEquals(Workload.expected(2, 5, 1), user.process(a.sessionUri()).state());

            SessionReply elsewhere = user.verify(b.sessionUri());
            assertEquals(404, elsewhere.status(), "no replication: node-b does not know the session");
            assertEquals("node-b", elsewhere.node());

            assertEquals(137, cluster.kill9(a), "SIGKILL: 128 + 9");
            assertFalse(a.isAlive());
            assertEquals(1, cluster.alive().size());
            assertTrue(Files.readString(a.logFile()).contains("READY node=node-a"));

            int stopped = cluster.stop(b);
            assertEquals(143, stopped, "SIGTERM runs the shutdown hooks: 128 + 15");
            assertTrue(Files.readString(b.logFile()).contains("Stopped"), "Jetty stopped in order");
            assertEquals(0, cluster.alive().size());
        }
    }

    @Test
    void closeKillsEveryNode() throws Exception {
        LocalCluster cluster = LocalCluster.builder().size(2).replication(false).echo(null).start();
        cluster.close();
        for (NodeProcess node : cluster.nodes()) {
            assertFalse(node.isAlive(), node.toString());
        }
        cluster.close();
    }

    @Test
    void aViewThatDoesNotComeIsReportedWithWhatEachNodeSawAndItsRecentViews() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder().size(1).echo(null).start()) {
            PrintStream out = System.out;
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            IllegalStateException e;
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            try {
                e = assertThrows(IllegalStateException.class,
                        () -> cluster.awaitView(Duration.ofMillis(200), "node-a", "node-b"));
            } finally {
                System.setOut(out);
            }
            assertTrue(e.getMessage().contains("node-b=not running"), e.getMessage());
            String report = printed.toString(StandardCharsets.UTF_8);
            assertTrue(report.contains("[node-a] ") && report.contains(" view 0 of cluster"), report);
        }
    }

    @Test
    void aNodeThatFailsToStartIsReportedWithItsLog() {
        NodeStartException e = assertThrows(NodeStartException.class, () -> LocalCluster.builder().size(1)
                .replication(false).jvmArgs(java.util.List.of("-Dx=1", "-XX:+NoSuchJvmFlag")).echo(null).start());
        assertEquals("node-a", e.node());
        assertEquals(1, e.exitCode());
        assertTrue(e.getMessage().contains("NoSuchJvmFlag"), e.getMessage());
    }
}
