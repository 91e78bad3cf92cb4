package io.sessionrep.core;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MessageReceiver;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.core.wire.MalformedMessageException;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The async queue: bounded in entries and bytes, coalescing, never blocking the caller. */
@Timeout(30)
class AsyncSenderTest {
    private final Member backup = new Member("b", "b");
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<String> dropped = new CopyOnWriteArrayList<>();
    private final ReplicationMetrics metrics = new ReplicationMetrics(new SimpleMeterRegistry(), "a");

    /** A transport whose network is stuck (a hung backup) until the test releases it. */
    private final ReplicationTransport stuck = new ReplicationTransport() {
        @Override
        public void start(MessageReceiver receiver) {
        }

        @Override
        public Member localMember() {
            return new Member("a", "a");
        }

        @Override
        public List<Member> members() {
            return List.of(localMember(), backup);
        }

        @Override
        public void send(Member target, byte[] message) {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout) {
            return new CompletableFuture<>();
        }

        @Override
        public void broadcast(byte[] message) {
        }

        @Override
        public void close() {
        }
    };

    private static SessionUpdate update(String id, long from, int bytes) {
        return new SessionUpdate(id, from, from + 1, from == 0, 0, 0, 60, Map.of("v", new byte[bytes]), Set.of());
    }

    /** A receiver that hands every one-way message to {@code onMessage} and answers nothing. */
    private static MessageReceiver receiver(java.util.function.Consumer<byte[]> onMessage) {
        return new MessageReceiver() {
            public byte[] onMessage(Member sender, byte[] message) {
                onMessage.accept(message);
                return null;
            }

            public void onMembershipChange(List<Member> members) {
            }
        };
    }

    @Test
    void aHungBackupNeverBlocksTheCallerAndTheQueueStaysWithinItsBounds() {
        AsyncSender sender = new AsyncSender(stuck, metrics, 100, 1024 * 1024, Duration.ZERO, "a", (id, target) -> dropped.add(id), io.sessionrep.core.wire.WireCodec::encode);
        try {
            long started = System.nanoTime();
            for (int i = 0; i < 10_000; i++) {
                sender.enqueue(backup, update("s" + i, 0, 1024));
            }
            long elapsedMs = (System.nanoTime() - started) / 1_000_000;
            assertTrue(elapsedMs < 5_000, "enqueue never waits for the network (took " + elapsedMs + " ms)");
            assertTrue(sender.entries() <= 100, "entries bounded: " + sender.entries());
            assertTrue(sender.bytes() <= 1024 * 1024, "bytes bounded: " + sender.bytes());
            assertTrue(metrics.dropped.count() >= 9_800, "drops counted: " + metrics.dropped.count());
            assertEquals((long) metrics.dropped.count(), dropped.size(), "each dropped session told to send a full copy later");
        } finally {
            release.countDown();
            sender.close(1000);
        }
    }

    @Test
    void byteBoundDropsTheOldestFirst() {
        AsyncSender sender = new AsyncSender(stuck, metrics, 10_000, 100 * 1024, Duration.ZERO, "a", (id, target) -> dropped.add(id), io.sessionrep.core.wire.WireCodec::encode);
        try {
            sender.enqueue(backup, update("first", 0, 10)); // taken by the sender thread, which the network holds
            org.awaitility.Awaitility.await().until(() -> sender.entries() == 0);
            for (int i = 0; i < 50; i++) {
                sender.enqueue(backup, update("s" + i, 0, 10 * 1024));
            }
            assertTrue(sender.bytes() <= 100 * 1024, "bytes bounded: " + sender.bytes());
            assertTrue(dropped.contains("s1") && !dropped.contains("s49"), "oldest dropped first: " + dropped);
        } finally {
            release.countDown();
            sender.close(1000);
        }
    }

