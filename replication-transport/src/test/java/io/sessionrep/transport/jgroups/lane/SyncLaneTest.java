package io.sessionrep.transport.jgroups.lane;

import io.sessionrep.transport.jgroups.TestNodes;
import io.sessionrep.transport.jgroups.RecordingReceiver;
import io.sessionrep.transport.jgroups.LaneHooks;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.transport.Member;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data lane between two real transports on 127.0.0.1: requests answered on the caller's thread, handled
 * after the channel messages sent before them, left to the channel when it is behind, and hostile connections
 * refused and counted while the lane keeps serving.
 */
class SyncLaneTest {

    private final TestNodes nodes = new TestNodes();
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    @AfterEach
    void close() {
        nodes.close();
    }

    private TestNodes.Pair syncPair(RecordingReceiver onA, RecordingReceiver onB, UnaryOperator<ReplicationConfig.Builder> more)
            throws IOException {
        return nodes.startPair(onA, onB, options -> more.apply(options.replicationMode(ReplicationMode.SYNC)));
    }


    @Test
    void aRequestIsAnsweredOnTheCallersThreadOverTheLane() throws Exception {
        RecordingReceiver onB = new RecordingReceiver().answering((sender, m) -> ("ack " + new String(m, StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.UTF_8));
        TestNodes.Pair p = syncPair(new RecordingReceiver(), onB, b -> b);
        assertTrue(p.b().dataLanePort() > 0, "a sync node opens its lane");

        byte[] reply = LaneHooks.requestOverLane(p.a(), TestNodes.other(p.a()), "update 1".getBytes(StandardCharsets.UTF_8), TIMEOUT);

        assertArrayEquals("ack update 1".getBytes(StandardCharsets.UTF_8), reply);
        assertEquals(1, p.a().counters().laneExchanges());
        assertEquals("a", onB.messages.get(0).sender().name(), "the backup knows who sent it");
    }

    @Test
    void aRequestIsHandledOnlyAfterTheChannelMessagesSentBeforeIt() throws Exception {
        RecordingReceiver onB = new RecordingReceiver().answering((sender, m) -> new byte[]{1});
        TestNodes.Pair p = syncPair(new RecordingReceiver(), onB, b -> b);
        Member b = TestNodes.other(p.a());
        byte[] big = new byte[200_000];
        for (int i = 0; i < 40; i++) { // 8 MB queued on the channel: still on its way when the lane request is written
            big[0] = (byte) i;
            p.a().send(b, big.clone());
        }

        assertArrayEquals(new byte[]{1}, LaneHooks.requestOverLane(p.a(), b, new byte[]{42}, Duration.ofSeconds(10)));

        assertEquals(41, onB.messages.size(), "every channel message was handled before the lane request");
        assertArrayEquals(new byte[]{42}, onB.messages.get(40).message(), "the lane request came last");
    }

    @Test
    void whileTheChannelIsBehindTheRequestIsNotHandledAndTheCallerUsesTheChannel() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        RecordingReceiver onB = new RecordingReceiver().answering((sender, m) -> {
            if (m.length == 1 && m[0] == 7) {
                try {
                    release.await(10, TimeUnit.SECONDS); // the backup is stuck on a channel message
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return new byte[]{2};
        });
        TestNodes.Pair p = syncPair(new RecordingReceiver(), onB, b -> b);
        Member b = TestNodes.other(p.a());
        p.a().send(b, new byte[]{7});
        await().atMost(Duration.ofSeconds(5)).until(() -> onB.messages.size() == 1);
        try {
            assertNull(LaneHooks.requestOverLane(p.a(), b, new byte[]{8}, Duration.ofMillis(400)),
                    "not handled within half the time-out: nothing was handled there, the caller takes the channel");
            assertEquals(1, p.b().counters().laneNotHandled());
            assertEquals(1, onB.messages.size(), "the lane request was not handed to the core");
            assertNull(LaneHooks.requestOverLane(p.a(), b, new byte[]{9}, Duration.ofMillis(400)),
                    "the lane to that member is paused: straight to the channel");
            assertEquals(1, p.b().counters().laneNotHandled(), "the paused lane was not even asked");
        } finally {
            release.countDown();
        }
    }

    @Test
    void aReplyThatDoesNotComeTimesOutWithoutHangingTheCaller() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        RecordingReceiver onB = echoOnceReleased(release, 10);
        TestNodes.Pair p = syncPair(new RecordingReceiver(), onB, b -> b);
        try {
            long started = System.nanoTime();
            assertThrows(TimeoutException.class,
                    () -> LaneHooks.requestOverLane(p.a(), TestNodes.other(p.a()), new byte[]{1}, Duration.ofMillis(300)));
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(5), "bounded by the time-out");
            assertEquals(1, p.a().counters().requestsTimedOut());
        } finally {
            release.countDown();
        }
        long exchanged = p.a().counters().laneExchanges();
        assertArrayEquals(new byte[]{2}, LaneHooks.requestOverLane(p.a(), TestNodes.other(p.a()), new byte[]{2}, TIMEOUT));
        assertEquals(exchanged + 1, p.a().counters().laneExchanges(), "the next request took the lane again");
    }

