package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.Member;
import org.jgroups.Address;
import org.jgroups.View;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link NewcomerGate} alone: who waits, for how long, and what ends the wait. */
@Timeout(30)
class NewcomerGateTest {

    private final TransportCounters counters = new TransportCounters();
    private final NewcomerGate gate = new NewcomerGate(10_000, 2, counters);
    private final Address a = address("a");
    private final Address b = address("b");
    private final Address c = address("c");

    private static Address address(String name) {
        return new NodeIdentity(new Member(name, name + "-host")).generateAddress(name);
    }

    private static Membership view(long id, Address... members) {
        return Membership.of(View.create(members[0], id, members));
    }

    private CompletableFuture<Long> awaitInBackground(Address source) {
        return CompletableFuture.supplyAsync(() -> {
            long start = System.nanoTime();
            gate.awaitMembership(source);
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        });
    }

    @Test
    void aMemberAndAFormerMemberGoOnAtOnce() {
        gate.viewInstalled(view(1, a, b));
        gate.viewInstalled(view(2, a)); // b was removed
        long start = System.nanoTime();
        gate.awaitMembership(a);
        gate.awaitMembership(b);
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2), "neither waited the 10 s");
        assertEquals(0, counters.heldForView(), "a removed member is not a newcomer: the core refuses it at once");
    }

    @Test
    void aNewcomersMessageWaitsUntilAViewHoldsIt() throws Exception {
        gate.viewInstalled(view(1, a, b));
        CompletableFuture<Long> fromC = awaitInBackground(c);
        Thread.sleep(300);
        assertFalse(fromC.isDone(), "c's message waits while this node's view does not hold c");
        gate.viewInstalled(view(2, a, b)); // a view without c does not end the wait
        Thread.sleep(100);
        assertFalse(fromC.isDone());
        gate.viewInstalled(view(3, a, b, c));
        assertTrue(fromC.get(5, TimeUnit.SECONDS) < 5_000, "released by the view, not by the 10 s bound");
        assertEquals(1, counters.heldForView());
        assertEquals(0, counters.heldInVain());
    }

    @Test
    void theWaitEndsAfterItsBoundWhenNoViewComes() throws Exception {
        NewcomerGate shortGate = new NewcomerGate(200, 2, counters);
        shortGate.viewInstalled(view(1, a));
        long start = System.nanoTime();
        shortGate.awaitMembership(c);
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(waited >= 190 && waited < 5_000, "waited its bound: " + waited + " ms");
        assertEquals(1, counters.heldInVain());
    }

    @Test
    void atMostMaxWaitingMessagesWaitAtOnceAndClosingReleasesThem() throws Exception {
        gate.viewInstalled(view(1, a));
        List<CompletableFuture<Long>> held = new ArrayList<>();
        held.add(awaitInBackground(b));
        held.add(awaitInBackground(c));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).until(() -> counters.heldForView() == 2);
        long start = System.nanoTime();
        gate.awaitMembership(address("d")); // a third unknown sender: the gate is full, it goes on
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2));
        assertEquals(2, counters.heldForView());
        gate.close();
        for (CompletableFuture<Long> f : held) {
            assertTrue(f.get(5, TimeUnit.SECONDS) < 5_000, "closing the transport ends every wait");
        }
        gate.awaitMembership(address("e")); // closed: no wait
    }
}
