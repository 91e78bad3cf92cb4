package io.sessionrep.discovery;

import java.net.InetAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The connections {@link HandshakeGate} holds while their handshakes arrive, oldest first, with its bounds: at most
 * {@code max} at once and {@code maxPerAddress} from one remote address; a connection that would pass either bound
 * pushes out the oldest one (of its address, or of all), so that connections which say nothing can neither hold every
 * place nor keep a newer connection out. Each connection leaves exactly once, through whichever of {@link #add},
 * {@link #remove}, {@link #expired} or {@link #removeAll} takes it: that caller alone decides its fate.
 */
final class WaitingConnections {

    /** One connection waiting for its handshake, until {@code deadlineNanos} ({@link System#nanoTime()}). */
    record Waiting(Socket socket, InetAddress from, long deadlineNanos) {
    }

    private final int max;
    private final int maxPerAddress;
    private final Set<Waiting> oldestFirst = new LinkedHashSet<>();
    private final Map<InetAddress, Integer> perAddress = new HashMap<>();

    WaitingConnections(int max, int maxPerAddress) {
        if (max < 1 || maxPerAddress < 1) {
            throw new IllegalArgumentException("bounds must be positive: " + max + ", " + maxPerAddress);
        }
        this.max = max;
        this.maxPerAddress = maxPerAddress;
    }

    /** Holds {@code waiting}; returns the connections it pushed out (already no longer held). */
    synchronized List<Waiting> add(Waiting waiting) {
        List<Waiting> pushedOut = new ArrayList<>(1);
        if (perAddress.getOrDefault(waiting.from(), 0) >= maxPerAddress) {
            for (Waiting held : oldestFirst) {
                if (Objects.equals(held.from(), waiting.from())) {
                    pushedOut.add(held);
                    break;
                }
            }
            pushedOut.forEach(this::forget);
        }
        if (oldestFirst.size() >= max) {
            Waiting oldest = oldestFirst.iterator().next();
            forget(oldest);
            pushedOut.add(oldest);
        }
        oldestFirst.add(waiting);
        perAddress.merge(waiting.from(), 1, Integer::sum);
        return pushedOut;
    }

    /** Whether {@code waiting} was still held; it no longer is. */
    synchronized boolean remove(Waiting waiting) {
        if (!oldestFirst.contains(waiting)) {
            return false;
        }
        forget(waiting);
        return true;
    }

    /** The connections whose deadline has passed at {@code nowNanos}, no longer held. */
    synchronized List<Waiting> expired(long nowNanos) {
        List<Waiting> expired = new ArrayList<>();
        for (Iterator<Waiting> it = oldestFirst.iterator(); it.hasNext(); ) {
            Waiting held = it.next();
            if (nowNanos - held.deadlineNanos() >= 0) {
                expired.add(held);
            }
        }
        expired.forEach(this::forget);
        return expired;
    }

    /** Every connection held, no longer held. */
    synchronized List<Waiting> removeAll() {
        List<Waiting> all = new ArrayList<>(oldestFirst);
        oldestFirst.clear();
        perAddress.clear();
        return all;
    }

    synchronized int size() {
        return oldestFirst.size();
    }

    private void forget(Waiting waiting) {
        oldestFirst.remove(waiting);
        perAddress.computeIfPresent(waiting.from(), (address, count) -> count == 1 ? null : count - 1);
    }
}
