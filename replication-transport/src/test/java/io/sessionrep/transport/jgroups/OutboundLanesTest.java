package io.sessionrep.transport.jgroups;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How the transport hands messages to the channel, over two real channels: an idle destination gets its
 * messages from the caller's own thread (no thread woken per message), a destination that stops taking
 * messages (flow-control credits used up) gets them through its lane; in both cases every message
 * arrives, in the order it was sent.
 */
@Timeout(120)
class OutboundLanesTest {

    private static byte[] numbered(int i, int size) {
        return ByteBuffer.allocate(size).putInt(i).array();
    }

    private static int numberOf(byte[] message) {
        return ByteBuffer.wrap(message).getInt();
    }

    @Test
    void anIdleDestinationIsSentToByTheCallerInOrder() throws Exception {
        try (TestNodes nodes = new TestNodes()) {
            RecordingReceiver onB = new RecordingReceiver();
            TestNodes.Pair pair = nodes.startPair(new RecordingReceiver(), onB);
            JGroupsTransport a = pair.a();
            JGroupsTransport b = pair.b();

            for (int i = 0; i < 200; i++) {
                a.send(b.localMember(), numbered(i, 64));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> onB.messages.size() == 200);
            for (int i = 0; i < 200; i++) {
                assertEquals(i, numberOf(onB.messages.get(i).message()), "message " + i + " in order");
            }
            assertEquals(200, a.counters().messagesSent());
            assertTrue(a.counters().sentByCaller() > 0, "an idle lane lets the caller send: " + a.counters());
        }
    }

    @Test
    void aDestinationThatStopsTakingMessagesGetsThemThroughItsLaneInOrder() throws Exception {
        try (TestNodes nodes = new TestNodes()) {
            CountDownLatch bResumes = new CountDownLatch(1);
            RecordingReceiver onB = new RecordingReceiver().answering((sender, message) -> {
                try {
                    bResumes.await(60, TimeUnit.SECONDS); // b's application is stuck: no credits go back to a
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return message;
            });
            TestNodes.Pair pair = nodes.startPair(new RecordingReceiver(), onB);
            JGroupsTransport a = pair.a();
            JGroupsTransport b = pair.b();

            // 8 MiB: twice the unicast flow-control credits, which b, stuck, does not give back by delivering
            int count = 80;
            for (int i = 0; i < count; i++) {
                a.send(b.localMember(), numbered(i, 100 * 1024));
            }
            long byCaller = a.counters().sentByCaller();
            bResumes.countDown();

            await().atMost(Duration.ofSeconds(60)).until(() -> onB.messages.size() == count);
            for (int i = 0; i < count; i++) {
                assertEquals(i, numberOf(onB.messages.get(i).message()), "message " + i + " in order");
            }
            assertTrue(byCaller < count, "once credits ran out, messages went through the lane: " + a.counters());
        }
    }
}
