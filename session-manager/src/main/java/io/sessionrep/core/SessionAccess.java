package io.sessionrep.core;

/** What {@link SessionReplicator#enter} answers for a session the container holds live. */
public enum SessionAccess {
    /** This node owns the session: the request uses the live copy (and must call exit when done). */
    OWNED,
    /**
     * Another node owns the session now: drop the live copy WITHOUT invalidating it, then call
     * {@link SessionReplicator#acquire} to bring the newest state here. Not counted: no exit.
     */
    MOVED,
    /**
     * The session is promised to another node, and other requests here still use the live copy: their
     * changes are replicated when they end, and the copy is then dropped by
     * {@link SessionEvents#ownershipLost}. Do NOT drop it now; call {@link SessionReplicator#acquire}, which
     * brings the session back after the other node's request. Not counted: no exit.
     */
    PROMISED
}
