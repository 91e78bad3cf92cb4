package io.sessionrep.transport.jgroups.lane;

import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The time-outs of the lane's exchanges (a sync request waiting for its reply) without socket time-outs: a read with
 * one makes the JDK's socket non-blocking, and each reply that is not there yet then costs a failed read and a
 * {@code poll} before the read (two system calls more per exchange on the request thread, as a profile showed for
 * the backup's reads; sync A/B: 20261129-lane-no-socket-timeouts-ab). Instead the read blocks, and one daemon thread
 * per client closes the connection of an exchange past its deadline: its read fails, and the exchange sees that its
 * deadline passed ({@link Deadline#expired}) and times out as before. The thread sleeps until the earliest deadline in
 * flight, or until one starts when none is (a new deadline earlier than the one it sleeps towards, or one brought
 * forward by {@link #cutShort}, wakes it): it wakes about once per time-out under load, not per exchange. (It woke
 * every 10 ms while exchanges ran: 1 % of a sync node's CPU samples at 1x1 KiB in
 * profile-20261129-sync-vs-floor.)
 */
final class ReplyDeadlines implements AutoCloseable {

    /** One exchange's deadline: settled once, by the exchange ({@link #finish}) or by the deadline passing. */
    static final class Deadline {
        private static final int RUNNING = 0;
        private static final int FINISHED = 1;
        private static final int EXPIRED = 2;
        private final Socket socket;
        private volatile long atNanos;
        /** The deadline was brought forward ({@link #cutShort}): its expiry is a give-up, not a time-out. */
        private volatile boolean cut;
        private final AtomicInteger state = new AtomicInteger(RUNNING);

        private Deadline(Socket socket, long atNanos) {
            this.socket = socket;
            this.atNanos = atNanos;
        }

        /** True if the connection passed its deadline and was closed: the exchange timed out. */
        boolean expired() {
            return state.get() == EXPIRED;
        }

        /** True if it {@link #expired()} at a deadline brought forward by {@link #cutShort}. */
        boolean cut() {
            return cut && expired();
        }
    }

    /** {@link #wakeAt} when no exchange is in flight: the thread sleeps until one starts. */
    private static final long NEVER = Long.MAX_VALUE;

    private final Set<Deadline> inFlight = ConcurrentHashMap.newKeySet();
    private final Thread thread;
    /** When the thread wakes next (System.nanoTime), or {@link #NEVER}; a deadline before it wakes the thread. */
    private volatile long wakeAt = NEVER;
    private volatile boolean closed;

    ReplyDeadlines(String name) {
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Starts the clock of an exchange on {@code socket}, which is closed if it is not {@link #finish}ed in time. */
    Deadline start(Socket socket, long millis) {
        Deadline d = new Deadline(socket, System.nanoTime() + millis * 1_000_000);
        inFlight.add(d);
        wakeIfBefore(d.atNanos);
        return d;
    }

    /**
     * Brings an exchange's deadline forward to {@code graceMillis} from now, if that is sooner: the caller no longer
     * needs its reply: the thread closes its connection then, unless it finished first.
     */
    void cutShort(Deadline d, long graceMillis) {
        long at = System.nanoTime() + graceMillis * 1_000_000;
        synchronized (d) {
            if (at - d.atNanos < 0) {
                d.cut = true; // first: the thread that sees the new deadline sees this too
                d.atNanos = at;
            }
        }
        wakeIfBefore(at);
    }

    /**
     * Wakes the thread if it sleeps past {@code atNanos}. Called after the deadline is in {@link #inFlight}: the
     * thread sets {@link #wakeAt} before it looks at them a last time, so either it sees this deadline or this
     * call sees the time it sleeps towards (an unpark before its park makes the park return at once).
     */
    private void wakeIfBefore(long atNanos) {
        long wake = wakeAt;
        if (wake == NEVER || atNanos - wake < 0) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * Ends an exchange's clock, once: true if it ended in time (the connection may be used again), false if its
     * deadline passed first (the connection is closed, or being closed).
     */
    boolean finish(Deadline d) {
        boolean inTime = d.state.compareAndSet(Deadline.RUNNING, Deadline.FINISHED);
        inFlight.remove(d);
        return inTime;
    }

    private void run() {
        while (!closed) {
            long next = expireDue();
            wakeAt = next;
            long again = expireDue(); // a deadline added or brought forward before wakeAt was set
            if (again != next) {
                continue;
            }
            if (next == NEVER) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, Math.max(1, next - System.nanoTime()));
            }
            if (Thread.interrupted()) {
                return;
            }
        }
    }

    /** Closes the connections of the exchanges past their deadline; the earliest deadline left, or {@link #NEVER}. */
    private long expireDue() {
        long now = System.nanoTime();
        long earliest = NEVER;
        for (Deadline d : inFlight) {
            long at = d.atNanos;
            if (now - at >= 0) {
                if (d.state.compareAndSet(Deadline.RUNNING, Deadline.EXPIRED)) {
                    LaneFrames.closeQuietly(d.socket);
                }
                inFlight.remove(d);
            } else if (earliest == NEVER || at - earliest < 0) {
                earliest = at;
            }
        }
        return earliest;
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt(); // also ends a park
    }
}
