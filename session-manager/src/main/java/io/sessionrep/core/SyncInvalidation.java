package io.sessionrep.core;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.Message;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;

/**
 * A sync-mode invalidation, which leaves before the request ends as the request's updates do. The nodes that
 * hold a copy of the session (its backups, and former backups not released yet) get it so that this thread sees
 * each handle it ({@link io.sessionrep.core.transport.ReplicationTransport#sendAndAwaitHandled}), at most
 * {@code sync-timeout} in all; the other members, which hold no copy, get it as a plain one-way message. Left
 * behind as one, it would stay in the way: the next update this node sends a backup on a request thread (the next
 * session's first copy, often) is handled there only after every message this node sent it before.
 *
 * <p>A node that has not handled it in time still gets it (the transport delivers it; a second invalidation
 * changes nothing), and for {@link #SLOW_FOR} gets every invalidation as a plain one-way message: expiry invalidates
 * sessions one after the other on one thread, which must not wait {@code sync-timeout} for each while a backup
 * hangs.
 */
final class SyncInvalidation {
    private static final System.Logger LOG = System.getLogger(SyncInvalidation.class.getName());
    static final Duration SLOW_FOR = Duration.ofSeconds(30);

    private final NodeState node;
    /** Members that did not handle an invalidation in time, and until when (System.nanoTime) they get plain one-way ones. */
    private final Map<String, Long> slowUntil = new ConcurrentHashMap<>();

    SyncInvalidation(NodeState node) {
        this.node = node;
    }

    /** The members that hold a copy of the session; read before the primary entry is dropped. */
    Set<String> holders(String sessionId) {
        PrimaryEntry entry = node.primary(sessionId);
        if (entry == null) {
            return Set.of();
        }
        synchronized (entry) {
            Set<String> holders = new HashSet<>(entry.syncedBackups);
            holders.addAll(entry.formerBackups);
            return holders;
        }
    }

    /**
     * Tells every other member that the session is invalidated; returns once {@code holders} handled it, or
     * {@code sync-timeout} after the call, whichever comes first (those not done by then still get it).
     */
    void send(String sessionId, Set<String> holders) {
        byte[] message = node.wire.encode(new Message.Invalidate(sessionId));
        long deadline = System.nanoTime() + node.config.syncTimeout().toNanos();
        for (Member m : node.others()) {
            if (!holders.contains(m.name()) || !sentAwaitingHandling(m, message, deadline)) {
                node.transport.send(m, message);
            }
        }
    }

    /** Sends it and waits for {@code target} to handle it; false, sending nothing, when it is not to be waited for. */
    private boolean sentAwaitingHandling(Member target, byte[] message, long deadline) {
        long now = System.nanoTime();
        Long until = slowUntil.get(target.name());
        if (until != null) {
            if (now - until < 0) {
                return false;
            }
            slowUntil.remove(target.name(), until);
        }
        long leftMillis = (deadline - now) / 1_000_000;
        if (leftMillis < 1) {
            return false;
        }
        try {
            node.transport.sendAndAwaitHandled(target, message, Duration.ofMillis(leftMillis));
        } catch (TimeoutException e) {
            if (slowUntil.put(target.name(), System.nanoTime() + SLOW_FOR.toNanos()) == null) {
                LOG.log(System.Logger.Level.WARNING, "node " + target.name() + " did not handle an invalidation within"
                        + " the " + leftMillis + " ms left of sync-timeout; invalidations go to it without"
                        + " waiting for the next " + SLOW_FOR.toSeconds() + " s");
            }
        }
        return true;
    }
}
