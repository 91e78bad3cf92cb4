package io.sessionrep.perf.floor;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two floor nodes over real loopback sockets: what one sends, the other holds, byte for byte. */
class FloorNodeTest {

    @Test
    void aSyncSendReturnsOnlyOnceThePeerHoldsTheExactBytes() throws Exception {
        int[] ports = freePorts();
        byte[] value = new byte[300 * 1024];
        new Random(7).nextBytes(value);
        try (FloorNode a = node(ports[0], ports[1], true); FloorNode b = node(ports[1], ports[0], true)) {
            a.send(List.of(new Change.Set("s1", "attr-0", value), new Change.Set("s1", "version", 3),
                    new Change.Set("s1", "na\u00efve-\u20ac", 4)));

            // no waiting: sync returned after b acknowledged, and b acknowledges after storing
            assertArrayEquals(value, (byte[]) b.backups().held("s1", "attr-0"));
            assertEquals(3, b.backups().held("s1", "version"));
            assertEquals(4, b.backups().held("s1", "na\u00efve-\u20ac"), "a name written as DataInput.readUTF reads it");
            assertTrue(a.status().contains("\"valueBytesSent\":" + value.length), a.status());
            assertTrue(b.status().contains("\"valueBytesHeld\":" + value.length), b.status());

            a.send(List.of(new Change.Remove("s1", "version")));
            assertNull(b.backups().held("s1", "version"));
            a.send(List.of(new Change.Destroy("s1")));
            assertNull(b.backups().held("s1", "attr-0"));
            assertTrue(b.status().contains("\"sessionsHeld\":0"), b.status());
        }
    }

    @Test
    void anAsyncSendArrivesWithoutTheRequestWaitingForIt() throws Exception {
        int[] ports = freePorts();
        try (FloorNode a = node(ports[0], ports[1], false); FloorNode b = node(ports[1], ports[0], false)) {
            a.send(List.of(new Change.Set("s2", "attr-0", new byte[]{1, 2, 3})));
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (b.backups().held("s2", "attr-0") == null && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertArrayEquals(new byte[]{1, 2, 3}, (byte[]) b.backups().held("s2", "attr-0"));
        }
    }

    @Test
    void aValueOfAnotherTypeIsCountedNotSentAndADeadPeerFailsNoRequest() throws Exception {
        int[] ports = freePorts();
        try (FloorNode a = node(ports[0], ports[1], true)) { // no node on ports[1]
            a.send(List.of(new Change.Set("s3", "name", "a string")));
            assertTrue(a.status().contains("\"sendFailures\":1"), a.status());
        }
        try (FloorNode a = node(ports[0], ports[1], true); FloorNode b = node(ports[1], ports[0], true)) {
            a.send(List.of(new Change.Set("s3", "name", "a string"), new Change.Set("s3", "n", 1)));
            assertTrue(a.status().contains("\"changesSkipped\":1"), a.status());
            assertNull(b.backups().held("s3", "name"));
            assertEquals(1, b.backups().held("s3", "n"));
        }
    }

    @Test
    void settingsNameThePropertyAndWhatItAllows() {
        FloorSettings s = FloorSettings.parse("7000", "127.0.0.1:7001, localhost:7002", "sync");
        assertEquals(2, s.peers().size());
        assertEquals(7002, s.peers().get(1).getPort());
        assertTrue(s.sync());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FloorSettings.parse(null, "", "async"))
                .getMessage().startsWith(FloorSettings.PORT + ":"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FloorSettings.parse("1", "x", "async"))
                .getMessage().startsWith(FloorSettings.PEERS + ":"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FloorSettings.parse("1", "", "fast"))
                .getMessage().contains("expected async or sync"));
    }

    private static FloorNode node(int port, int peer, boolean sync) throws IOException {
        return new FloorNode(new FloorSettings(port, List.of(InetSocketAddress.createUnresolved("127.0.0.1", peer)), sync));
    }

    private static int[] freePorts() throws IOException {
        try (ServerSocket a = new ServerSocket(0); ServerSocket b = new ServerSocket(0)) {
            return new int[]{a.getLocalPort(), b.getLocalPort()};
        }
    }
}
