package io.sessionrep.core;

import io.sessionrep.core.SessionOwnership.State;
import io.sessionrep.core.transport.Member;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The states of a session's ownership on its owner and the steps between them (docs/design.md). */
class SessionOwnershipTest {
    private static final HandOver.Pending TO_B = new HandOver.Pending(new Member("b", "m2"), 7);
    private static final HandOver.Pending TO_B_AGAIN = new HandOver.Pending(new Member("b", "m2"), 8);
    private static final HandOver.Pending TO_C = new HandOver.Pending(new Member("c", "m3"), 9);
    private static final Predicate<String> EVERYONE = name -> true;

    // ------------------------------------------------------------------ how an entry starts

    @Test
    void aFirstReplicationStartsServingWithNoRequestCounted() {
        SessionOwnership o = SessionOwnership.firstReplicated();
        assertEquals(State.SERVING, o.state());
        assertEquals(0, o.requestsInFlight());
        assertTrue(o.servedLive());
        assertFalse(o.isDormant());
        assertFalse(o.isGone());
    }

    @Test
    void aPromotionOrAGrantWithoutARequestStartsDormant() {
        SessionOwnership o = SessionOwnership.dormant();
        assertEquals(State.DORMANT, o.state());
        assertTrue(o.isDormant());
        assertFalse(o.servedLive());
        assertFalse(o.inUse());
    }

    @Test
    void aTakeOverOrGrantForARequestStartsServingWithThatRequestCounted() {
        SessionOwnership forRequest = SessionOwnership.serving(true);
        assertEquals(State.SERVING, forRequest.state());
        assertEquals(1, forRequest.requestsInFlight());
        assertEquals(0, SessionOwnership.serving(false).requestsInFlight());
    }

    // ------------------------------------------------------------------ requests

    @Test
    void aRequestEnteringADormantSessionMakesItServing() {
        SessionOwnership o = SessionOwnership.dormant();
        o.enterRequest();
        assertEquals(State.SERVING, o.state());
        assertEquals(1, o.requestsInFlight());
        assertFalse(o.isDormant());
    }

    @Test
    void requestsAreCountedInAndOut() {
        SessionOwnership o = SessionOwnership.firstReplicated();
        o.enterRequest();
        o.enterRequest();
        assertTrue(o.inUse());
        assertNull(o.exitRequest());
        assertEquals(1, o.requestsInFlight());
        assertNull(o.exitRequest());
        assertEquals(0, o.requestsInFlight());
        assertEquals(State.SERVING, o.state(), "the container still holds it live");
    }

    @Test
    void anExitWithNoRequestCountedStaysAtZero() {
        SessionOwnership o = SessionOwnership.firstReplicated();
        assertNull(o.exitRequest());
        assertEquals(0, o.requestsInFlight());
        o.enterRequest();
        assertEquals(1, o.requestsInFlight(), "the earlier exit did not leave a debt");
    }

    @Test
    void requestsCountedBeforeTheFirstReplicationAreAdopted() {
        SessionOwnership o = SessionOwnership.firstReplicated();
        o.adoptRequests(2);
        assertEquals(2, o.requestsInFlight());
        SessionOwnership dormant = SessionOwnership.dormant();
        dormant.adoptRequests(1);
        assertEquals(1, dormant.requestsInFlight());
        assertTrue(dormant.isDormant(), "adopting counts only; it does not say the container holds it");
        assertThrows(IllegalArgumentException.class, () -> o.adoptRequests(0));
    }

    @Test
    void aTakeOverResumesADormantSessionWithOrWithoutARequest() {
        SessionOwnership withRequest = SessionOwnership.dormant();
        withRequest.resumedByTakeOver(true);
        assertEquals(State.SERVING, withRequest.state());
        assertEquals(1, withRequest.requestsInFlight());

        SessionOwnership withoutRequest = SessionOwnership.dormant();
        withoutRequest.resumedByTakeOver(false);
        assertEquals(State.SERVING, withoutRequest.state());
        assertEquals(0, withoutRequest.requestsInFlight());
    }

    @Test
    void aTakeOverRacingWithAPromiseJoinsTheRequestsItWaitsFor() {
        SessionOwnership o = SessionOwnership.serving(true);
        assertNull(o.promise(TO_B));
        o.resumedByTakeOver(true);
        assertEquals(State.HANDING_OVER, o.state());
        assertNull(o.exitRequest());
        assertSame(TO_B, o.exitRequest(), "granted only when the resumed request exits too");
    }

    @Test
    void aTakeOverRacingWithARemovalIsCountedAndTakenBackOnTheRemovedEntry() {
        SessionOwnership o = SessionOwnership.dormant();
        o.remove();
        o.resumedByTakeOver(true);
        assertEquals(State.GONE, o.state());
        assertEquals(1, o.requestsInFlight());
        assertNull(o.exitRequest());
        assertEquals(0, o.requestsInFlight());
    }

    // ------------------------------------------------------------------ promises

    @Test
    void aPromiseWithNoRequestRunningIsDueAtOnce() {
        SessionOwnership o = SessionOwnership.firstReplicated();
        assertSame(TO_B, o.promise(TO_B));
        assertNull(o.pendingPromise(), "taken: the caller grants it");
        assertEquals(State.SERVING, o.state(), "until the grant hands it away");
    }

