package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.Member;
import org.jgroups.Address;
import org.jgroups.View;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link NewcomerGate} alone: whose messages are held, in what order they go on, and what bounds them. */
@Timeout(30)
class NewcomerGateTest {

    private final TransportCounters counters = new TransportCounters();
    private final Address a = address("a");
    private final Address b = address("b");
    private final Address c = address("c");
    private volatile Membership transportView = Membership.EMPTY;
    /** Release tasks wait here until the test runs them. */
    private final ArrayDeque<Runnable> releases = new ArrayDeque<>();
    private final Executor manual = releases::add;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final List<String> delivered = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    private static Address address(String name) {
        return new NodeIdentity(new Member(name, name + "-host")).generateAddress(name);
    }

    private static Membership view(long id, Address... members) {
        return Membership.of(View.create(members[0], id, members));
    }

    private NewcomerGate gate(long maxWaitMillis, int maxSenders, long maxBytes) {
        return new NewcomerGate(maxWaitMillis, maxSenders, maxBytes, () -> transportView, manual, timer, counters);
    }

    private void install(NewcomerGate gate, Membership view) {
        transportView = view;
        gate.viewInstalled(view);
    }

    private void send(NewcomerGate gate, Address from, String what) {
        gate.deliver(from, 10, () -> delivered.add(what));
    }

    private void runReleases() {
        Runnable r;
        while ((r = releases.poll()) != null) {
            r.run();
        }
    }

    @Test
    void aMemberAndAFormerMemberGoOnAtOnce() {
        NewcomerGate gate = gate(10_000, 4, 1 << 20);
        install(gate, view(1, a, b));
        install(gate, view(2, a)); // b was removed
        send(gate, a, "from a");
        send(gate, b, "from b, removed");
        assertEquals(List.of("from a", "from b, removed"), delivered, "on the caller's thread, at once");
        assertEquals(0, counters.heldForView(), "a removed member is not a newcomer: the core refuses it at once");
    }

    @Test
    void aNewcomersMessagesWaitForAViewThatHoldsItAndThenGoOnInOrder() {
        NewcomerGate gate = gate(10_000, 4, 1 << 20);
        install(gate, view(1, a, b));
        send(gate, c, "c1");
        send(gate, c, "c2");
        send(gate, a, "a1"); // others are not held back
        assertEquals(List.of("a1"), delivered, "deliver() returned without running c's messages");
        install(gate, view(2, a, b)); // a view without c does not release them
        assertTrue(releases.isEmpty());
        install(gate, view(3, a, b, c));
        send(gate, c, "c3"); // arrives after the view, before the held ones went on: it goes after them
        assertEquals(List.of("a1"), delivered);
        runReleases();
        assertEquals(List.of("a1", "c1", "c2", "c3"), delivered);
        assertEquals(3, counters.heldForView());
        assertFalse(gate.isHolding(c));
        send(gate, c, "c4");
        assertEquals("c4", delivered.get(4), "once released, c's messages go on at once");
        assertEquals(0, counters.heldInVain());
    }

    @Test
    void withoutSuchAViewTheHeldMessagesGoOnAfterTheWait() {
        NewcomerGate gate = gate(100, 4, 1 << 20);
        install(gate, view(1, a));
        send(gate, c, "c1");
        send(gate, c, "c2");
        await().atMost(java.time.Duration.ofSeconds(5)).until(() -> !releases.isEmpty());
        runReleases();
        assertEquals(List.of("c1", "c2"), delivered, "handed to the core, which refuses a non-member");
        assertEquals(2, counters.heldInVain());
    }

    @Test
    void heldMessagesAreBoundedInSendersAndBytes() {
        NewcomerGate gate = gate(10_000, 1, 25);
        install(gate, view(1, a));
        send(gate, b, "b1");
        send(gate, b, "b2");
        send(gate, b, "b3"); // 30 bytes would exceed 25: dropped, counted
        send(gate, c, "c1"); // a second newcomer: beyond the limit of senders, it goes on at once
        assertEquals(List.of("c1"), delivered);
        assertEquals(1, counters.heldDropped());
        assertEquals(2, gate.heldMessages());
        gate.close();
        assertEquals(0, gate.heldMessages(), "closing drops what is held");
        send(gate, address("d"), "d1");
        assertEquals("d1", delivered.get(1), "closed: nothing is held any more");
    }
}
