package io.sessionrep.transport.jgroups;

import org.jgroups.Address;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Holds back a message from a node that has just joined until this node's view includes that node.
 *
 * <p>Why: every member installs a new view when the coordinator's view message reaches it, not all at once.
 * A node that has just joined has the view from its join response and may send at once to a member that has
 * not installed it yet. That member's core refuses messages from non-members (a removed node must not
 * replicate, fetch or take over anything), so the message was lost: the newcomer's first hand-over requests
 * waited {@code ownership-timeout} and its requests were refused with 503 (docs/operations.md, 5.8).
 *
 * <p>What: a message from an address that no view of this node has held yet waits here until a view with
 * that address is installed (and the core has seen it), at most {@link #maxWaitMillis}; then it goes on, and
 * the core decides as always. An address that an earlier view held (a member that was removed, a partition
 * that has not merged back) is not a newcomer: its messages go on at once and are refused as before.
 *
 * <p>How: the JGroups thread that delivers the message waits. JGroups delivers one sender's messages one at a
 * time and in order, so that sender's later messages wait behind it and keep their order; other senders and
 * the view itself are delivered by other threads. At most {@link #maxWaiting} threads wait at once, so many
 * unknown senders cannot take JGroups' thread pool: beyond that their messages go on at once.
 */
final class NewcomerGate {

    private static final System.Logger LOG = System.getLogger(NewcomerGate.class.getName());
    /** Addresses of earlier views remembered (the oldest forgotten first). */
    static final int REMEMBERED_ADDRESSES = 4096;

    private final long maxWaitMillis;
    private final int maxWaiting;
    private final TransportCounters counters;

    private final ReentrantLock lock = new ReentrantLock(); // not a monitor: a waiting virtual thread stays unpinned
    private final Condition viewChanged = lock.newCondition();
    private Membership installed = Membership.EMPTY;
    private final Set<Address> seen = Collections.newSetFromMap(new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Address, Boolean> eldest) {
            return size() > REMEMBERED_ADDRESSES;
        }
    });
    private int waiting;
    private boolean closed;

    NewcomerGate(long maxWaitMillis, int maxWaiting, TransportCounters counters) {
        this.maxWaitMillis = maxWaitMillis;
        this.maxWaiting = maxWaiting;
        this.counters = counters;
    }

    /** {@code view} is installed and the core has been told. Releases the messages of its newcomers. */
    void viewInstalled(Membership view) {
        lock.lock();
        try {
            installed = view;
            seen.addAll(view.addresses());
            viewChanged.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The transport is closing: nothing waits any longer. */
    void close() {
        lock.lock();
        try {
            closed = true;
            viewChanged.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns once a message from {@code source} may go on: at once if {@code source} is a member, was one
     * in an earlier view, or too many messages wait already; else when a view with it is installed, or after
     * {@link #maxWaitMillis}.
     */
    void awaitMembership(Address source) {
        lock.lock();
        try {
            if (closed || installed.contains(source) || seen.contains(source) || waiting >= maxWaiting) {
                return;
            }
            waiting++;
            counters.messageHeld();
            long left = TimeUnit.MILLISECONDS.toNanos(maxWaitMillis);
            try {
                while (!closed && !installed.contains(source)) {
                    if (left <= 0) {
                        counters.heldMessageReleasedInVain();
                        LOG.log(System.Logger.Level.DEBUG, "{0} is still not in this node''s view after {1} ms; its"
                                + " message goes on", source, maxWaitMillis);
                        return;
                    }
                    left = viewChanged.awaitNanos(left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                waiting--;
            }
        } finally {
            lock.unlock();
        }
    }
}