    /**
     * The caller stops needing the reply (with write-quota 2: another backup stored the update) while the target
     * hangs: the exchange ends a short grace after that, not at its time-out, is counted as given up (not as timed
     * out), and the target's lane rests so that the next request takes the channel instead of waiting again.
     */
    @Test
    void anExchangeWhoseReplyIsNoLongerNeededIsGivenUpAfterAGraceAndTheLaneRests() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        RecordingReceiver onB = echoOnceReleased(release, 20);
        TestNodes.Pair p = syncPair(new RecordingReceiver(), onB, b -> b);
        try {
            CompletableFuture<Void> storedElsewhere = completedIn(200);
            long started = System.nanoTime();
            assertThrows(TimeoutException.class, () -> LaneHooks.requestOverLane(p.a(), 
                    TestNodes.other(p.a()), new byte[]{1}, Duration.ofSeconds(15), storedElsewhere));
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertTrue(tookMillis >= 200 + DataLane.NO_LONGER_NEEDED_GRACE_MILLIS - 10 && tookMillis < 5_000,
                    "given up " + tookMillis + " ms after the call, not at the 15 s time-out");
            assertEquals(1, p.a().counters().laneExchangesGivenUp());
            assertEquals(0, p.a().counters().requestsTimedOut());
            assertNull(LaneHooks.requestOverLane(p.a(), TestNodes.other(p.a()), new byte[]{2}, TIMEOUT),
                    "the lane to b rests: the caller takes the channel");
        } finally {
            release.countDown();
        }
    }

    /**
     * What the core uses: a request inline whose lane exchange is given up (the reply no longer needed while the
     * target hangs) lets the caller go, and is sent again over the channel, whose reply completes the future later;
     * the target handles it twice, once per path.
     */
    @Test
    void aRequestInlineGivenUpOnTheLaneIsSentAgainOverTheChannel() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        RecordingReceiver onB = echoOnceReleased(release, 20);
        TestNodes.Pair p = syncPair(new RecordingReceiver(), onB, b -> b);
        CompletableFuture<byte[]> reply;
        try {
            CompletableFuture<Void> storedElsewhere = completedIn(200);
            long started = System.nanoTime();
            reply = p.a().requestInline(TestNodes.other(p.a()), new byte[]{3}, Duration.ofSeconds(15), storedElsewhere);
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(5), "the caller was let go");
            assertFalse(reply.isDone(), "the reply comes over the channel once b answers");
        } finally {
            release.countDown();
        }
        assertArrayEquals(new byte[]{3}, reply.get(10, TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(5)).until(() -> onB.messages.size() == 2);
        assertEquals(1, p.a().counters().laneExchangesGivenUp());
    }

    /**
     * What sync invalidations use: a one-way message that the target does not handle within the time-out (it hangs on
     * it) lets the caller go with a time-out, and is sent over the channel as well, so that it arrives however the
     * lane's try ends; the target handles it twice, once per path.
     */
    @Test
    void aMessageNotSeenHandledInTimeIsSentOverTheChannelAsWell() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        RecordingReceiver onB = echoOnceReleased(release, 20);
        TestNodes.Pair p = syncPair(new RecordingReceiver(), onB, b -> b);
        try {
            long started = System.nanoTime();
            assertThrows(TimeoutException.class,
                    () -> p.a().sendAndAwaitHandled(TestNodes.other(p.a()), new byte[]{4}, Duration.ofMillis(300)));
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(5), "bounded by the time-out");
            assertEquals(1, p.a().counters().requestsTimedOut(), "it was written on the lane, and timed out there");
        } finally {
            release.countDown();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> onB.messages.size() == 2);
        onB.messages.forEach(m -> assertArrayEquals(new byte[]{4}, m.message()));
    }

    /** A stage that completes {@code millis} from now (another backup storing the update then). */
    private static CompletableFuture<Void> completedIn(long millis) {
        return CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS));
    }

    /** A receiver that answers each request with its own bytes once {@code release} opens (at most after {@code seconds}). */
    private static RecordingReceiver echoOnceReleased(CountDownLatch release, int seconds) {
        return new RecordingReceiver().answering((sender, m) -> {
            try {
                release.await(seconds, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return m;
        });
    }

    @Test
    void hostileConnectionsAreRefusedAndCountedAndTheLaneKeepsServing() throws Exception {
        RecordingReceiver onB = new RecordingReceiver();
        TestNodes.Pair p = syncPair(new RecordingReceiver(), onB, b -> b);
        int port = p.b().dataLanePort();

        try (Socket s = new Socket(TestNodes.LOOPBACK, port)) { // a length far beyond what the lane carries
            new DataOutputStream(s.getOutputStream()).writeInt(Integer.MAX_VALUE);
            assertEquals(-1, s.getInputStream().read(), "closed");
        }
        try (Socket s = new Socket(TestNodes.LOOPBACK, port)) { // a well-formed hello from an address that is no member
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            new LaneFrames(null).writeHello(out, LaneLink.atClient(new org.jgroups.util.UUID(1, 2), new org.jgroups.util.UUID(3, 4)));
            assertEquals(-1, s.getInputStream().read(), "closed");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> p.b().counters().laneRefused() == 2);

        assertArrayEquals(new byte[]{5}, LaneHooks.requestOverLane(p.a(), TestNodes.other(p.a()), new byte[]{5}, TIMEOUT));
        assertEquals(1, onB.messages.size(), "nothing of the hostile connections reached the core");
    }

    @Test
    void aConnectionThatDoesNotSayHelloIsClosedAfterTheHelloTimeOut() throws Exception {
        TestNodes.Pair p = syncPair(new RecordingReceiver(), new RecordingReceiver(), b -> b);
        try (Socket s = new Socket(TestNodes.LOOPBACK, p.b().dataLanePort())) {
            s.setSoTimeout(LaneServer.HELLO_TIMEOUT_MILLIS + 5_000);
            long started = System.nanoTime();
            assertEquals(-1, s.getInputStream().read(), "closed by the lane");
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertTrue(waited >= LaneServer.HELLO_TIMEOUT_MILLIS - 100, "closed after " + waited + " ms");
        }
        assertArrayEquals(new byte[]{8}, LaneHooks.requestOverLane(p.a(), TestNodes.other(p.a()), new byte[]{8}, TIMEOUT));
    }

    @Test
    void aFloodOfConnectionsThatSayNothingDoesNotKeepAMemberOffTheLane() throws Exception {
        RecordingReceiver onB = new RecordingReceiver();
        TestNodes.Pair p = syncPair(new RecordingReceiver(), onB, b -> b);
        int flooded = LaneServer.MAX_CONNECTIONS + 1; // as many as the lane accepts at once, and one more
        List<Socket> silent = new ArrayList<>();
        try {
            for (int i = 0; i < flooded; i++) {
                Socket s = new Socket(TestNodes.LOOPBACK, p.b().dataLanePort()); // connects, says nothing
                s.setSoTimeout(5_000);
                silent.add(s);
            }

            assertArrayEquals(new byte[]{7}, LaneHooks.requestOverLane(p.a(), TestNodes.other(p.a()), new byte[]{7}, TIMEOUT),
                    "the member's request was answered over the lane, not left to the channel");
            assertEquals(1, onB.messages.size());
            // the member's connection came last: every silent one but the newest MAX_SILENT - 1 was closed, and counted
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> p.b().counters().laneRefused() == flooded + 1 - LaneServer.MAX_SILENT);
            assertEquals(-1, silent.get(0).getInputStream().read(), "the oldest silent connection was closed");
            assertEquals(-1, silent.get(flooded - LaneServer.MAX_SILENT).getInputStream().read(), "and the newest one it makes room for");
        } finally {
            silent.forEach(LaneFrames::closeQuietly);
        }
    }

    @Test
    void withAClusterKeyTheLaneIsSealedAndPlainFramesAreRefused() throws Exception {
        RecordingReceiver onB = new RecordingReceiver();
        TestNodes.Pair p = syncPair(new RecordingReceiver(), onB, b -> b.clusterKey("a cluster key of 16+ chars"));
        Member b = TestNodes.other(p.a());

        assertArrayEquals(new byte[]{6}, LaneHooks.requestOverLane(p.a(), b, new byte[]{6}, TIMEOUT));

        org.jgroups.Address aAddress = LaneHooks.address(p.a());
        org.jgroups.Address bAddress = LaneHooks.address(p.b());
        try (Socket s = new Socket(TestNodes.LOOPBACK, p.b().dataLanePort())) { // a's true identity, but not sealed
            DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(s.getOutputStream()));
            LaneLink link = LaneLink.atClient(aAddress, bAddress);
            new LaneFrames(null).writeHello(out, link);
            new LaneFrames(null).writeRequest(out, link, 1, 0, 100, new byte[]{66}); // one write: the lane may close before it
            assertTrue(TestNodes.closedByTheLane(s), "closed");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> p.b().counters().laneRefused() == 1);
        assertEquals(1, onB.messages.size(), "the forged request did not reach the core");
    }


    @Test
    void aNodeWithTheLaneOffHasNoLaneAndTheCallerUsesTheChannel() throws Exception {
        TestNodes.Pair p = syncPair(new RecordingReceiver(), new RecordingReceiver(), b -> b.dataLane(false));
        assertEquals(0, p.b().dataLanePort());
        assertNull(LaneHooks.requestOverLane(p.a(), TestNodes.other(p.a()), new byte[]{1}, TIMEOUT));
    }
}
