package io.sessionrep.transport.jgroups.lane;

import io.sessionrep.transport.jgroups.TestNodes;
import io.sessionrep.transport.jgroups.TlsClusterTest;
import io.sessionrep.transport.jgroups.RecordingReceiver;
import io.sessionrep.transport.jgroups.TestCertificates;
import io.sessionrep.transport.jgroups.LaneHooks;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.ReplicationTransport.Outbound;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

/**
 * The data lane with mutual TLS ({@code tls-keystore}, {@code tls-truststore}) between real transports on 127.0.0.1: its
 * connections are TLS with the channel's stores, so sync requests and async batches take it as without TLS; a plain
 * connection, and a TLS one whose certificate the node does not trust, are refused and counted before a byte of them
 * is read as a frame, even when they carry a member's true addresses.
 */
@Timeout(120)
@Tag("extended")
class TlsLaneTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    @TempDir
    static Path dir;
    private static TestCertificates certificates;
    private static Path trust;

    private final TestNodes nodes = new TestNodes();

    @BeforeAll
    static void certificates() throws Exception {
        certificates = new TestCertificates(dir);
        certificates.keystore("a");
        certificates.keystore("b");
        certificates.keystore("intruder");
        trust = certificates.truststore("trust", "a", "b");
    }

    @AfterEach
    void close() {
        nodes.close();
    }

    /** Two nodes with mutual TLS, each with its own key store and the trust store of both. */
    private TestNodes.Pair tlsPair(RecordingReceiver onA, RecordingReceiver onB) throws IOException {
        return nodes.startPair(onA, onB, options -> {
            ReplicationConfig plain = options.build();
            return TlsClusterTest.withTls(plain, dir.resolve(plain.nodeName() + ".p12"), trust);
        });
    }

    @Test
    void syncRequestsAndAsyncBatchesTakeTheLaneInsideTls() throws Exception {
        RecordingReceiver onB = new RecordingReceiver().answering((sender, m) -> "ack".getBytes(StandardCharsets.UTF_8));
        TestNodes.Pair p = tlsPair(new RecordingReceiver(), onB);
        assertTrue(p.b().dataLanePort() > 0, "a TLS node opens its lane");
        Member b = TestNodes.other(p.a());

        byte[] reply = LaneHooks.requestOverLane(p.a(), b, "sync 1".getBytes(StandardCharsets.UTF_8), TIMEOUT);
        assertArrayEquals("ack".getBytes(StandardCharsets.UTF_8), reply, "answered over the lane, not left to the channel");

        p.a().sendAll(List.of(new Outbound(b, "async 1".getBytes(StandardCharsets.UTF_8)),
                new Outbound(b, "async 2".getBytes(StandardCharsets.UTF_8))));
        await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 3);
        assertEquals(List.of("sync 1", "async 1", "async 2"), onB.messages.stream()
                .map(m -> new String(m.message(), StandardCharsets.UTF_8)).toList());
        await().atMost(Duration.ofSeconds(5)).until(() -> p.a().counters().laneExchanges() == 2); // the request, the batch
        assertEquals(0, p.a().counters().lanePauses());
    }

    @Test
    void anAsyncPipeInsideTlsKeepsItsConnectionThroughAQuietSecond() throws Exception {
        RecordingReceiver onB = new RecordingReceiver();
        TestNodes.Pair p = tlsPair(new RecordingReceiver(), onB);
        Member b = TestNodes.other(p.a());

        p.a().sendAll(List.of(new Outbound(b, "before".getBytes(StandardCharsets.UTF_8))));
        await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 1);
        int connections = LaneHooks.laneConnectionsAccepted(p.b());
        Thread.sleep(1_000); // far longer than the handshake's time-out (the connect's, at most 200 ms)
        p.a().sendAll(List.of(new Outbound(b, "after".getBytes(StandardCharsets.UTF_8))));
        await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 2);

        await().atMost(Duration.ofSeconds(5)).until(() -> p.a().counters().laneExchanges() == 2); // both batches
        assertEquals(0, p.a().counters().lanePauses(), "the pipe did not fail while quiet");
        assertEquals(connections, LaneHooks.laneConnectionsAccepted(p.b()), "the second batch took the same connection: no new handshake");
    }

    @Test
    void aReplyThatDoesNotComeInsideTlsTimesOutAndTheLaneServesTheNextRequest() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        RecordingReceiver onB = new RecordingReceiver().answering((sender, m) -> {
            try {
                release.await(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return m;
        });
        TestNodes.Pair p = tlsPair(new RecordingReceiver(), onB);
        Member b = TestNodes.other(p.a());
        try {
            long started = System.nanoTime();
            org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.TimeoutException.class,
                    () -> LaneHooks.requestOverLane(p.a(), b, new byte[]{1}, Duration.ofMillis(300)));
            long waited = (System.nanoTime() - started) / 1_000_000;
            assertTrue(waited >= 290 && waited < 5_000, "timed out after " + waited + " ms");
            assertEquals(1, p.a().counters().requestsTimedOut());
        } finally {
            release.countDown();
        }
        long exchanged = p.a().counters().laneExchanges();
        assertArrayEquals(new byte[]{2}, LaneHooks.requestOverLane(p.a(), b, new byte[]{2}, TIMEOUT));
        assertEquals(exchanged + 1, p.a().counters().laneExchanges(), "the next request took the lane again");
    }

    @Test
    void plainAndUntrustedConnectionsAreRefusedAndCounted() throws Exception {
        RecordingReceiver onB = new RecordingReceiver();
        TestNodes.Pair p = tlsPair(new RecordingReceiver(), onB);
        org.jgroups.Address aAddress = LaneHooks.address(p.a());
        org.jgroups.Address bAddress = LaneHooks.address(p.b());

        try (Socket plain = new Socket(TestNodes.LOOPBACK, p.b().dataLanePort())) { // a's true identity, no TLS
            writeHelloAndRequest(plain, aAddress, bAddress);
            assertTrue(TestNodes.closedByTheLane(plain), "the plain connection was closed");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> p.b().counters().laneRefused() == 1);

        // TLS with a certificate of its own that b does not trust (it trusts a and b), and a's true identity
        Path everyone = certificates.truststore("trusts-everyone", "a", "b", "intruder");
        SSLContext intruder = context(dir.resolve("intruder.p12"), everyone);
        try (SSLSocket untrusted = (SSLSocket) intruder.getSocketFactory().createSocket(TestNodes.LOOPBACK,
                p.b().dataLanePort())) {
            untrusted.setSoTimeout(5_000);
            boolean refused;
            try {
                untrusted.startHandshake();
                writeHelloAndRequest(untrusted, aAddress, bAddress);
                refused = TestNodes.closedByTheLane(untrusted);
            } catch (IOException handshakeRefused) {
                refused = true;
            }
            assertTrue(refused, "the untrusted TLS connection was refused");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> p.b().counters().laneRefused() == 2);
        Thread.sleep(200);
        assertTrue(onB.messages.isEmpty(), "nothing of either reached b's core");

        byte[] reply = LaneHooks.requestOverLane(p.a(), TestNodes.other(p.a()), new byte[]{1}, TIMEOUT);
        assertArrayEquals(new byte[]{1}, reply, "the lane still serves its member");
    }

    @Test
    void aConnectionThatNeverStartsItsHandshakeIsClosedAfterTheHelloTimeOut() throws Exception {
        TestNodes.Pair p = tlsPair(new RecordingReceiver(), new RecordingReceiver());
        try (Socket silent = new Socket(TestNodes.LOOPBACK, p.b().dataLanePort())) { // the server waits in its handshake
            long started = System.nanoTime();
            assertTrue(TestNodes.closedByTheLane(silent, Duration.ofMillis(LaneServer.HELLO_TIMEOUT_MILLIS + 5_000)),
                    "closed by the lane");
            long waited = (System.nanoTime() - started) / 1_000_000;
            assertTrue(waited >= LaneServer.HELLO_TIMEOUT_MILLIS - 100, "closed after " + waited + " ms");
        }
        byte[] reply = LaneHooks.requestOverLane(p.a(), TestNodes.other(p.a()), new byte[]{2}, TIMEOUT);
        assertArrayEquals(new byte[]{2}, reply, "the lane still serves its member");
    }

    private static void writeHelloAndRequest(Socket s, org.jgroups.Address client, org.jgroups.Address server)
            throws IOException {
        try {
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
            LaneLink link = LaneLink.atClient(client, server);
            new LaneFrames(null).writeHello(out, link);
            new LaneFrames(null).writeRequest(out, link, 1, 0, 100, new byte[]{66});
        } catch (IOException closedMeanwhile) {
            // the lane may close before all of it is written
        }
    }


    private static SSLContext context(Path keystore, Path truststore) throws Exception {
        KeyStore keys = KeyStore.getInstance("pkcs12");
        try (InputStream in = Files.newInputStream(keystore)) {
            keys.load(in, TestCertificates.PASSWORD.toCharArray());
        }
        KeyStore trusted = KeyStore.getInstance("pkcs12");
        try (InputStream in = Files.newInputStream(truststore)) {
            trusted.load(in, TestCertificates.PASSWORD.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, TestCertificates.PASSWORD.toCharArray());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }
}
