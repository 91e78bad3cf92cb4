package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.TransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A member whose process is killed (SIGKILL, no goodbye) leaves the others' view within seconds. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FailureDetectionTest {

    private final TestNodes nodes = new TestNodes();
    private Process child;

    @AfterEach
    void cleanUp() {
        if (child != null) {
            child.destroyForcibly();
        }
        nodes.close();
    }

    @Test
    void killedProcessIsRemovedFromTheViewAndItsPendingRequestsFail() throws Exception {
        int[] ports = TestNodes.freePorts(2);
        RecordingReceiver ra = new RecordingReceiver();
        JGroupsTransport a = nodes.start(nodes.staticNode("a", ports[0], ports[1]), ra);
        Path log = Files.createTempFile("child-node", ".log");
        child = new ProcessBuilder(javaExecutable(), "-Djava.net.preferIPv4Stack=true", "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), ChildNode.class.getName(),
                "b", nodes.clusterName, String.valueOf(ports[1]), String.valueOf(ports[0]))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Member b = new Member("b", "b-host");
        await().atMost(Duration.ofSeconds(60)).until(() -> a.members().contains(b) || !child.isAlive());
        assertTrue(child.isAlive(), () -> "child node died: " + read(log));

        CompletableFuture<byte[]> pending = a.request(b, "never answered".getBytes(StandardCharsets.UTF_8),
                Duration.ofSeconds(60));
        long killed = System.nanoTime();
        child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);

        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(20))
                .until(() -> a.members().equals(List.of(new Member("a", "a-host"))));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        System.out.println("killed member left the view after " + millis + " ms");
        ExecutionException e = assertThrows(ExecutionException.class, () -> pending.get(1, TimeUnit.SECONDS));
        assertInstanceOf(TransportException.class, e.getCause());
        assertTrue(millis < 10_000, "detection took " + millis + " ms");
    }

    private static String javaExecutable() {
        return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (Exception e) {
            return "(no log: " + e + ")";
        }
    }
}
