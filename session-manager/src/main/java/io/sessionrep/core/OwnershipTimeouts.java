package io.sessionrep.core;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Requests refused because their session could not be had within {@code ownership-timeout}: its owner did
 * not hand it over ({@link Acquisition}), or a member did not say which copy it holds ({@link TakeOver}).
 * Each refusal is counted and becomes the {@link OwnershipTimeoutException} the integrations answer with
 * 503; the first of each session is logged, for a bounded number of sessions.
 */
final class OwnershipTimeouts {
    private static final System.Logger LOG = System.getLogger(OwnershipTimeouts.class.getName());
    private static final int MAX_LOGGED = 10_000;

    private final NodeState node;
    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    OwnershipTimeouts(NodeState node) {
        this.node = node;
    }

    /** {@code what}: what did not happen in time, e.g. "was not handed over to node-b". */
    OwnershipTimeoutException refuse(String sessionId, String what, String why) {
        node.metrics.ownershipTimeouts.increment();
        String message = "session " + LogIds.shortForm(sessionId) + " " + what + " within ownership-timeout "
                + node.config.ownershipTimeout().toMillis() + "ms (" + why + "); the request is refused with 503";
        if (logged.size() < MAX_LOGGED && logged.add(sessionId)) {
            LOG.log(System.Logger.Level.WARNING, message + " (logged once per session, counted in sessionrep.ownership.timeouts)");
        }
        return new OwnershipTimeoutException(message);
    }
}
