package io.sessionrep.perf.floor;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
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
        byte[] value = new byte[300 * 1024];
        new Random(7).nextBytes(value);
        try (FloorNode b = node(true); FloorNode a = node(true, b.backups().port())) {
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
        try (FloorNode b = node(false); FloorNode a = node(false, b.backups().port())) {
            a.send(List.of(new Change.Set("s2", "attr-0", new byte[]{1, 2, 3})));
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (b.backups().held("s2", "attr-0") == null && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertArrayEquals(new byte[]{1, 2, 3}, (byte[]) b.backups().held("s2", "attr-0"));
        }
    }

    @Test
    void aSetReadAfterItsSessionsDestroyIsDroppedInsteadOfHeldForEver() throws Exception {
        try (FloorNode b = node(true); FloorNode a = node(true, b.backups().port())) {
            a.send(List.of(new Change.Set("s5", "attr-0", new byte[]{1})));
            // the next request destroys the session; its thread has a connection of its own, read first
            Thread next = new Thread(() -> a.send(List.of(new Change.Destroy("s5"))));
            next.start();
            next.join();
            // then the last SET of the request before comes in over the first connection
            a.send(List.of(new Change.Set("s5", "attr-0", new byte[]{2})));

            assertNull(b.backups().held("s5", "attr-0"));
            assertTrue(b.status().contains("\"setsAfterDestroy\":1,"), b.status());
            assertTrue(b.status().contains("\"sessionsHeld\":0,"), b.status());
        }
    }

    @Test
    void aValueOfAnotherTypeIsCountedNotSentAndADeadPeerFailsNoRequest() throws Exception {
        // a port held by a socket that never listens: refused, and no other process can take it meanwhile (a port
        // freed by a stopped node was taken by another connection once, under CI load, and accepted)
        try (java.net.Socket holder = new java.net.Socket()) {
            holder.bind(new InetSocketAddress("127.0.0.1", 0));
            try (FloorNode a = node(true, holder.getLocalPort())) {
                a.send(List.of(new Change.Set("s3", "name", "a string")));
                assertTrue(a.status().contains("\"sendFailures\":1"), a.status());
            }
        }
        try (FloorNode b = node(true); FloorNode a = node(true, b.backups().port())) {
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

    /**
     * A node whose backups listen on a port the system chooses (ports picked ahead and bound later can be taken
     * meanwhile: "Address already in use" in one full build), copying to the given peer ports.
     */
    private static FloorNode node(boolean sync, int... peers) throws IOException {
        List<InetSocketAddress> addresses = java.util.Arrays.stream(peers)
                .mapToObj(p -> InetSocketAddress.createUnresolved("127.0.0.1", p)).toList();
        return new FloorNode(new FloorSettings(0, addresses, sync));
    }
}
