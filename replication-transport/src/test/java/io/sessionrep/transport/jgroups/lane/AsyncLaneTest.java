package io.sessionrep.transport.jgroups.lane;

import io.sessionrep.transport.jgroups.TestNodes;
import io.sessionrep.transport.jgroups.RecordingReceiver;
import io.sessionrep.transport.jgroups.LaneHooks;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.ReplicationTransport.Outbound;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The async sender's batches over the lane between two real async transports on 127.0.0.1: written on the calling
 * thread without waiting for the backup to handle them, in order with what went over the channel before and beside
 * them, over the channel when the backup does not answer in time or answers that it is behind, and hostile batch
 * frames refused and counted.
 */
class AsyncLaneTest {

    private final TestNodes nodes = new TestNodes();

    @AfterEach
    void close() {
        nodes.close();
    }

    private TestNodes.Pair asyncPair(RecordingReceiver onA, RecordingReceiver onB) throws IOException {
        return asyncPair(onA, onB, b -> b);
    }

    private TestNodes.Pair asyncPair(RecordingReceiver onA, RecordingReceiver onB, UnaryOperator<ReplicationConfig.Builder> more)
            throws IOException {
        return nodes.startPair(onA, onB, options -> more.apply(options.replicationMode(ReplicationMode.ASYNC).asyncLane(true)));
    }


    /** Message {@code i}: its number in the first 4 bytes, {@code size} bytes in all. */
    private static byte[] numbered(int i, int size) {
        return ByteBuffer.allocate(Math.max(4, size)).putInt(i).array();
    }

    private static List<Integer> numbers(RecordingReceiver r) {
        List<Integer> seen = new ArrayList<>();
        r.messages.forEach(m -> seen.add(ByteBuffer.wrap(m.message()).getInt()));
        return seen;
    }

    private static List<Integer> range(int from, int to) {
        List<Integer> l = new ArrayList<>();
        for (int i = from; i < to; i++) {
            l.add(i);
        }
        return l;
    }

    @Test
    void aBatchTakesTheLaneInFramesAndArrivesWholeAndInOrder() throws Exception {
        RecordingReceiver onB = new RecordingReceiver();
        TestNodes.Pair p = asyncPair(new RecordingReceiver(), onB);
        assertTrue(p.b().dataLanePort() > 0, "an async node opens its lane too");
        Member b = TestNodes.other(p.a());
        int room = LaneHooks.laneRoom(p.a());
        assertTrue(room >= 16 * 1024, "room " + room);
        List<Outbound> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) { // three to a frame; message 5 too large for one
            batch.add(new Outbound(b, numbered(i, i == 5 ? room + 1 : room / 3 - 16)));
        }

        p.a().sendAll(batch);

