package io.sessionrep.testservlet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code ./demo.sh --exit} end to end (the same main, in this JVM; the nodes are processes). */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ClusterDemoIT {

    @Test
    void theSessionSurvivesTheKillOfItsNode() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        String logDir = System.getProperty(LocalCluster.LOG_DIR_PROPERTY, "target/cluster-logs");

        int code = ClusterDemo.run(new String[]{"--exit", "--log-dir=" + logDir, "--replication-mode=sync"}, out);

        String text = bytes.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        assertEquals(0, code, text);
        assertTrue(text.contains("kill -9 node-a"), text);
        assertTrue(text.contains("OK: node-b serves session"), text);
        assertTrue(text.contains("exit code 137 (SIGKILL)"), text);
    }

    @Test
    void badFlagExitsWith2() throws Exception {
        assertEquals(2, ClusterDemo.run(new String[]{"--exit", "not-a-flag"}, System.out));
    }
}
