package io.sessionrep.transport.jgroups;

import org.jgroups.Address;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Holds back the messages of a node that has just joined until this node's view includes that node.
 *
 * <p>Why: every member installs a new view when the coordinator's view message reaches it, not all at once.
 * A node that has just joined has the view from its join response and may send at once to a member that has
 * not installed it yet (or members send to a joiner that has not read its join response yet). The receiving
 * core refuses messages from non-members (a removed node must not replicate, fetch or take over anything),
 * so such a message was lost: the newcomer's first hand-over requests waited {@code ownership-timeout} and
 * its requests were refused with 503 (docs/operations.md, 5.8).
 *
 * <p>What: a message from an address that no view of this node has held yet is queued here, in arrival
 * order, with every later message of that sender, until a view with that address is installed (and the core
 * has seen it); then a pool thread hands them to the core in order. After {@link #maxWaitMillis} without
 * such a view they are handed over all the same, and the core refuses them as before. An address that an
 * earlier view held (a removed member, a partition not merged yet) is not a newcomer: its messages go on at
 * once. The JGroups thread never waits here: a delivery thread that waited made JGroups queue that sender's
 * later messages, and every 20 ms retransmission of them, without bound (the reverted first version ran a
 * restarted node out of heap in {@code RepeatedKillIT}).
 *
 * <p>Bounds: at most {@link #maxSenders} newcomers are held at once (further ones go on at once and are
 * refused by the core), and at most {@link #maxBytes} bytes in all; a message beyond that is dropped and
 * counted ({@link TransportCounters#heldDropped()}), as the core would have refused it.
 */
final class NewcomerGate {

    private static final System.Logger LOG = System.getLogger(NewcomerGate.class.getName());
    /** Addresses of earlier views remembered (the oldest forgotten first). */
    static final int REMEMBERED_ADDRESSES = 4096;

    /** One held message: what hands it to the core, and its size. */
    private record Message(Runnable delivery, int bytes) {
    }

    /** The messages held for one sender, in arrival order. */
    private static final class Held {
        final ArrayDeque<Message> messages = new ArrayDeque<>();
        final long deadlineNanos;
        boolean releasing;

        Held(long deadlineNanos) {
            this.deadlineNanos = deadlineNanos;
        }
    }

    private final long maxWaitMillis;
    private final int maxSenders;
    private final long maxBytes;
    private final Supplier<Membership> current;
    private final Executor releaser;
    private final ScheduledExecutorService timer;
    private final TransportCounters counters;

    private final ReentrantLock lock = new ReentrantLock();
    private final Set<Address> seen = Collections.newSetFromMap(new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Address, Boolean> eldest) {
            return size() > REMEMBERED_ADDRESSES;
        }
    });
    private final Map<Address, Held> held = new HashMap<>();
    private long heldBytes;
    private boolean closed;
    /** Whether anything is held: while not, a member's message takes the fast path without the lock. */
    private volatile boolean holding;

    /**
     * @param current  the transport's view (a message from a member of it goes on at once)
     * @param releaser runs the hand-over of held messages to the core
     * @param timer    ends a wait after {@code maxWaitMillis}
     */
    NewcomerGate(long maxWaitMillis, int maxSenders, long maxBytes, Supplier<Membership> current, Executor releaser,
                 ScheduledExecutorService timer, TransportCounters counters) {
        this.maxWaitMillis = maxWaitMillis;
        this.maxSenders = maxSenders;
        this.maxBytes = maxBytes;
        this.current = current;
        this.releaser = releaser;
        this.timer = timer;
        this.counters = counters;
    }

    /**
     * Hands a message from {@code source} to the core: {@code delivery} runs now on the caller's thread, or
     * later on a pool thread after the messages of {@code source} held before it. Never waits.
     */
    void deliver(Address source, int bytes, Runnable delivery) {
        deliver(source, bytes, delivery, () -> { });
    }

    /** As {@link #deliver(Address, int, Runnable)}; {@code dropped} runs instead of {@code delivery} when the message is dropped. */
    void deliver(Address source, int bytes, Runnable delivery, Runnable dropped) {
        if (!holding && current.get().contains(source)) {
            delivery.run(); // the common case: a member, nothing held
            return;
        }
        Boolean now;
        lock.lock();
        try {
            now = holdOrPass(source, bytes, delivery);
        } finally {
            lock.unlock();
        }
        if (now == null) {
            dropped.run();
        } else if (now) {
            delivery.run();
        }
    }

    /** Caller holds the lock. True: run {@code delivery} now (outside the lock); false: held; null: dropped. */
    private Boolean holdOrPass(Address source, int bytes, Runnable delivery) {
        Held queue = held.get(source);
        if (queue == null) {
            if (closed || current.get().contains(source) || seen.contains(source)) {
                return true; // a member, or in an earlier view (a former member: the core refuses it)
            }
            if (held.size() >= maxSenders) {
                return true; // too many strangers at once: the core refuses this one
            }
            queue = new Held(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxWaitMillis));
            held.put(source, queue);
            holding = true;
            scheduleExpiry();
            LOG.log(System.Logger.Level.DEBUG, "holding the messages of {0} until this node''s view includes it", source);
        }
        if (heldBytes + bytes > maxBytes) {
            counters.heldMessageDropped();
            return null;
        }
        queue.messages.add(new Message(delivery, bytes));
        heldBytes += bytes;
        counters.messageHeld();
        return false;
    }

    /** {@code view} is installed and the core has been told: releases the messages of its newcomers. */
    void viewInstalled(Membership view) {
        List<Address> release = new ArrayList<>();
        lock.lock();
        try {
            seen.addAll(view.addresses());
            for (Map.Entry<Address, Held> e : held.entrySet()) {
                if (view.contains(e.getKey()) && !e.getValue().releasing) {
                    e.getValue().releasing = true;
                    release.add(e.getKey());
                }
            }
        } finally {
            lock.unlock();
        }
        release.forEach(this::startRelease);
    }

    /** The transport is closing: what is held is dropped (the core would refuse it now). */
    void close() {
        lock.lock();
        try {
            closed = true;
            held.clear();
            heldBytes = 0;
            holding = false;
        } finally {
            lock.unlock();
        }
    }

    /** Messages held now (tests). */
    int heldMessages() {
        lock.lock();
        try {
            int n = 0;
            for (Held h : held.values()) {
                n += h.messages.size();
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    private void scheduleExpiry() {
        try {
            timer.schedule(this::expire, maxWaitMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // the transport is closing: close() drops what is held
        }
    }

    /** Hands over, all the same, the messages of senders that are still not in the view after the wait. */
    private void expire() {
        List<Address> release = new ArrayList<>();
        long now = System.nanoTime();
        lock.lock();
        try {
            for (Map.Entry<Address, Held> e : held.entrySet()) {
                Held h = e.getValue();
                if (!h.releasing && now - h.deadlineNanos >= 0) {
                    h.releasing = true;
                    release.add(e.getKey());
                    counters.heldMessagesReleasedInVain(h.messages.size());
                    LOG.log(System.Logger.Level.DEBUG, "{0} is still not in this node''s view after {1} ms; its {2}"
                            + " held message(s) go on", e.getKey(), maxWaitMillis, h.messages.size());
                }
            }
        } finally {
            lock.unlock();
        }
        release.forEach(this::startRelease);
    }

    private void startRelease(Address source) {
        try {
            releaser.execute(() -> release(source));
        } catch (RejectedExecutionException closing) {
            close();
        }
    }

    /**
     * Hands the held messages of {@code source} to the core in order, including those that arrive meanwhile;
     * the sender's entry goes once its queue is empty, and its messages then take the direct way again.
     */
    private void release(Address source) {
        while (true) {
            Message next;
            lock.lock();
            try {
                Held h = held.get(source);
                if (h == null) {
                    return; // closed meanwhile
                }
                next = h.messages.poll();
                if (next == null) {
                    held.remove(source);
                    holding = !held.isEmpty();
                    return;
                }
                heldBytes -= next.bytes();
            } finally {
                lock.unlock();
            }
            try {
                next.delivery().run();
            } catch (RuntimeException | Error e) {
                LOG.log(System.Logger.Level.WARNING, "could not hand a held message of " + source + " to the core", e);
            }
        }
    }

    /** Whether {@code source} has messages held (tests). */
    boolean isHolding(Address source) {
        lock.lock();
        try {
            return held.containsKey(source);
        } finally {
            lock.unlock();
        }
    }
}