    @Test
    void updatesOfOneSessionCoalesceIntoTheNewest() throws Exception {
        List<byte[]> received = new CopyOnWriteArrayList<>();
        InMemoryNetwork network = new InMemoryNetwork();
        var a = started(network, "a", message -> { });
        var b = started(network, "b", received::add);
        CountDownLatch gate = new CountDownLatch(1);
        ReplicationTransport slow = new DelegatingSlowTransport(a, gate);
        AsyncSender sender = new AsyncSender(slow, metrics, 1000, 1 << 20, Duration.ZERO, "a", (id, target) -> dropped.add(id), io.sessionrep.core.wire.WireCodec::encode);
        try {
            sender.enqueue(backup, update("first", 0, 10)); // occupies the sender thread until the gate opens
            org.awaitility.Awaitility.await().until(() -> sender.entries() == 0); // taken by the sender thread
            for (int v = 0; v < 100; v++) {
                sender.enqueue(backup, update("s", v, 10));
            }
            assertEquals(1, sender.entries(), "100 updates of one session wait as one");
            assertEquals(99, (long) metrics.coalesced.count());
            gate.countDown();
            assertTrue(sender.flush(5000));
            b.drain();
            assertEquals(2, received.size());
        } finally {
            gate.countDown();
            sender.close(1000);
            a.close();
            b.close();
        }
    }

    @Test
    void updatesWaitForTheBatchWindowAndOneSessionsMergeIntoOne() throws Exception {
        List<SessionUpdate> received = new CopyOnWriteArrayList<>();
        // a window far longer than the enqueues take, so that the test does not depend on the machine's speed
        try (Pair nodes = Pair.of(message -> received.add(((Message.Update) decode(message)).update()));
             AsyncSender sender = windowed(nodes.a(), "a")) {
            sender.enqueue(backup, update("cart", 0, 10));
            Thread.sleep(200); // without a window the sender thread sends this one alone meanwhile
            for (int v = 1; v < 10; v++) {
                sender.enqueue(backup, update("cart", v, 10));
            }
            for (int i = 0; i < 5; i++) {
                sender.enqueue(backup, update("other" + i, 0, 10));
            }
            assertTrue(sender.flush(10_000), "sent once the window is over");
            nodes.b().drain();
            assertEquals(6, received.size(), "one message per session: " + received);
            SessionUpdate cart = received.get(0);
            assertEquals("cart", cart.sessionId());
            assertEquals(0, cart.fromVersion(), "the merged update starts where the first one did");
            assertEquals(10, cart.toVersion(), "and ends at the newest version");
            assertTrue(cart.full(), "the first was a full copy, so the merge is one too");
            assertEquals(9, (long) metrics.coalesced.count());
            assertEquals(List.of(), dropped);
        }
    }

