package io.sessionrep.transport.jgroups.lane;

import org.jgroups.Address;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How far this node has handled (delivered or refused) each member's channel messages (one-way, requests, barriers:
 * what its {@code OutboundQueues} count as sent to this node): the furthest {@link ChannelPosition} among them. The
 * data lane waits here until a request's sender has had everything it sent before that request handled
 * ({@link LaneServer}). Taking the position from the messages, rather than counting them here, keeps the two sides
 * agreed when they saw a split differently (see {@link ChannelPosition}).
 */
final class HandledPositions {

    private static final class Furthest {
        private long position = ChannelPosition.NONE;
    }

    private final Map<Address, Furthest> furthest = new ConcurrentHashMap<>();

    /** A message of {@code source} at {@code position} handled (a message of an earlier stream moves nothing). */
    void handled(Address source, long position) {
        Furthest f = furthest.computeIfAbsent(source, a -> new Furthest());
        synchronized (f) {
            if (Long.compareUnsigned(position, f.position) > 0) {
                f.position = position;
                f.notifyAll();
            }
        }
    }

    /**
     * Waits until the messages of {@code source} up to {@code position} were handled (or one of a later stream was:
     * its sender had then given up the earlier stream), at most {@code millis}.
     *
     * @return whether they were
     */
    boolean await(Address source, long position, long millis) throws InterruptedException {
        if (ChannelPosition.reached(ChannelPosition.NONE, position)) {
            return true;
        }
        Furthest f = furthest.computeIfAbsent(source, a -> new Furthest());
        long deadline = System.nanoTime() + millis * 1_000_000L;
        synchronized (f) {
            while (!ChannelPosition.reached(f.position, position)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                f.wait(Math.max(1, left / 1_000_000L));
            }
            return true;
        }
    }

    /**
     * Forgets senders that are not {@code members} once more than {@link #REMEMBERED_LEFT} such are held. Not at every
     * view change: a member that a split removed from this node's view may come back with the same address and go on
     * with the same stream, and its lane requests would then wait for its next channel message here.
     */
    void trim(Set<Address> members) {
        if (furthest.size() > members.size() + REMEMBERED_LEFT) {
            furthest.keySet().retainAll(members);
        }
    }

    /** How many senders that are not members are remembered at most (a few bytes each). */
    static final int REMEMBERED_LEFT = 1024;
}
