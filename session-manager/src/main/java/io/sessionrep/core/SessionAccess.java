package io.sessionrep.core;

/** What {@link SessionReplicator#enter} answers for a session the container holds live. */
public enum SessionAccess {
    /** This node owns the session: the request uses the live copy (and must call exit when done). */
    OWNED,
    /**
     * Another node owns the session now (it was handed over, or a hand-over is under way): drop the live
     * copy WITHOUT invalidating it, then call {@link SessionReplicator#acquire} to bring the newest state
     * here. Not counted: no exit.
     */
    MOVED
}
