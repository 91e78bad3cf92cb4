package io.sessionrep.transport.jgroups.lane;

import io.sessionrep.discovery.SealedBytes;
import io.sessionrep.transport.jgroups.lane.LaneFrames.Hello;
import io.sessionrep.transport.jgroups.lane.LaneFrames.MalformedLaneFrame;
import io.sessionrep.transport.jgroups.lane.LaneFrames.Request;
import org.jgroups.Address;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Sealed lane frames are bound to their connection, direction, pair of node instances and place: a frame sealed on one
 * connection opens nowhere else and only as the next frame of its direction. Each refusal below leaves no replay state
 * (the same frame still opens in its right place afterwards), so it is the binding that refuses, not the replay window.
 */
class LaneLinkTest {

    private static final String KEY = "a cluster key of 16+ chars";
    private final Address a = UUID.randomUUID();
    private final Address b = UUID.randomUUID();
    private final Address c = UUID.randomUUID();
    private final LaneFrames sealedByA = new LaneFrames(SealedBytes.forClusterKey(KEY, "lanes"));
    private final LaneFrames sealedByB = new LaneFrames(SealedBytes.forClusterKey(KEY, "lanes"));
    private final LaneFrames sealedByC = new LaneFrames(SealedBytes.forClusterKey(KEY, "lanes"));

    @Test
    void aRequestOpensOnlyOnItsConnectionAtTheNodeItWasSealedFor() throws Exception {
        LaneLink atA = LaneLink.atClient(a, b);
        LaneLink atB = LaneLink.atServer(helloAsRead(atA));
        byte[] request = request(atA, 1, new byte[]{7});

        // the same two nodes, another connection (another id)
        LaneLink otherConnection = LaneLink.atServer(helloAsRead(LaneLink.atClient(a, b)));
        assertRefused(() -> sealedByB.readRequest(in(request), otherConnection));
        // the same connection id, hello and all, but read by c as if it were meant for c
        Hello h = atA.hello();
        Hello forC = LaneFrames.Hello.of(h.idHigh(), h.idLow(), a, c);
        assertRefused(() -> sealedByC.readRequest(in(request), LaneLink.atServer(forC)));
        // reflected back to its sender as if its server had sent it
        assertRefused(() -> sealedByA.readReply(in(request), atA, LaneFrames.MAX_PAYLOAD));

        Request read = sealedByB.readRequest(in(request), atB); // in its place it opens
        assertEquals(1, read.exchange());
        assertArrayEquals(new byte[]{7}, read.payload());
    }

    @Test
    void framesReorderedOrLeftOutAreRefused() throws Exception {
        LaneLink atA = LaneLink.atClient(a, b);
        byte[] first = request(atA, 1, new byte[]{1});
        byte[] second = request(atA, 2, new byte[]{2});

        LaneLink dropped = LaneLink.atServer(atA.hello());
        assertRefused(() -> sealedByB.readRequest(in(second), dropped)); // the first left out

        LaneLink inOrder = LaneLink.atServer(atA.hello());
        assertEquals(1, sealedByB.readRequest(in(first), inOrder).exchange());
        assertEquals(2, sealedByB.readRequest(in(second), inOrder).exchange());
    }

    @Test
    void aReplyOpensOnlyAtTheClientOfItsConnection() throws Exception {
        LaneLink atA = LaneLink.atClient(a, b);
        LaneLink atB = LaneLink.atServer(atA.hello());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        sealedByB.writeReply(new DataOutputStream(bytes), atB, 1, LaneFrames.REPLIED, new byte[]{9});
        byte[] reply = bytes.toByteArray();

        assertRefused(() -> sealedByA.readReply(in(reply), LaneLink.atClient(a, b), LaneFrames.MAX_PAYLOAD)); // another connection
        assertRefused(() -> sealedByB.readRequest(in(reply), LaneLink.atServer(atA.hello()))); // reflected to the server
        LaneFrames.Reply read = sealedByA.readReply(in(reply), atA, LaneFrames.MAX_PAYLOAD);
        assertEquals(1, read.exchange());
        assertArrayEquals(new byte[]{9}, read.payload());
    }

    private Hello helloAsRead(LaneLink client) throws IOException, MalformedLaneFrame {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        sealedByA.writeHello(new DataOutputStream(bytes), client);
        return sealedByB.readHello(in(bytes.toByteArray()));
    }

    private byte[] request(LaneLink link, long exchange, byte[] payload) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        sealedByA.writeRequest(new DataOutputStream(bytes), link, exchange, 0, 100, payload);
        return bytes.toByteArray();
    }

    private static DataInputStream in(byte[] bytes) {
        return new DataInputStream(new ByteArrayInputStream(bytes));
    }

    private static void assertRefused(org.junit.jupiter.api.function.Executable read) {
        MalformedLaneFrame e = assertThrows(MalformedLaneFrame.class, read);
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("not authentic"), e.getMessage());
    }
}
