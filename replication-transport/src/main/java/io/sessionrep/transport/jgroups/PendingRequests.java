package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MemberLeftException;
import io.sessionrep.core.transport.TransportException;
import org.jgroups.Address;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Requests waiting for their reply, by correlation id. Each one ends exactly once, by whoever removes it
 * from the table first: the reply, a failure reply, the timeout ({@link TimeoutException}), or a
 * {@link MemberLeftException} when its target leaves, or a {@link TransportException} when it fails otherwise (the
 * target answered a failure, it could not be sent, the transport closes). Counters are updated before
 * the future completes, so a caller that sees the outcome also sees it counted. A request its caller
 * ends (e.g. {@code cancel}) is forgotten; a reply that comes later is ignored.
 *
 * <p>Timeouts: one sweep every {@value #SWEEP_INTERVAL_MS} ms, scheduled only while requests wait, expires
 * those past their deadline, so a request times out at most that much late. A timer task per request (the
 * earlier way) cost every sync request end a task in the timer's queue, where a cancelled task stays until its
 * deadline, and the timer thread woke once per request to discard it.
 */
final class PendingRequests {

    /** How often waiting requests are checked for their deadline; the most a timeout may be late. */
    static final long SWEEP_INTERVAL_MS = 10;

    private record Pending(Member target, Address address, CompletableFuture<byte[]> future, long deadlineNanos,
                           Duration timeout) {
    }

    /** A registered request: the id to put in the frame, the future to hand to the caller. */
    record Registration(long id, CompletableFuture<byte[]> future) {
    }

    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final ScheduledExecutorService timer;
    private final TransportCounters counters;
    /** Whether a sweep is scheduled (or running); set by whoever schedules it. */
    private final AtomicBoolean sweepScheduled = new AtomicBoolean();

    PendingRequests(ScheduledExecutorService timer, TransportCounters counters) {
        this.timer = timer;
        this.counters = counters;
    }

    Registration register(Member target, Address address, Duration timeout) {
        long id = ids.incrementAndGet();
        CompletableFuture<byte[]> future = new CompletableFuture<>();
        pending.put(id, new Pending(target, address, future, System.nanoTime() + timeout.toNanos(), timeout));
        future.whenComplete((reply, failure) -> pending.remove(id)); // also when the caller ends it
        if (!scheduleSweep()) {
            fail(id, "request to " + target + " not sent: the transport is closed");
        }
        return new Registration(id, future);
    }

    /** Schedules a sweep unless one is; false when the timer no longer runs (the transport is closing). */
    private boolean scheduleSweep() {
        if (sweepScheduled.get() || !sweepScheduled.compareAndSet(false, true)) {
            return true;
        }
        try {
            timer.schedule(this::sweep, SWEEP_INTERVAL_MS, TimeUnit.MILLISECONDS);
            return true;
        } catch (RejectedExecutionException closing) {
            sweepScheduled.set(false);
            return false;
        }
    }

    /** Expires the requests past their deadline; runs again while any wait. */
    private void sweep() {
        long now = System.nanoTime();
        for (Map.Entry<Long, Pending> entry : pending.entrySet()) {
            Pending p = entry.getValue();
            if (now - p.deadlineNanos() >= 0 && pending.remove(entry.getKey(), p)) {
                counters.requestTimedOut();
                p.future().completeExceptionally(new TimeoutException(
                        "no reply from " + p.target() + " within " + p.timeout().toMillis() + " ms"));
            }
        }
        sweepScheduled.set(false);
        if (!pending.isEmpty()) { // a request registered after the loop read the flag as set: sweep on its behalf
            scheduleSweep();
        }
    }

    /** The reply to request {@code id} came from {@code from}. */
    void complete(long id, Address from, byte[] reply) {
        Pending p = removeIfFrom(id, from);
        if (p != null) {
            counters.replyReceived();
            p.future().complete(reply);
        }
    }

    /** Request {@code id} failed at {@code from} (no reply, receiver error). */
    void fail(long id, Address from, String reason) {
        Pending p = removeIfFrom(id, from);
        if (p != null) {
            failRemoved(p, p.target() + " did not reply: " + reason);
        }
    }

    /** Request {@code id} failed here, e.g. it could not be sent. */
    void fail(long id, String reason) {
        Pending p = pending.remove(id);
        if (p != null) {
            failRemoved(p, reason);
        }
    }

    /** Request {@code id} was not sent: its target left the cluster before it was. */
    void failTargetLeft(long id) {
        Pending p = pending.remove(id);
        if (p != null) {
            failRemoved(p, new MemberLeftException("request to " + p.target() + " not sent: it left the cluster"));
        }
    }

    /** Fails every request whose target address is not in {@code membership}. */
    void failTargetsNotIn(Membership membership) {
        for (Map.Entry<Long, Pending> entry : pending.entrySet()) {
            Pending p = entry.getValue();
            if (!membership.contains(p.address()) && pending.remove(entry.getKey(), p)) {
                failRemoved(p, new MemberLeftException("request to " + p.target()
                        + " failed: it left the cluster before replying"));
            }
        }
    }

    /** Fails every request: the transport is closing. */
    void failAll(String reason) {
        for (Map.Entry<Long, Pending> entry : pending.entrySet()) {
            Pending p = entry.getValue();
            if (pending.remove(entry.getKey(), p)) {
                failRemoved(p, "request to " + p.target() + " abandoned: " + reason);
            }
        }
    }

    int size() {
        return pending.size();
    }

    private Pending removeIfFrom(long id, Address from) {
        Pending p = pending.get(id);
        return p != null && p.address().equals(from) && pending.remove(id, p) ? p : null;
    }

    private void failRemoved(Pending p, String message) {
        failRemoved(p, new TransportException(message));
    }

    private void failRemoved(Pending p, TransportException failure) {
        counters.requestFailed();
        p.future().completeExceptionally(failure);
    }
}
