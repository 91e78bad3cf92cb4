package io.sessionrep.core;

/**
 * Requests refused because their session could not be had within {@code ownership-timeout}: its owner did
 * not hand it over ({@link Acquisition}), or a member did not say which copy it holds ({@link TakeOver}).
 * Each refusal is counted and becomes the {@link OwnershipTimeoutException} the integrations answer with
 * 503; the first of each session is logged, for a bounded number of sessions, then one a minute.
 */
final class OwnershipTimeouts {
    private static final System.Logger LOG = System.getLogger(OwnershipTimeouts.class.getName());
    private final NodeState node;
    /** Once per session for 10,000 sessions, then one a minute: ids come from clients (any cookie). */
    private final ReportOnce logged = new ReportOnce(10_000, java.time.Duration.ofMinutes(1));

    OwnershipTimeouts(NodeState node) {
        this.node = node;
    }

    /** {@code what}: what did not happen in time, e.g. "was not handed over to node-b". */
    OwnershipTimeoutException refuse(String sessionId, String what, String why) {
        node.metrics.ownershipTimeouts.increment();
        String message = "session " + LogIds.shortForm(sessionId) + " " + what + " within ownership-timeout "
                + node.config.ownershipTimeout().toMillis() + "ms (" + why + "); the request is refused with 503";
        if (logged.firstTime(sessionId)) {
            LOG.log(System.Logger.Level.WARNING, message + " (logged once per session, counted in sessionrep.ownership.timeouts)");
        }
        return new OwnershipTimeoutException(message);
    }
}