        await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 10);
        assertEquals(range(0, 10), numbers(onB), "in order, the large one and the rest after it over the channel");
        await().atMost(Duration.ofSeconds(5)).until(() -> p.a().counters().laneExchanges() == 2); // 0-2, 3-4
        assertEquals(0, p.a().counters().lanePauses());
    }

    @Test
    void withAClusterKeyBatchesTakeTheSealedLaneAndArriveWholeAndInOrder() throws Exception {
        RecordingReceiver onB = new RecordingReceiver();
        TestNodes.Pair p = asyncPair(new RecordingReceiver(), onB, b -> b.clusterKey("a cluster key of 16+ chars"));
        Member b = TestNodes.other(p.a());
        int room = LaneHooks.laneRoom(p.a());
        List<Outbound> batch = new ArrayList<>();
        for (int i = 0; i < 9; i++) { // three to a frame, each message's bytes its own
            byte[] m = numbered(i, room / 3 - 16 - i);
            m[m.length - 1] = (byte) i;
            batch.add(new Outbound(b, m));
        }

        p.a().sendAll(batch);

        await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 9);
        assertEquals(range(0, 9), numbers(onB), "in order");
        for (int i = 0; i < 9; i++) {
            byte[] got = onB.messages.get(i).message();
            assertEquals(room / 3 - 16 - i, got.length, "message " + i + " whole");
            assertEquals((byte) i, got[got.length - 1], "message " + i + " ends with its own bytes");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> p.a().counters().laneExchanges() == 3); // sealed frames, not the channel
        assertEquals(0, p.b().counters().laneRefused());
    }

    @Test
    void theSenderDoesNotWaitForTheBackupToHandleABatch() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        RecordingReceiver onB = heldOnFirstMessageUntil(release); // b handles nothing until the sender has written every batch
        TestNodes.Pair p = asyncPair(new RecordingReceiver(), onB);
        Member b = TestNodes.other(p.a());
        try {
            for (int i = 0; i < 10; i++) { // had a batch waited for its answer, the first would have timed out
                p.a().sendAll(List.of(new Outbound(b, numbered(i, 1_000))));
            }
            assertEquals(0, p.a().counters().laneExchanges(), "no batch answered yet");
            assertEquals(0, p.a().counters().lanePauses(), "none waited for its answer until it gave up");
        } finally {
            release.countDown();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> p.a().counters().laneExchanges() == 10);
        assertEquals(range(0, 10), numbers(onB), "every batch over the lane, once, in order");
        assertEquals(0, p.a().counters().lanePauses());
    }

    @Test
    void aBatchIsHandledOnlyAfterTheChannelMessagesSentBeforeIt() throws Exception {
        CountDownLatch behind = new CountDownLatch(1);
        RecordingReceiver onB = heldOnFirstMessageUntil(behind); // b is behind on the channel: still on its first message when the batch comes
        TestNodes.Pair p = asyncPair(new RecordingReceiver(), onB);
        Member b = TestNodes.other(p.a());
        sendTwentyOverTheChannel(p, b);

        p.a().sendAll(List.of(new Outbound(b, numbered(20, 100)), new Outbound(b, numbered(21, 100))));
        Thread.sleep(30); // the batch waits at b for the 20 channel messages (at most 100 ms)
        behind.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 22);
        assertEquals(range(0, 22), numbers(onB), "the batch after every channel message sent before it");
        await().atMost(Duration.ofSeconds(5)).until(() -> p.a().counters().laneExchanges() == 1); // it took the lane
        assertEquals(0, p.b().counters().laneNotHandled());
    }

    @Test
    void batchesABackupCannotHandleInOrderInTimeGoOverTheChannelAfterWhatItHandled() throws Exception {
        CountDownLatch behind = new CountDownLatch(1);
        RecordingReceiver onB = heldOnFirstMessageUntil(behind); // b is behind on the channel for longer than a batch may wait there (100 ms)
        TestNodes.Pair p = asyncPair(new RecordingReceiver(), onB);
        Member b = TestNodes.other(p.a());
        sendTwentyOverTheChannel(p, b);

        p.a().sendAll(List.of(new Outbound(b, numbered(20, 100)), new Outbound(b, numbered(21, 100))));
        p.a().sendAll(List.of(new Outbound(b, numbered(22, 100)))); // written behind it before b answers
        await().atMost(Duration.ofSeconds(5)).until(() -> p.b().counters().laneNotHandled() == 1);
        behind.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() >= 23);
        Thread.sleep(200); // a copy handled twice, or one overtaking, would show by now
        assertEquals(range(0, 23), numbers(onB), "both batches over the channel after the 20, once each, in order");
        assertEquals(1, p.a().counters().lanePauses(), "b's lane rests");
        assertEquals(0, p.a().counters().laneExchanges());
    }

    @Test
    void aBackupThatDoesNotAnswerInTimeGetsTheBatchOverTheChannelAndTheSenderMovesOn() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        RecordingReceiver onB = heldOnFirstMessageUntil(release); // stuck on the first message, whichever path brought it
        TestNodes.Pair p = asyncPair(new RecordingReceiver(), onB);
        Member b = TestNodes.other(p.a());
        try {
            p.a().sendAll(List.of(new Outbound(b, numbered(0, 100)), new Outbound(b, numbered(1, 100))));
            Thread.sleep(LaneHooks.ONE_WAYS_TIMEOUT.toMillis() + 200); // its answer is overdue

            long started = System.nanoTime();
            p.a().sendAll(List.of(new Outbound(b, numbered(2, 100))));
            long waited = System.nanoTime() - started;
            assertTrue(waited < TimeUnit.MILLISECONDS.toNanos(500), "the sender did not wait for the answer: " + waited);
            assertEquals(1, p.a().counters().lanePauses(), "b's lane rests");

            p.a().sendAll(List.of(new Outbound(b, numbered(3, 100))));
            assertEquals(0, p.a().counters().laneExchanges(), "while it rests, batches go straight to the channel");
        } finally {
            release.countDown();
        }
        // 0 and 1 over the lane (handled there once released) and again over the channel, then 2 and 3: nothing lost,
        // and the copies an update would get twice are ignored by the core (it holds that version)
        await().atMost(Duration.ofSeconds(10)).until(() -> numbers(onB).containsAll(List.of(0, 1, 2, 3)));
        List<Integer> seen = numbers(onB);
        assertTrue(seen.indexOf(1) < seen.indexOf(2) && seen.indexOf(2) < seen.indexOf(3), "1, 2, 3 in order: " + seen);
    }

    @Test
    void framesTheBackupReceivedAreHandledEvenIfTheirSenderIsGoneWithAReset() throws Exception {
        CountDownLatch gone = new CountDownLatch(1);
        RecordingReceiver onB = heldOnFirstMessageUntil(gone); // the later frames wait in b's socket, beyond its reader's buffer, until the reset
        TestNodes.Pair p = asyncPair(new RecordingReceiver(), onB);
        org.jgroups.Address aAddress = LaneHooks.address(p.a());
        org.jgroups.Address bAddress = LaneHooks.address(p.b());
        LaneFrames frames = new LaneFrames(null);
        // as a primary killed with kill -9 right after writing three frames: its kernel resets the connection
        try (Socket s = new Socket(TestNodes.LOOPBACK, p.b().dataLanePort())) {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            LaneLink link = LaneLink.atClient(aAddress, bAddress);
            frames.writeHello(out, link);
            for (int i = 0; i < 3; i++) {
                frames.writeOneWays(out, link, link.nextExchange(), 0, 100, List.of(numbered(i, 25_000)), LaneFrames.oneWaysLength(1, 25_000));
            }
            Thread.sleep(200); // all of it in b's socket; b on message 0
            s.setSoLinger(true, 0); // close with a reset, not a FIN
        }
        Thread.sleep(100);
        gone.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> onB.messages.size() == 3);
        assertEquals(range(0, 3), numbers(onB), "every frame it had received, in order");
    }

    @Test
    void aBatchFrameThatLiesAboutItsMessagesIsRefusedAndCounted() throws Exception {
        RecordingReceiver onB = new RecordingReceiver();
        TestNodes.Pair p = asyncPair(new RecordingReceiver(), onB);
        org.jgroups.Address aAddress = LaneHooks.address(p.a());
        org.jgroups.Address bAddress = LaneHooks.address(p.b());
        try (Socket s = new Socket(TestNodes.LOOPBACK, p.b().dataLanePort())) {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            new LaneFrames(null).writeHello(out, LaneLink.atClient(aAddress, bAddress));
            // a batch claiming two messages, the second longer than the frame
            byte[] payload = ByteBuffer.allocate(4 + 4 + 1 + 4).putInt(2).putInt(1).put((byte) 9).putInt(1_000).array();
            out.writeInt(LaneFrames.REQUEST_HEADER + payload.length);
            out.writeLong(1);
            out.writeLong(0);
            out.writeInt(100);
            out.writeByte(LaneFrames.ONE_WAYS);
            out.write(payload);
            out.flush();
            assertEquals(-1, s.getInputStream().read(), "closed");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> p.b().counters().laneRefused() == 1);
        assertEquals(0, onB.messages.size(), "not even the well-formed first message reached the core");

        p.a().sendAll(List.of(new Outbound(TestNodes.other(p.a()), numbered(7, 100))));
        await().atMost(Duration.ofSeconds(5)).until(() -> p.a().counters().laneExchanges() == 1); // the lane keeps serving
        assertEquals(List.of(7), numbers(onB));
    }

    /** A receiver that holds on message 0 (whichever path brought it) until {@code latch} opens; the rest pass. */
    private static RecordingReceiver heldOnFirstMessageUntil(CountDownLatch latch) {
        return new RecordingReceiver().answering((sender, m) -> {
            if (ByteBuffer.wrap(m).getInt() == 0) {
                waitFor(latch);
            }
            return null;
        });
    }

    /**
     * Messages 0-19 from a to b over the channel, returning once a has handed them all to the channel (its queue to b is
     * empty again, so the next batch may take the lane); b has not necessarily handled them.
     */
    private static void sendTwentyOverTheChannel(TestNodes.Pair p, Member b) {
        for (int i = 0; i < 20; i++) {
            p.a().send(b, numbered(i, 5_000));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> p.a().counters().messagesSent() == 20);
    }

    private static void waitFor(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
