package io.sessionrep.transport.jgroups.lane;

import io.sessionrep.transport.jgroups.TestNodes;
import io.sessionrep.transport.jgroups.RecordingReceiver;
import io.sessionrep.transport.jgroups.LaneHooks;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.ReplicationTransport.Outbound;
import io.sessionrep.core.transport.TransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An attacker on the path of the lane between two real transports on 127.0.0.1 ({@link LaneRelay}) drops, reorders or
 * replays frames: with {@code cluster-key} the receiving lane refuses the frame, closes the connection and counts it,
 * the sender credits nothing that was not handled, and every update still arrives, once and in order, over the
 * channel; without a key the reply of another exchange is still not taken as the answer. And a connection from an
 * address that is no member's host is closed as it is accepted, without a thread spent on it.
 */
class LaneTamperingTest {

    private static final String KEY = "a cluster key of 16+ chars";
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private final TestNodes nodes = new TestNodes();
    private LaneRelay relay;

    @AfterEach
    void close() {
        if (relay != null) {
            relay.close();
        }
        nodes.close();
    }

    @Test
    void aBatchLeftOutOnTheWayIsNoticedAndNothingIsCreditedOrLost() throws Exception {
        RecordingReceiver onB = new RecordingReceiver();
        TestNodes.Pair p = pair(ReplicationMode.ASYNC, onB, b -> b.clusterKey(KEY));
        relay = LaneRelay.between(p.a(), p.b(), (i, frame) -> i == 1 ? List.of() : List.of(frame), LaneRelay.untouched());

        sendTwoBatches(p);

        await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() >= 2);
        assertEquals(1, p.b().counters().laneRefused(), "the batch after the missing one refused there");
        assertEquals(0, p.a().counters().laneExchanges(), "neither batch credited as handled over the lane");
        Thread.sleep(200);
        assertEquals(List.of(0, 1), numbers(onB), "both over the channel, once, in order");
    }

    @Test
    void batchesReorderedOnTheWayAreRefusedAndArriveInOrderOverTheChannel() throws Exception {
        RecordingReceiver onB = new RecordingReceiver();
        TestNodes.Pair p = pair(ReplicationMode.ASYNC, onB, b -> b.clusterKey(KEY));
        AtomicReference<byte[]> held = new AtomicReference<>();
        relay = LaneRelay.between(p.a(), p.b(), (i, frame) -> {
            if (i == 1) {
                held.set(frame);
                return List.of();
            }
            return i == 2 ? List.of(frame, held.get()) : List.of(frame);
        }, LaneRelay.untouched());

        sendTwoBatches(p);

        await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() >= 2);
        assertEquals(1, p.b().counters().laneRefused());
        Thread.sleep(200);
        assertEquals(List.of(0, 1), numbers(onB), "once, in order");
    }

    @Test
    void aReplyReplayedFromAnEarlierExchangeIsNotTakenAsTheAnswerEvenWithoutAKey() throws Exception {
        RecordingReceiver onB = new RecordingReceiver(); // echoes
        TestNodes.Pair p = pair(ReplicationMode.SYNC, onB, b -> b);
        AtomicReference<byte[]> first = new AtomicReference<>();
        relay = LaneRelay.between(p.a(), p.b(), (i, frame) -> List.of(frame), (i, frame) -> {
            if (i == 0) {
                first.set(frame);
            }
            return List.of(i == 1 ? first.get() : frame); // the second answer replaced by the first
        });
        Member b = TestNodes.other(p.a());

        assertArrayEquals(new byte[]{1}, LaneHooks.requestOverLane(p.a(), b, new byte[]{1}, TIMEOUT));
        assertThrows(TransportException.class, () -> LaneHooks.requestOverLane(p.a(), b, new byte[]{2}, TIMEOUT),
                "the answer to request 1 is not request 2's");
        assertEquals(1, p.a().counters().laneRefused());
        assertEquals(1, p.a().counters().laneExchanges());
    }

    @Test
    void anEarlierReplyReplayedInPlaceOfTheAnswerIsRefusedWithAKey() throws Exception {
        RecordingReceiver onB = new RecordingReceiver();
        TestNodes.Pair p = pair(ReplicationMode.SYNC, onB, b -> b.clusterKey(KEY));
        AtomicReference<byte[]> first = new AtomicReference<>();
        relay = LaneRelay.between(p.a(), p.b(), (i, frame) -> List.of(frame), (i, frame) -> {
            if (i == 0) {
                first.set(frame);
            }
            return List.of(i == 1 ? first.get() : frame); // an earlier frame of b, authentic but not in its place
        });
        Member b = TestNodes.other(p.a());

        assertArrayEquals(new byte[]{1}, LaneHooks.requestOverLane(p.a(), b, new byte[]{1}, TIMEOUT));
        TransportException e = assertThrows(TransportException.class,
                () -> LaneHooks.requestOverLane(p.a(), b, new byte[]{2}, TIMEOUT));
        assertTrue(e.getMessage().contains("refused by cluster-key"), e.getMessage());
        assertEquals(1, p.a().counters().laneRefused());
    }

    @Test
    void aConnectionFromTheAddressOfNoMemberIsClosedWithoutAThreadSpentOnIt() throws Exception {
        TestNodes.Pair p = pair(ReplicationMode.SYNC, new RecordingReceiver(), b -> b);
        Member b = TestNodes.other(p.a());
        assertArrayEquals(new byte[]{1}, LaneHooks.requestOverLane(p.a(), b, new byte[]{1}, TIMEOUT));
        int readers = LaneHooks.laneConnectionsAccepted(p.b());

        for (int i = 0; i < 20; i++) {
            try (Socket outsider = new Socket()) { // another address of this host: the members are on 127.0.0.1
                outsider.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
                outsider.connect(new InetSocketAddress(TestNodes.LOOPBACK, p.b().dataLanePort()), 1_000);
                assertTrue(TestNodes.closedByTheLane(outsider, Duration.ofSeconds(2)), "closed at once");
            }
        }

        assertEquals(20, p.b().counters().laneRefused());
        assertEquals(readers, LaneHooks.laneConnectionsAccepted(p.b()), "no reader thread started for any of them");
        assertArrayEquals(new byte[]{2}, LaneHooks.requestOverLane(p.a(), b, new byte[]{2}, TIMEOUT), "the member still served");
    }

    /** Batch 0, then batch 1 once batch 0 is written (a frame each on the pipe's connection: frames 1 and 2). */
    private static void sendTwoBatches(TestNodes.Pair p) throws InterruptedException {
        Member b = TestNodes.other(p.a());
        p.a().sendAll(List.of(new Outbound(b, numbered(0))));
        Thread.sleep(100);
        p.a().sendAll(List.of(new Outbound(b, numbered(1))));
    }

    private TestNodes.Pair pair(ReplicationMode mode, RecordingReceiver onB, UnaryOperator<ReplicationConfig.Builder> more)
            throws Exception {
        return nodes.startPair(new RecordingReceiver(), onB,
                options -> more.apply(options.replicationMode(mode).asyncLane(mode == ReplicationMode.ASYNC)));
    }

    private static byte[] numbered(int i) {
        return ByteBuffer.allocate(100).putInt(i).array();
    }

    private static List<Integer> numbers(RecordingReceiver r) {
        List<Integer> seen = new ArrayList<>();
        r.messages.forEach(m -> seen.add(ByteBuffer.wrap(m.message()).getInt()));
        return seen;
    }
}
