package io.sessionrep.core;

/**
 * Callbacks from the core to the container integration about sessions that the container holds live.
 * Called from transport threads; implementations must only evict, never call back into the cluster.
 */
public interface SessionEvents {
    /**
     * Another node became primary of this session (fail-over). Drop the live copy here WITHOUT
     * invalidating it: the session lives on elsewhere. The next request here takes it over again. Not
     * called when this node owns the session again by the time of the call (the live copy is then the new
     * one); an integration that looks the live copy up by id later still races with such a take-back, so
     * a copy found stale by a request ({@link SessionAccess#MOVED}) is best dropped by identity.
     */
    void ownershipLost(String sessionId);

    /** The session was invalidated or expired on another node. Drop the live copy here silently. */
    void invalidatedElsewhere(String sessionId);

    SessionEvents NONE = new SessionEvents() {
        @Override
        public void ownershipLost(String sessionId) {
        }

        @Override
        public void invalidatedElsewhere(String sessionId) {
        }
    };
}