    @Test
    void aDormantSessionIsPromisedAndDueAtOnce() {
        SessionOwnership o = SessionOwnership.dormant();
        assertSame(TO_B, o.promise(TO_B));
    }

    @Test
    void aPromiseWhileRequestsRunIsCarriedOutByTheLastExit() {
        SessionOwnership o = SessionOwnership.serving(true);
        o.enterRequest();
        assertNull(o.promise(TO_B));
        assertEquals(State.HANDING_OVER, o.state());
        assertSame(TO_B, o.pendingPromise());
        assertNull(o.exitRequest());
        assertEquals(State.HANDING_OVER, o.state());
        assertSame(TO_B, o.exitRequest());
        assertNull(o.pendingPromise());
        o.handedAway();
        assertEquals(State.GONE, o.state());
    }

    @Test
    void theSameNodeAskingAgainReplacesItsPromise() {
        SessionOwnership o = SessionOwnership.serving(true);
        assertNull(o.promise(TO_B));
        assertNull(o.promise(TO_B_AGAIN));
        assertSame(TO_B_AGAIN, o.exitRequest());
    }

    @Test
    void aPromiseIsWithdrawnOnlyByTheAskThatMadeIt() {
        SessionOwnership o = SessionOwnership.serving(true);
        o.promise(TO_B);
        o.withdrawPromise("b", 99);
        o.withdrawPromise("c", 7);
        assertSame(TO_B, o.pendingPromise());
        o.withdrawPromise("b", 7);
        assertNull(o.pendingPromise());
        assertEquals(State.SERVING, o.state());
        assertNull(o.exitRequest(), "nothing to grant");
    }

    @Test
    void aPromiseToANodeThatLeftIsDroppedAndTheSessionKept() {
        SessionOwnership o = SessionOwnership.serving(true);
        o.promise(TO_B);
        o.dropPromiseToDeparted(EVERYONE);
        assertSame(TO_B, o.pendingPromise(), "b is still a member");
        o.dropPromiseToDeparted(Set.of("a", "c")::contains);
        assertNull(o.pendingPromise());
        assertEquals(State.SERVING, o.state());
        assertNull(o.promise(TO_C), "then another node may be promised it");
        assertEquals(State.HANDING_OVER, o.state());
    }

    // ------------------------------------------------------------------ leaving

    @Test
    void aRemovalEndsOwnershipFromEveryState() {
        SessionOwnership dormant = SessionOwnership.dormant();
        dormant.remove();
        assertEquals(State.GONE, dormant.state());

        SessionOwnership serving = SessionOwnership.serving(true);
        serving.remove();
        assertEquals(State.GONE, serving.state());
        assertNull(serving.exitRequest(), "a request running when it was removed still exits");
        assertEquals(0, serving.requestsInFlight());

        SessionOwnership gone = SessionOwnership.firstReplicated();
        gone.remove();
        gone.remove();
        assertTrue(gone.isGone(), "idempotent");
    }

    @Test
    void aPromisePendingAtARemovalIsHandedBackToBeAnsweredAndNotGrantedByTheLastExit() {
        SessionOwnership o = SessionOwnership.serving(true);
        o.promise(TO_B);
        assertSame(TO_B, o.remove(), "the asker is told at once");
        assertEquals(State.GONE, o.state());
        assertNull(o.pendingPromise());
        assertNull(o.exitRequest(), "nothing left to grant when the running request exits");
        assertNull(o.remove(), "a second removal has no promise to hand back");
    }

    // ------------------------------------------------------------------ steps that cannot happen

    @Test
    void aRequestCannotEnterAGoneSession() {
        SessionOwnership o = SessionOwnership.firstReplicated();
        o.handedAway();
        assertThrows(IllegalStateException.class, o::enterRequest);
        assertEquals(0, o.requestsInFlight());
    }

    @Test
    void aRequestCannotEnterAPromisedSession() {
        SessionOwnership o = SessionOwnership.serving(true);
        o.promise(TO_B);
        assertThrows(IllegalStateException.class, o::enterRequest);
        assertEquals(1, o.requestsInFlight());
    }

    @Test
    void aGoneSessionCannotBePromised() {
        SessionOwnership o = SessionOwnership.serving(false);
        o.remove();
        assertThrows(IllegalStateException.class, () -> o.promise(TO_B));
        assertNull(o.pendingPromise());
    }

    @Test
    void aSessionCannotBePromisedToTwoNodes() {
        SessionOwnership o = SessionOwnership.serving(true);
        o.promise(TO_B);
        assertThrows(IllegalStateException.class, () -> o.promise(TO_C));
        assertSame(TO_B, o.pendingPromise());
    }

    @Test
    void aSessionCannotBeHandedAwayWhileARequestUsesItOrBeforeItsPromiseIsTaken() {
        SessionOwnership inUse = SessionOwnership.serving(true);
        assertThrows(IllegalStateException.class, inUse::handedAway);
        assertFalse(inUse.isGone());

        SessionOwnership promised = SessionOwnership.serving(true);
        promised.promise(TO_B);
        assertThrows(IllegalStateException.class, promised::handedAway);
        assertEquals(State.HANDING_OVER, promised.state());
    }
}
