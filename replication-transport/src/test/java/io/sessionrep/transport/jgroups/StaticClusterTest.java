package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.TransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real JChannels on 127.0.0.1 with static discovery: membership, delivery, ordering, request failures. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class StaticClusterTest {

    private static final Duration VIEW_WAIT = Duration.ofSeconds(20);
    private static final Member A = new Member("a", "a-host");
    private static final Member B = new Member("b", "b-host");
    private static final Member C = new Member("c", "c-host");

    private final TestNodes nodes = new TestNodes();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void closeNodes() {
        release.countDown(); // unpark receivers that block on purpose, so channels close promptly
        nodes.close();
    }

    @Test
    void ringOfThreeWhereEachKnowsOnlyItsPredecessorFormsOneViewWithMachineIds() throws Exception {
        int[] ports = TestNodes.freePorts(3);
        RecordingReceiver ra = new RecordingReceiver();
        RecordingReceiver rb = new RecordingReceiver();
        RecordingReceiver rc = new RecordingReceiver();
        JGroupsTransport a = nodes.start(nodes.staticNode("a", ports[0], ports[2]), ra); // c is not up yet
        JGroupsTransport b = nodes.start(nodes.staticNode("b", ports[1], ports[0]), rb);
        JGroupsTransport c = nodes.start(nodes.staticNode("c", ports[2], ports[1]), rc);

        List<JGroupsTransport> all = List.of(a, b, c);
        await().atMost(VIEW_WAIT).until(() -> all.stream().allMatch(t -> t.members().size() == 3));
        List<Member> view = a.members();
        assertEquals(List.of(A, B, C), view.stream().sorted((x, y) -> x.name().compareTo(y.name())).toList());
        assertEquals(view, b.members(), "same order on every member");
        assertEquals(view, c.members(), "same order on every member");
        await().atMost(VIEW_WAIT).until(() -> ra.lastView().equals(view) && rb.lastView().equals(view)
                && rc.lastView().equals(view));
        assertEquals(A, a.localMember());
        assertEquals(ports[1], b.boundAddress().getPort());
    }

    @Test
    void sendRequestAndBroadcastDeliverTheBytes() throws Exception {
        RecordingReceiver rb = new RecordingReceiver();
        RecordingReceiver rc = new RecordingReceiver().answering((sender, message) ->
                ("pong:" + sender.name() + ":" + text(message)).getBytes(StandardCharsets.UTF_8));
        RecordingReceiver ra = new RecordingReceiver();
        List<JGroupsTransport> all = startLine(ra, rb, rc);
        JGroupsTransport a = all.get(0);

        a.send(B, bytes("hello b"));
        byte[] reply = a.request(C, bytes("ping"), Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
        a.broadcast(bytes("to all"));

        assertEquals("pong:a:ping", text(reply));
        await().atMost(VIEW_WAIT).until(() -> rb.messages.size() == 2 && rc.messages.size() == 2);
        assertEquals(A, rb.messages.get(0).sender());
        assertEquals(List.of("hello b", "to all"), texts(rb));
        assertEquals(List.of("ping", "to all"), texts(rc));
        assertTrue(ra.messages.isEmpty(), "no self-delivery of broadcasts");

        TransportCounters counters = a.counters();
        await().atMost(VIEW_WAIT).until(() -> counters.messagesSent() == 4); // send + request + broadcast to two
        assertEquals("hello b".length() + "ping".length() + 2L * "to all".length(), counters.bytesSent());
        assertEquals(1, counters.broadcastsSent());
        assertEquals(1, counters.repliesReceived());
        assertEquals(2, all.get(2).counters().messagesReceived());
        await().atMost(VIEW_WAIT).until(() -> all.get(2).counters().repliesSent() == 1);
    }

    @Test
    void thousandMixedSendsAndRequestsArriveInSendOrder() throws Exception {
        List<Integer> arrived = new java.util.concurrent.CopyOnWriteArrayList<>();
        RecordingReceiver rb = new RecordingReceiver().answering((sender, message) -> {
            arrived.add(ByteBuffer.wrap(message).getInt());
            return message;
        });
        List<JGroupsTransport> all = startLine(new RecordingReceiver(), rb);
        JGroupsTransport a = all.get(0);

        List<CompletableFuture<byte[]>> replies = new ArrayList<>();
        List<Integer> requested = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            byte[] message = ByteBuffer.allocate(4 + (i % 7) * 300).putInt(i).array(); // some sizes vary
            if (i % 3 == 0) {
                replies.add(a.request(B, message, Duration.ofSeconds(30)));
                requested.add(i);
            } else {
                a.send(B, message);
            }
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> arrived.size() == 1000);
        for (int i = 0; i < 1000; i++) {
            assertEquals(i, arrived.get(i), "message " + i + " out of order");
        }
        for (int k = 0; k < replies.size(); k++) {
            assertEquals(requested.get(k), ByteBuffer.wrap(replies.get(k).get(10, TimeUnit.SECONDS)).getInt());
        }
    }

    @Test
    void nullReplyOrReceiverErrorFailsTheRequestAndTheChannelSurvives() throws Exception {
        RecordingReceiver rb = new RecordingReceiver().answering((sender, message) -> {
            if (text(message).equals("throw")) {
                throw new IllegalStateException("boom");
            }
            return text(message).equals("null") ? null : message;
        });
        JGroupsTransport a = startLine(new RecordingReceiver(), rb).get(0);

        ExecutionException noReply = assertThrows(ExecutionException.class,
                () -> a.request(B, bytes("null"), Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS));
        assertInstanceOf(TransportException.class, noReply.getCause());
        assertTrue(noReply.getCause().getMessage().contains("no reply"), noReply.getCause().getMessage());

        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> a.request(B, bytes("throw"), Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS));
        assertInstanceOf(TransportException.class, failed.getCause());
        assertTrue(failed.getCause().getMessage().contains("boom"), failed.getCause().getMessage());

        a.send(B, bytes("throw")); // a one-way message whose processing fails is only logged and counted
        assertEquals("still here", text(a.request(B, bytes("still here"), Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS)));
        assertEquals(2, nodeNamed("b").counters().receiverFailures());
        assertEquals(2, a.counters().requestsFailed());
    }

    @Test
    void requestTimesOutWithoutBlockingTheCaller() throws Exception {
        RecordingReceiver rb = new RecordingReceiver().answering((sender, message) -> blockUntilReleased(message));
        JGroupsTransport a = startLine(new RecordingReceiver(), rb).get(0);

        long before = System.nanoTime();
        CompletableFuture<byte[]> reply = a.request(B, bytes("block"), Duration.ofMillis(300));
        long callMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);

        assertFalse(reply.isDone(), "the caller got the future before any reply could exist");
        assertTrue(callMillis < 250, "request() took " + callMillis + " ms: it must not wait for the reply");
        ExecutionException e = assertThrows(ExecutionException.class, () -> reply.get(10, TimeUnit.SECONDS));
        assertInstanceOf(TimeoutException.class, e.getCause());
        assertEquals(1, a.counters().requestsTimedOut());
    }

    @Test
    void whatAMemberSentBeforeClosingArrivesBeforeTheOthersSeeItLeave() throws Exception {
        for (int round = 0; round < 3; round++) {
            List<Boolean> senderWasMember = new java.util.concurrent.CopyOnWriteArrayList<>();
            RecordingReceiver rb = new RecordingReceiver();
            rb.answering((sender, message) -> {
                senderWasMember.add(rb.lastView().contains(A));
                sleepMillis(2); // a busy receiver: without waiting for it, a leaves while it still works
                return message;
            });
            try (TestNodes pair = new TestNodes()) {
                TestNodes.Pair started = pair.startPair(new RecordingReceiver(), rb);
                for (int i = 0; i < 200; i++) {
                    started.a().send(B, bytes("last words " + i)); // e.g. the sessions an orderly stop hands over
                }
                started.a().close(); // a is the coordinator: b installs a view without it as soon as it leaves

                await().atMost(VIEW_WAIT).until(() -> started.b().members().equals(List.of(B)));
                assertEquals(200, rb.messages.size(), "every message sent before close arrived");
                assertFalse(senderWasMember.contains(false), "a message arrived after b saw a leave: b refuses those");
            }
        }
    }

    @Test
    void closingAMemberFailsRequestsPendingOnItAndRemovesItFromTheView() throws Exception {
        RecordingReceiver rc = new RecordingReceiver().answering((sender, message) -> blockUntilReleased(message));
        List<JGroupsTransport> all = startLine(new RecordingReceiver(), new RecordingReceiver(), rc);
        JGroupsTransport a = all.get(0);
        JGroupsTransport c = all.get(2);

        CompletableFuture<byte[]> pending = a.request(C, bytes("block"), Duration.ofSeconds(60));
        await().atMost(VIEW_WAIT).until(() -> rc.messages.size() == 1); // c holds it and will not answer

        long closing = System.nanoTime();
        CompletableFuture<Void> closed = CompletableFuture.runAsync(c::close);
        ExecutionException e = assertThrows(ExecutionException.class, () -> pending.get(10, TimeUnit.SECONDS));
        assertInstanceOf(TransportException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("left the cluster"), e.getCause().getMessage());
        await().atMost(Duration.ofSeconds(5)).until(() -> a.members().equals(List.of(A, B))
                && all.get(1).members().equals(List.of(A, B)));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing);
        System.out.println("closed member left the others' view after " + millis + " ms");

        release.countDown();
        closed.get(20, TimeUnit.SECONDS);
        c.close(); // idempotent
        assertTrue(c.members().isEmpty());
    }

    @Test
    void aReceiverThatStopsProcessingNeverBlocksTheSender() throws Exception {
        List<Integer> arrived = new java.util.concurrent.CopyOnWriteArrayList<>();
        RecordingReceiver rb = new RecordingReceiver().answering((sender, message) -> {
            blockUntilReleased(message);
            arrived.add(ByteBuffer.wrap(message).getInt());
            return message;
        });
        JGroupsTransport a = startLine(new RecordingReceiver(), rb).get(0);

        long before = System.nanoTime();
        for (int i = 0; i < 100; i++) { // 10 MB, more than the 4 MB of flow-control credits
            a.send(B, ByteBuffer.allocate(100_000).putInt(i).array());
        }
        CompletableFuture<byte[]> request = a.request(B, ByteBuffer.allocate(4).putInt(100).array(), Duration.ofSeconds(30));
        long callsMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);

        assertTrue(callsMillis < 2_000, "100 sends and a request took " + callsMillis + " ms while b was stuck");
        assertTrue(arrived.isEmpty());
        release.countDown();
        assertEquals(100, ByteBuffer.wrap(request.get(30, TimeUnit.SECONDS)).getInt());
        assertEquals(java.util.stream.IntStream.rangeClosed(0, 100).boxed().toList(), arrived);
    }

    @Test
    void sendToANonMemberIsDroppedAndRequestFailsAtOnce() throws Exception {
        JGroupsTransport a = startLine(new RecordingReceiver()).get(0);
        Member ghost = new Member("ghost", "nowhere");

        a.send(ghost, bytes("lost"));
        CompletableFuture<byte[]> reply = a.request(ghost, bytes("lost"), Duration.ofSeconds(10));

        assertEquals(1, a.counters().sendsDropped());
        assertTrue(reply.isCompletedExceptionally());
        assertEquals(List.of(A), a.members());
    }

    /** Starts nodes a, b, c, ... in a line (each knows its predecessor) and waits for the full view. */
    private List<JGroupsTransport> startLine(RecordingReceiver... receivers) throws Exception {
        int[] ports = TestNodes.freePorts(receivers.length);
        List<JGroupsTransport> started = new ArrayList<>();
        for (int i = 0; i < receivers.length; i++) {
            String name = String.valueOf((char) ('a' + i));
            int[] peers = i == 0 ? new int[0] : new int[] {ports[i - 1]};
            started.add(nodes.start(nodes.staticNode(name, ports[i], peers), receivers[i]));
        }
        await().atMost(VIEW_WAIT).until(() -> started.stream().allMatch(t -> t.members().size() == receivers.length));
        return started;
    }

    private JGroupsTransport nodeNamed(String name) {
        return nodes.started().stream().filter(t -> t.localMember().name().equals(name)).findFirst().orElseThrow();
    }

    private byte[] blockUntilReleased(byte[] message) {
        try {
            if (!release.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("test never released the receiver");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return message;
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static List<String> texts(RecordingReceiver receiver) {
        return receiver.messages.stream().map(m -> text(m.message())).toList();
    }
}
