package io.sessionrep.core;

import java.util.function.Predicate;

/**
 * A session this node owns, as its owner sees it: whether the container holds it live, how many requests here
 * use it, whether it is promised to another node, and whether this node has stopped owning it. The one place
 * that says which states an owned session can be in and which steps move it; {@code docs/design.md} ("A
 * session's ownership") lists them with the step, thread and class that takes each.
 *
 * <p>States ({@link #state}):
 * <ul>
 *   <li>{@link State#DORMANT}: promoted from a backup, or granted by a hand-over, without a request here; the
 *       container holds nothing live, the core expires it itself. Only a new entry starts so; never re-entered.</li>
 *   <li>{@link State#SERVING}: the container holds it live; {@link #requestsInFlight} requests use it now (0 or
 *       more).</li>
 *   <li>{@link State#HANDING_OVER}: promised to another node; granted when the last request here exits.</li>
 *   <li>{@link State#GONE}: invalidated, taken over elsewhere, handed away, or lost to a merge; must not
 *       replicate any more. Terminal: no request is let in and no promise made. Requests that were running
 *       still exit (their count is still taken back); a promise pending at the removal is handed back to be
 *       answered (the asker learns the session is invalidated or owned elsewhere).</li>
 * </ul>
 * Steps that the current protocol lets race are tolerated and documented on each method; steps that cannot
 * happen when callers check what they must under the monitor throw {@link IllegalStateException}.
 *
 * <p>Guarded by the monitor of the {@link PrimaryEntry} that holds it: every method runs with that monitor held,
 * except {@link #isDormant} and {@link #servedLive}, which also answer without it (a volatile read).
 */
final class SessionOwnership {

    /** What the owner may do with the session now. */
    enum State {
        /** Promoted or granted without a request: the container holds nothing live. */
        DORMANT,
        /** The container holds it live, with a count of requests in flight (possibly 0). */
        SERVING,
        /** Promised to another node, granted when the last request running here exits. */
        HANDING_OVER,
        /** No longer owned here: invalidated, taken over, handed away or lost to a merge. */
        GONE
    }

    /** Invalidated or taken over by another node: must not replicate any more. */
    private boolean gone;
    /** Promoted or granted without a request, not used by a request here since (read without the monitor). */
    private volatile boolean dormant;
    /** Requests on this node that use the session right now: entered or acquired, not exited yet. */
    private int requests;
    /** A hand-over promised to another node, carried out when {@link #requests} reaches 0; null if none. */
    private HandOver.Pending promise;

    private SessionOwnership(boolean dormant, int requests) {
        this.dormant = dormant;
        this.requests = requests;
    }

    /** A session replicated here for the first time: SERVING, with no request counted yet. */
    static SessionOwnership firstReplicated() {
        return new SessionOwnership(false, 0);
    }

    /** Promoted from a backup (its primary left), or granted after the request that asked gave up: DORMANT. */
    static SessionOwnership dormant() {
        return new SessionOwnership(true, 0);
    }

    /** Taken over or granted for a request here: SERVING, that request counted if {@code requestHere}. */
    static SessionOwnership serving(boolean requestHere) {
        return new SessionOwnership(false, requestHere ? 1 : 0);
    }

    // ------------------------------------------------------------------ queries

    State state() {
        if (gone) {
            return State.GONE;
        }
        if (promise != null) {
            return State.HANDING_OVER;
        }
        return dormant ? State.DORMANT : State.SERVING;
    }

    /** Invalidated, taken over elsewhere, handed away or lost to a merge. */
    boolean isGone() {
        return gone;
    }

    /**
     * Promoted or granted without a request, and no request used it here since: the container holds nothing
     * live for it. May be read without the monitor.
     */
    boolean isDormant() {
        return dormant;
    }

    /** The opposite of {@link #isDormant}: a request used it here, so the container holds it live. */
    boolean servedLive() {
        return !dormant;
    }

    /** Requests here that use the session now. */
    int requestsInFlight() {
        return requests;
    }

    /** Whether a request here uses the session now (its live objects may be changing). */
    boolean inUse() {
        return requests > 0;
    }

    /** The node the session is promised to, and its ask; null if none. */
    HandOver.Pending pendingPromise() {
        return promise;
    }

    // ------------------------------------------------------------------ request threads

