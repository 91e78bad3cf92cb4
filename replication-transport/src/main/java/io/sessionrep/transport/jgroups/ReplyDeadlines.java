package io.sessionrep.transport.jgroups;

import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The time-outs of the lane's exchanges (a sync request waiting for its reply) without socket time-outs: a read with
 * one makes the JDK's socket non-blocking, and each reply that is not there yet then costs a failed read and a
 * {@code poll} before the read (two system calls more per exchange on the request thread, as a profile showed for
 * the backup's reads; sync A/B: 20261129-lane-no-socket-timeouts-ab). Instead the read blocks, and one daemon thread per client looks at the exchanges in flight every
 * {@link #TICK_MILLIS} and closes the connection of one past its deadline: its read fails, and the exchange sees that
 * its deadline passed ({@link Deadline#expired}) and times out as before, at most one tick late. After
 * {@link #IDLE_TICKS} ticks without an exchange the thread parks until the next one starts (async-only and quiet
 * nodes do not wake it).
 */
final class ReplyDeadlines implements AutoCloseable {

    static final long TICK_MILLIS = 10;
    /** Ticks without an exchange in flight before the thread parks: one second. */
    static final int IDLE_TICKS = 100;

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

    private final Set<Deadline> inFlight = ConcurrentHashMap.newKeySet();
    private final Thread thread;
    /** The thread is parked, or about to: a new exchange unparks it. */
    private volatile boolean parked;
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
        if (parked) { // after the add: the thread sets parked before it looks at inFlight a last time
            LockSupport.unpark(thread);
        }
        return d;
    }

    /**
     * Brings an exchange's deadline forward to {@code graceMillis} from now, if that is sooner: the caller no longer
     * needs its reply. A tick may close its connection then; one finished already is not touched.
     */
    void cutShort(Deadline d, long graceMillis) {
        long at = System.nanoTime() + graceMillis * 1_000_000;
        synchronized (d) {
            if (at - d.atNanos < 0) {
                d.cut = true; // first: the thread that sees the new deadline sees this too
                d.atNanos = at;
            }
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
        int idleTicks = 0;
        while (!closed) {
            if (idleTicks >= IDLE_TICKS) {
                parked = true;
                if (inFlight.isEmpty() && !closed) {
                    LockSupport.park(this);
                }
                parked = false;
                idleTicks = 0;
            }
            try {
                Thread.sleep(TICK_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            if (inFlight.isEmpty()) {
                idleTicks++;
                continue;
            }
            idleTicks = 0;
            long now = System.nanoTime();
            for (Deadline d : inFlight) {
                if (now - d.atNanos >= 0 && d.state.compareAndSet(Deadline.RUNNING, Deadline.EXPIRED)) {
                    inFlight.remove(d);
                    LaneFrames.closeQuietly(d.socket);
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt(); // also ends a park
    }
}
