package io.sessionrep.transport.jgroups;

import org.jgroups.Address;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many of each member's channel messages (one-way, requests, barriers: what its {@link OutboundQueues}
 * count as offered to this node) this node has handled, delivered or refused. The data lane waits here until a
 * request's sender has had everything it sent before that request handled ({@link LaneServer}).
 */
final class DeliveredCounts {

    private static final class Count {
        private long handled;
    }

    private final Map<Address, Count> counts = new ConcurrentHashMap<>();

    /** One more message of {@code source} handled. */
    void handled(Address source) {
        Count c = counts.computeIfAbsent(source, a -> new Count());
        synchronized (c) {
            c.handled++;
            c.notifyAll();
        }
    }

    /**
     * Waits until at least {@code n} messages of {@code source} were handled, at most {@code millis}.
     *
     * @return whether they were
     */
    boolean await(Address source, long n, long millis) throws InterruptedException {
        if (n <= 0) {
            return true;
        }
        Count c = counts.computeIfAbsent(source, a -> new Count());
        long deadline = System.nanoTime() + millis * 1_000_000L;
        synchronized (c) {
            while (c.handled < n) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                c.wait(Math.max(1, left / 1_000_000L));
            }
            return true;
        }
    }

    /**
     * Forgets senders that left the view. Only those: a node that has just joined may send before this node's view
     * holds it, and its count must stay.
     */
    void forget(Set<Address> departed) {
        counts.keySet().removeAll(departed);
    }
}
