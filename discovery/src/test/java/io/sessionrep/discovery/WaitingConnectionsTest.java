package io.sessionrep.discovery;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The gate's bounds on waiting connections, per address and in all, and that each connection leaves once. */
class WaitingConnectionsTest {

    private static WaitingConnections.Waiting from(String address, long deadline) throws Exception {
        return new WaitingConnections.Waiting(new Socket(), InetAddress.getByName(address), deadline);
    }

    @Test
    void aFloodFromOneAddressPushesOutOnlyItsOwnOldest() throws Exception {
        WaitingConnections waiting = new WaitingConnections(16, 4);
        WaitingConnections.Waiting member = from("10.0.0.2", 0);
        assertEquals(List.of(), waiting.add(member));
        List<WaitingConnections.Waiting> flood = new ArrayList<>();
        List<WaitingConnections.Waiting> pushedOut = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            WaitingConnections.Waiting next = from("10.0.0.66", 0);
            flood.add(next);
            pushedOut.addAll(waiting.add(next));
        }
        assertEquals(flood.subList(0, 96), pushedOut, "the flood's oldest, in order");
        assertEquals(5, waiting.size());
        assertTrue(waiting.remove(member), "the member's connection still waits");
    }

    @Test
    void fromManyAddressesTheOldestOfAllIsPushedOut() throws Exception {
        WaitingConnections waiting = new WaitingConnections(16, 4);
        List<WaitingConnections.Waiting> all = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            WaitingConnections.Waiting next = from("10.0.1." + i, 0);
            all.add(next);
            assertEquals(List.of(), waiting.add(next));
        }
        assertEquals(List.of(all.get(0)), waiting.add(from("10.0.2.1", 0)));
        assertEquals(16, waiting.size());
    }

    @Test
    void eachConnectionLeavesOnceWhicheverWayComesFirst() throws Exception {
        WaitingConnections waiting = new WaitingConnections(16, 4);
        WaitingConnections.Waiting early = from("10.0.0.1", 100);
        WaitingConnections.Waiting late = from("10.0.0.1", 300);
        waiting.add(early);
        waiting.add(late);
        assertEquals(List.of(), waiting.expired(99));
        assertEquals(List.of(early), waiting.expired(100));
        assertFalse(waiting.remove(early), "timed out already: its reader does not hand it over");
        assertTrue(waiting.remove(late));
        assertEquals(List.of(), waiting.expired(1_000));
        assertEquals(0, waiting.size());
        // the per-address count followed: four more from the same address fit
        for (int i = 0; i < 4; i++) {
            assertEquals(List.of(), waiting.add(from("10.0.0.1", 0)));
        }
        assertEquals(4, waiting.removeAll().size());
    }
}
