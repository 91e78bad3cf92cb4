package io.sessionrep.transport.jgroups;

import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.ReplicationTransport.Outbound;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Without the data lane ({@code data-lane=false}), between two real transports on 127.0.0.1: a request on the caller's
 * thread goes over the channel, after everything sent before it, and a batch of one-way messages goes as one frame
 * per member, whole and in order.
 */
class ChannelPathTest {

    private final TestNodes nodes = new TestNodes();

    @AfterEach
    void close() {
        nodes.close();
    }

    private TestNodes.Pair pair(RecordingReceiver onA, RecordingReceiver onB) throws IOException {
        int[] ports = TestNodes.freePorts(2);
        JGroupsTransport a = nodes.start(node("a", ports[0], ports[1]), onA);
        JGroupsTransport b = nodes.start(node("b", ports[1], ports[0]), onB);
        await().atMost(Duration.ofSeconds(20)).until(() -> a.members().size() == 2 && b.members().size() == 2);
        return new TestNodes.Pair(a, b);
    }

    private ReplicationConfig node(String name, int port, int peerPort) {
        return ReplicationConfig.builder().nodeName(name).machineId(name + "-host").clusterName(nodes.clusterName)
                .discovery(DiscoveryMode.STATIC).bindAddress(TestNodes.LOOPBACK).bindPort(port)
                .peers(List.of(new HostPort(TestNodes.LOOPBACK, peerPort))).dataLane(false).build();
    }

    @Test
    void aRequestOnTheCallersThreadIsAnsweredOverTheChannelAfterWhatWasSentBeforeIt() throws Exception {
        RecordingReceiver onB = new RecordingReceiver().answering((sender, m) -> new byte[]{(byte) (m[0] + 1)});
        TestNodes.Pair p = pair(new RecordingReceiver(), onB);
        assertEquals(0, p.b().dataLanePort(), "no lane");
        Member b = TestNodes.other(p.a());
        byte[] big = new byte[200_000];
        for (int i = 0; i < 40; i++) { // 8 MB in the bundler's queue: still on its way when the request is written
            big[0] = (byte) i;
            p.a().send(b, big.clone());
        }

        byte[] reply = p.a().requestOnCallerThread(b, new byte[]{41}, Duration.ofSeconds(10));

        assertArrayEquals(new byte[]{42}, reply);
        assertEquals(41, onB.messages.size(), "every message sent before was handled before the request");
        for (int i = 0; i < 40; i++) {
            assertEquals((byte) i, onB.messages.get(i).message()[0], "message " + i + " in order");
        }
        assertArrayEquals(new byte[]{41}, onB.messages.get(40).message(), "the request came last");
        assertEquals("a", onB.messages.get(40).sender().name());
    }

    @Test
    void aRequestNoLongerNeededIsGivenUpSoonInsteadOfWaitingOutItsTimeOut() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        RecordingReceiver onB = new RecordingReceiver().answering((sender, m) -> {
            try {
                release.await(10, TimeUnit.SECONDS); // a backup that hangs
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new byte[]{1};
        });
        TestNodes.Pair p = pair(new RecordingReceiver(), onB);
        try {
            CompletableFuture<Void> noLongerNeeded = CompletableFuture.runAsync(() -> { },
                    CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS));
            long started = System.nanoTime();

            assertThrows(TimeoutException.class, () -> p.a().requestOnCallerThread(TestNodes.other(p.a()), new byte[]{1},
                    Duration.ofSeconds(8), noLongerNeeded));

            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertTrue(tookMillis < 2_000, "given up after " + tookMillis + " ms, not the 8 s time-out");
        } finally {
            release.countDown();
        }
    }

    @Test
    void aBatchGoesAsOneFramePerMemberAndArrivesWholeAndInOrder() throws Exception {
        RecordingReceiver onB = new RecordingReceiver();
        TestNodes.Pair p = pair(new RecordingReceiver(), onB);
        Member b = TestNodes.other(p.a());
        List<Outbound> batch = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            batch.add(new Outbound(b, ByteBuffer.allocate(1_000).putInt(i).array()));
        }
        long sentBefore = p.a().counters().messagesSent();

        p.a().sendAll(batch);

        await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 50);
        for (int i = 0; i < 50; i++) {
            assertEquals(i, ByteBuffer.wrap(onB.messages.get(i).message()).getInt(), "message " + i + " in order");
            assertEquals(1_000, onB.messages.get(i).message().length);
        }
        assertEquals(1, p.a().counters().messagesSent() - sentBefore, "one channel message for the batch");
    }

    @Test
    void aBatchLargerThanAFrameTakesSeveralInOrder() throws Exception {
        RecordingReceiver onB = new RecordingReceiver();
        TestNodes.Pair p = pair(new RecordingReceiver(), onB);
        Member b = TestNodes.other(p.a());
        List<Outbound> batch = new ArrayList<>();
        int size = JGroupsTransport.MAX_ONE_WAYS_BYTES / 4; // four and a bit to a frame's worth
        for (int i = 0; i < 10; i++) {
            batch.add(new Outbound(b, ByteBuffer.allocate(size).putInt(i).array()));
        }
        long sentBefore = p.a().counters().messagesSent();

        p.a().sendAll(batch);

        await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 10);
        for (int i = 0; i < 10; i++) {
            assertEquals(i, ByteBuffer.wrap(onB.messages.get(i).message()).getInt(), "message " + i + " in order");
        }
        assertEquals(4, p.a().counters().messagesSent() - sentBefore, "3 + 3 + 3 + 1 messages to a frame");
    }
}