    /**
     * After a batch the sender waits one more window (timed) before it sleeps until the next update: under load the
     * next updates come meanwhile and no request thread has to wake it. Seen by the sender thread's state.
     */
    @Test
    void afterABatchTheSenderLooksAgainAfterAWindowBeforeItSleepsUntilTheNextUpdate() throws Exception {
        List<SessionUpdate> received = new CopyOnWriteArrayList<>();
        try (Pair nodes = Pair.of(message -> received.add(((Message.Update) decode(message)).update()));
             AsyncSender sender = windowed(nodes.a(), "look-again")) {
            Thread thread = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("sessionrep-sender-look-again")).findFirst().orElseThrow();
            await().atMost(Duration.ofSeconds(5)).until(() -> thread.getState() == Thread.State.WAITING); // idle
            sender.enqueue(backup, update("cart", 0, 10));
            assertTrue(sender.flush(10_000));
            await().atMost(Duration.ofSeconds(1)).until(() -> thread.getState() != Thread.State.RUNNABLE);
            assertEquals(Thread.State.TIMED_WAITING, thread.getState(), "just sent: waits a window, not for an update");
            sender.enqueue(backup, update("other", 0, 10)); // comes during that window: leaves at its end
            await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 2);
            await().atMost(Duration.ofSeconds(10)).until(() -> thread.getState() == Thread.State.WAITING);
            nodes.b().drain();
            assertEquals(List.of("cart", "other"), received.stream().map(SessionUpdate::sessionId).toList());
        }
    }

    /** Stopping a node does not wait out the sender's batch window: close() wakes a sender waiting one. */
    @Test
    void closeEndsASenderThatIsWaitingAWindowAtOnce() throws Exception {
        List<SessionUpdate> received = new CopyOnWriteArrayList<>();
        try (Pair nodes = Pair.of(message -> received.add(((Message.Update) decode(message)).update()))) {
            AsyncSender sender = new AsyncSender(nodes.a(), metrics, 1000, 1 << 20, Duration.ofSeconds(30), "closing",
                    (id, target) -> dropped.add(id), io.sessionrep.core.wire.WireCodec::encode);
            Thread thread = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("sessionrep-sender-closing")).findFirst().orElseThrow();
            sender.enqueue(backup, update("cart", 0, 10));
            await().atMost(Duration.ofSeconds(5)).until(() -> thread.getState() == Thread.State.TIMED_WAITING); // the window
            sender.close(0); // join waits 1 s at most: the thread would still wait out 30 s if nothing woke it
            assertFalse(thread.isAlive(), "the sender thread ended with close()");
        }
    }

    @Test
    void anUpdateForTwoBackupsIsEncodedOnceAndBothGetTheSameBytes() throws Exception {
        List<byte[]> atB = new CopyOnWriteArrayList<>();
        List<byte[]> atC = new CopyOnWriteArrayList<>();
        InMemoryNetwork network = new InMemoryNetwork();
        var a = started(network, "a", message -> { });
        var b = started(network, "b", atB::add);
        var c = started(network, "c", atC::add);
        Member backupC = new Member("c", "c");
        AsyncSender sender = windowed(a, "a");
        try {
            SessionUpdate cart = update("cart", 0, 10 * 1024);
            sender.enqueue(backup, cart);
            sender.enqueue(backup, update("other", 0, 10)); // between the two: the same update need not be adjacent
            sender.enqueue(backupC, cart);
            assertTrue(sender.flush(10_000), "sent once the window is over");
            b.drain();
            c.drain();
            assertEquals(2, atB.size());
            assertEquals(1, atC.size());
            assertTrue(atB.get(0) == atC.get(0), "one encoding, handed to the transport for both backups");
            SessionUpdate arrived = ((Message.Update) decode(atC.get(0))).update();
            assertEquals("cart", arrived.sessionId());
            assertEquals(10 * 1024, arrived.changed().get("v").length);
            assertEquals(2 * atB.get(0).length + atB.get(1).length, (long) metrics.bytesSent.count(),
                    "bytes sent still count each backup's copy");
        } finally {
            sender.close(1000);
            a.close();
            b.close();
            c.close();
        }
    }

    @Test
    void anInvalidationReplacesTheWaitingUpdateOfItsSessionAndLeavesAfterWhatWasQueuedBefore() throws Exception {
        List<Message> received = new CopyOnWriteArrayList<>();
        try (Pair nodes = Pair.of(message -> received.add(decode(message)));
             AsyncSender sender = windowed(nodes.a(), "a")) {
            sender.enqueue(backup, update("cart", 0, 10));
            sender.enqueue(backup, update("other", 0, 10));
            assertTrue(sender.enqueueInvalidation(List.of(backup), "cart"));
            sender.enqueue(backup, update("cart", 1, 10)); // too late: the session is invalidated
            sender.discard("cart"); // what the primary does when it drops the session: the invalidation stays
            sender.discard("cart", "b");
            assertEquals(2, sender.entries());
            assertEquals(10, sender.bytes(), "the replaced update's bytes no longer count");
            assertTrue(sender.flush(10_000));
            nodes.b().drain();
            assertEquals(2, received.size(), "the other session's update and the invalidation: " + received);
            assertEquals("other", ((Message.Update) received.get(0)).update().sessionId());
            assertEquals(new Message.Invalidate("cart"), received.get(1));
            assertEquals(List.of(), dropped);
        }
    }

    @Test
    void invalidationsAreNeverDroppedAndAFullQueueRefusesThemInstead() throws Exception {
        List<Message> sent = new CopyOnWriteArrayList<>();
        ReplicationTransport recording = new DelegatingSlowTransport(stuck, release) {
            @Override
            public void send(Member target, byte[] message) {
                super.send(target, message);
                sent.add(decode(message));
            }
        };
        AsyncSender sender = new AsyncSender(recording, metrics, 10, 1 << 20, Duration.ZERO, "a", (id, target) -> dropped.add(id), io.sessionrep.core.wire.WireCodec::encode);
        try {
            sender.enqueue(backup, update("first", 0, 10)); // taken by the sender thread, which the network holds
            org.awaitility.Awaitility.await().until(() -> sender.entries() == 0);
            for (int i = 0; i < 5; i++) {
                assertTrue(sender.enqueueInvalidation(List.of(backup), "gone" + i));
            }
            for (int i = 0; i < 20; i++) {
                sender.enqueue(backup, update("s" + i, 0, 10));
            }
            assertEquals(10, sender.entries(), "bounded: 5 invalidations and the 5 newest updates");
            assertEquals(15, dropped.size(), "only updates were dropped: " + dropped);
            assertTrue(dropped.stream().allMatch(id -> id.startsWith("s")), "no invalidation dropped: " + dropped);
            assertFalse(sender.enqueueInvalidation(List.of(backup), "refused"),
                    "a full queue refuses an invalidation (the caller sends it itself)");
            release.countDown();
            assertTrue(sender.flush(10_000));
            List<Message> invalidations = sent.stream().filter(m -> m instanceof Message.Invalidate).toList();
            assertEquals(List.of(new Message.Invalidate("gone0"), new Message.Invalidate("gone1"), new Message.Invalidate("gone2"),
                    new Message.Invalidate("gone3"), new Message.Invalidate("gone4")), invalidations);
        } finally {
            release.countDown();
            sender.close(1000);
        }
    }

    /** Nodes a and b of one in-memory network, b handing each one-way message it gets to {@code atB}. */
    private record Pair(InMemoryNetwork.Node a, InMemoryNetwork.Node b) implements AutoCloseable {
        static Pair of(java.util.function.Consumer<byte[]> atB) {
            InMemoryNetwork network = new InMemoryNetwork();
            return new Pair(started(network, "a", message -> { }), started(network, "b", atB));
        }

        @Override
        public void close() {
            a.close();
            b.close();
        }
    }

    /** A sender over {@code transport} with room to spare and a 2 s batch window (far longer than a test's enqueues). */
    private AsyncSender windowed(ReplicationTransport transport, String nodeName) {
        return new AsyncSender(transport, metrics, 1000, 1 << 20, Duration.ofSeconds(2), nodeName, (id, target) -> dropped.add(id), io.sessionrep.core.wire.WireCodec::encode);
    }

    /** A node of {@code network} whose one-way messages go to {@code onMessage}. */
    private static InMemoryNetwork.Node started(InMemoryNetwork network, String name, java.util.function.Consumer<byte[]> onMessage) {
        var transport = network.transport(name, name);
        transport.start(receiver(onMessage));
        return transport;
    }

    private static Message decode(byte[] message) {
        try {
            return WireCodec.decode(message);
        } catch (MalformedMessageException e) {
            throw new AssertionError(e);
        }
    }

    /** Delegates to a real transport, but its first send waits for a gate. */
    private static class DelegatingSlowTransport implements ReplicationTransport {
        private final ReplicationTransport delegate;
        private final CountDownLatch gate;

        DelegatingSlowTransport(ReplicationTransport delegate, CountDownLatch gate) {
            this.delegate = delegate;
            this.gate = gate;
        }

        public void start(MessageReceiver receiver) {
        }

        public Member localMember() {
            return delegate.localMember();
        }

        public List<Member> members() {
            return delegate.members();
        }

        public void send(Member target, byte[] message) {
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            delegate.send(target, message);
        }

        public CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout) {
            return delegate.request(target, message, timeout);
        }

        public void broadcast(byte[] message) {
        }

        public void close() {
        }
    }
}
