package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MemberLeftException;
import io.sessionrep.discovery.CrashAwareVerifySuspect;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A member whose process is killed (no goodbye) or hangs leaves the others' view within seconds. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FailureDetectionTest {

    private static final Member B = new Member("b", "b-host");

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
        JGroupsTransport a = startWithChild();
        CompletableFuture<byte[]> pending = a.request(B, "never answered".getBytes(StandardCharsets.UTF_8),
                Duration.ofSeconds(60));
        // b settled: a's FD_SOCK2 watches it, and nothing is suspected (a member whose FD_SOCK2 was not listening
        // yet can be suspected right after it joined; killed during that check it is verified by the timeout)
        org.jgroups.protocols.FD_SOCK2 watch = a.channel().getProtocolStack().findProtocol(org.jgroups.protocols.FD_SOCK2.class);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> "CONNECTED".equals(watch.getClientState()) && "[]".equals(verifier(a).getSuspects()));
        long killed = System.nanoTime();
        child.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL: no goodbye, sockets closed by the kernel

        long millis = awaitAlone(a, killed, Duration.ofSeconds(15));
        System.out.println("killed member left the view after " + millis + " ms");
        ExecutionException e = assertThrows(ExecutionException.class, () -> pending.get(1, TimeUnit.SECONDS));
        assertInstanceOf(MemberLeftException.class, e.getCause(), "failed as a departure, not another failure");
        assertTrue(millis < 5_000, "detection took " + millis + " ms");
        // not after the verification's timeout: its port refused a connection, which proves the process gone
        assertEquals(1, verifier(a).confirmedByRefusal(), "the killed member was confirmed by its refused port");
    }

    @Test
    void hungProcessIsRemovedAfterTheHeartbeatTimeout() throws Exception {
        JGroupsTransport a = startWithChild();
        long stopped = System.nanoTime();
        Process stop = new ProcessBuilder("kill", "-STOP", String.valueOf(child.pid())).start(); // sockets stay open
        assertTrue(stop.waitFor(10, TimeUnit.SECONDS) && stop.exitValue() == 0, "kill -STOP failed");

        long millis = awaitAlone(a, stopped, Duration.ofSeconds(30));
        System.out.println("hung member left the view after " + millis + " ms");
        assertTrue(millis < 20_000, "detection took " + millis + " ms; expected about 8 s FD_ALL3 timeout + up to 2 s check + 1 s verify");
        // a hung process's kernel still accepts connections: no proof that it is gone, so it was verified as usual
        assertEquals(0, verifier(a).confirmedByRefusal(), "a hung member must not be confirmed by a probe");
    }

    private static CrashAwareVerifySuspect verifier(JGroupsTransport transport) {
        CrashAwareVerifySuspect verifier = transport.channel().getProtocolStack().findProtocol(CrashAwareVerifySuspect.class);
        assertNotNull(verifier, "the TCP stack verifies suspects with CrashAwareVerifySuspect");
        return verifier;
    }

    /**
     * Not failure detection, but it needs a fresh JVM: a node that has sent nothing yet must still read the
     * transport's frame header (JGroups can only read a header class registered before the message arrives).
     */
    @Test
    void aNodeInAFreshJvmThatHasSentNothingAnswersARequest() throws Exception {
        JGroupsTransport a = startWithChild("echo");
        byte[] question = "are you reading my header?".getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(question, a.request(B, question, Duration.ofSeconds(10)).get(15, TimeUnit.SECONDS));
    }

    /** Starts a here and b in a child JVM, each listing the other, and waits until a sees b. */
    private JGroupsTransport startWithChild(String... childOptions) throws Exception {
        int[] ports = TestNodes.freePorts(2);
        JGroupsTransport a = nodes.start(nodes.staticNode("a", ports[0], ports[1]), new RecordingReceiver());
        Path log = Files.createTempFile("child-node", ".log");
        log.toFile().deleteOnExit();
        child = ChildNode.launch(log, "b", nodes.clusterName, ports[1], ports[0], childOptions);
        await().atMost(Duration.ofSeconds(60)).until(() -> a.members().contains(B) || !child.isAlive());
        assertTrue(child.isAlive(), () -> "child node died: " + ChildNode.read(log));
        return a;
    }

    /** Waits until a is alone; returns the milliseconds since {@code sinceNanos}. */
    private static long awaitAlone(JGroupsTransport a, long sinceNanos, Duration atMost) {
        await().atMost(atMost).pollInterval(Duration.ofMillis(20))
                .until(() -> a.members().equals(List.of(new Member("a", "a-host"))));
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sinceNanos);
    }
}