    /**
     * A request here uses the session ({@link HandOver#enter}): DORMANT or SERVING becomes SERVING, counted.
     *
     * @throws IllegalStateException when GONE or HANDING_OVER: the caller answers MOVED or PROMISED instead
     */
    void enterRequest() {
        if (gone || promise != null) {
            throw new IllegalStateException("a request may not enter a session that is " + state());
        }
        dormant = false;
        requests++;
    }

    /**
     * A take-over here resumes this entry for a request ({@code enter}: counted) or without one: the container
     * holds the session live from now on. Tolerated in every state, because a take-over checks the entry and
     * resumes it under two holds of the monitor: a promise made in between (HANDING_OVER) then also waits for
     * this request. A take-over that finds the entry removed in between (GONE) looks again instead of
     * resuming it; where a removal still slips in (a microsecond window), the count stays on the removed entry
     * and is taken back by the exit.
     */
    void resumedByTakeOver(boolean enter) {
        dormant = false;
        if (enter) {
            requests++;
        }
    }

    /**
     * Requests counted before the session's first replication ({@link NewSessionUses}) move into the entry made
     * by that replication, or into one that appeared meanwhile. Any state: the count is only added.
     */
    void adoptRequests(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("requests to adopt: " + count);
        }
        requests += count;
    }

    /**
     * A request that entered or acquired the session is over. Returns the promise to carry out now (the last
     * request exited and one is pending; it is taken: the caller grants it), else null. A count already at 0
     * stays there: an exit finds the entry that is current under the id, which need not be the one the request
     * entered (an entry replaced by a late grant), or a request that was never counted in it.
     */
    HandOver.Pending exitRequest() {
        if (requests > 0) {
            requests--;
        }
        return requests == 0 ? takePromise() : null;
    }

    // ------------------------------------------------------------------ transport threads

    /**
     * Another node asks for the session ({@link HandOver#onAcquire}): it is promised to it. Returns the promise
     * to carry out now when no request here uses the session (taken: the caller grants it), else null
     * (HANDING_OVER until the last request exits). Replaces an earlier promise to the same node (it asked
     * again); a promise to a node that left is dropped first ({@link #dropPromiseToDeparted}).
     *
     * @throws IllegalStateException when GONE, or promised to another node: the caller answers NOT_OWNER
     */
    HandOver.Pending promise(HandOver.Pending to) {
        if (gone) {
            throw new IllegalStateException("a session that is GONE cannot be promised");
        }
        if (promise != null && !promise.requester().name().equals(to.requester().name())) {
            throw new IllegalStateException("already promised to " + promise.requester().name());
        }
        promise = to;
        return requests == 0 ? takePromise() : null;
    }

    /** The asker gave up ({@link HandOver#onCancel}): its promise, if it is the pending one, is withdrawn. */
    void withdrawPromise(String requester, long requestId) {
        if (promise != null && promise.requestId() == requestId && promise.requester().name().equals(requester)) {
            promise = null;
        }
    }

    /** The node the session is promised to left the view: the promise is dropped, this node keeps the session. */
    void dropPromiseToDeparted(Predicate<String> isMember) {
        if (promise != null && !isMember.test(promise.requester().name())) {
            promise = null;
        }
    }

    /**
     * The session goes to the node it was promised to ({@link HandOver}'s grant): GONE. Called after the promise
     * was taken ({@link #exitRequest} or {@link #promise} returned it) with no request in flight. Tolerated when
     * GONE already (idempotent).
     *
     * @throws IllegalStateException when a request still uses it, or a promise is pending
     */
    void handedAway() {
        if (!gone && (requests > 0 || promise != null)) {
            throw new IllegalStateException("handed away while " + requests + " request(s) use it"
                    + (promise == null ? "" : ", promised to " + promise.requester().name()));
        }
        gone = true;
    }

    /**
     * Invalidated, taken over by another node, lost to a merge, dropped as a stale promotion, or replaced by a
     * grant: GONE, from any state (idempotent). Requests still running keep their count until they exit. A
     * pending promise can no longer be carried out (there is nothing left to grant): it is taken and returned,
     * for the caller to answer the asker, which otherwise would wait out ownership-timeout.
     *
     * @return the promise pending at the removal, or null
     */
    HandOver.Pending remove() {
        gone = true;
        return takePromise();
    }

    private HandOver.Pending takePromise() {
        HandOver.Pending taken = promise;
        promise = null;
        return taken;
    }

    @Override
    public String toString() {
        return state() + (requests > 0 ? " (" + requests + " request(s))" : "")
                + (promise != null ? " promised to " + promise.requester().name() : "");
    }
}
