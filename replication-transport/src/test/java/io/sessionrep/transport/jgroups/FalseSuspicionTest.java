package io.sessionrep.transport.jgroups;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.discovery.CrashAwareVerifySuspect;
import org.jgroups.Address;
import org.jgroups.Event;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A member that suspects another probes its transport port ({@code CrashAwareVerifySuspect}) and confirms the
 * suspicion at once only if the port refuses. A live member wrongly suspected (here: a suspicion raised by hand
 * in b's stack) stays in the view, is not confirmed by the probe, and its channel port logs the probe's connection
 * (or, if its answer is slow, the few probes' connections), which closes before it says who it is, at DEBUG: no
 * warning on every false suspicion, and no refusal counted (the port's gate, {@code HandshakeGate}, sees it close
 * before its handshake; JGroups' server never sees it). Plain and with TLS (the probe then completes a handshake with the prober's key).
 */
@Timeout(60)
class FalseSuspicionTest {

    /** The logger JGroups' TCP server and the channel port's gate write to: the transport protocol's. */
    private static final Logger SERVER_LOG = Logger.getLogger("io.sessionrep.discovery.IsolatingTcp");

    @TempDir
    Path dir;

    @Test
    void aLiveMemberWronglySuspectedStaysAndIsNotWarnedAbout() throws Exception {
        try (TestNodes nodes = new TestNodes()) {
            int[] ports = TestNodes.freePorts(2);
            suspectALiveMember(nodes, i -> nodes.staticNode(i == 0 ? "a" : "b", ports[i], ports[1 - i]));
        }
    }

    @Test
    void aLiveTlsMemberWronglySuspectedStaysAndIsNotWarnedAbout() throws Exception {
        TestCertificates certificates = new TestCertificates(dir);
        Path[] keystores = {certificates.keystore("a"), certificates.keystore("b")};
        Path trust = certificates.truststore("trust", "a", "b");
        try (TestNodes nodes = new TestNodes()) {
            int[] ports = TestNodes.freePorts(2);
            suspectALiveMember(nodes, i -> TlsClusterTest.withTls(
                    nodes.staticNode(i == 0 ? "a" : "b", ports[i], ports[1 - i]), keystores[i], trust).build());
        }
    }

    private static boolean settled(JGroupsTransport node) {
        org.jgroups.stack.ProtocolStack stack = node.channel().getProtocolStack();
        org.jgroups.protocols.FD_SOCK2 watch = stack.findProtocol(org.jgroups.protocols.FD_SOCK2.class);
        CrashAwareVerifySuspect verifier = stack.findProtocol(CrashAwareVerifySuspect.class);
        return "CONNECTED".equals(watch.getClientState()) && "[]".equals(verifier.getSuspects());
    }

    private static void suspectALiveMember(TestNodes nodes, IntFunction<ReplicationConfig> config) throws Exception {
        List<LogRecord> acceptFailures = new CopyOnWriteArrayList<>();
        Handler recorder = new Handler() {
            @Override
            public void publish(LogRecord record) {
                String message = record.getMessage();
                if (message != null && message.contains("closed before its handshake")) {
                    acceptFailures.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Level before = SERVER_LOG.getLevel();
        SERVER_LOG.setLevel(Level.ALL);
        SERVER_LOG.addHandler(recorder);
        try {
            JGroupsTransport a = nodes.start(config.apply(0), new RecordingReceiver());
            JGroupsTransport b = nodes.start(config.apply(1), new RecordingReceiver());
            await().atMost(Duration.ofSeconds(30)).until(() -> a.members().size() == 2 && b.members().size() == 2);
            Address aAddress = a.channel().getAddress();
            CrashAwareVerifySuspect verifier = b.channel().getProtocolStack().findProtocol(CrashAwareVerifySuspect.class);
            // settled: each watches the other, nothing suspected (right after a join, a member whose FD_SOCK2 was not
            // listening yet can be suspected and probed once), and no probe of that time counted below
            await().atMost(Duration.ofSeconds(30)).until(() -> settled(a) && settled(b));
            acceptFailures.clear();

            verifier.up(new Event(Event.SUSPECT, List.of(aAddress))); // as FD_SOCK2 or FD_ALL3 would raise it

            await().atMost(Duration.ofSeconds(10)).until(() -> !acceptFailures.isEmpty()); // the probe reached a
            Thread.sleep(2 * CrashAwareVerifySuspect.class.getDeclaredConstructor().newInstance().getTimeout() + 500);
            assertEquals(0, verifier.confirmedByRefusal(), "a live member's port accepts: no confirmation");
            assertEquals(2, b.members().size(), "a answered 'are you dead?' and stays: " + b.members());
            // probed once, or again while a's answer was still on its way (a loaded machine), each time at DEBUG
            List<Level> levels = acceptFailures.stream().map(LogRecord::getLevel).toList();
            java.util.function.Supplier<String> seen = () -> "the probes' connections, at DEBUG: " + acceptFailures.stream()
                    .map(r -> r.getLevel() + " " + r.getMessage()).toList();
            assertTrue(levels.size() <= CrashAwareVerifySuspect.MAX_PROBES, seen);
            assertEquals(List.of(Level.FINE), levels.stream().distinct().toList(), seen);
            assertEquals(0, a.counters().silentConnections() + a.counters().badHandshakes(), "no refusal counted");
        } finally {
            SERVER_LOG.removeHandler(recorder);
            SERVER_LOG.setLevel(before);
        }
    }
}
