package io.sessionrep.core;

/**
 * What a container integration does for the operator's {@link SessionAdmin} with the sessions its container holds
 * live on this node. Called from an operator's thread (JMX), never from a transport thread.
 */
public interface LiveSessions {

    /**
     * Invalidates the live session with cluster id {@code clusterId} the way the container invalidates a session
     * (its listeners run, and the integration tells the core: {@link SessionReplicator#invalidate}).
     *
     * @return false when the container holds no such session live here (nothing was done)
     */
    boolean invalidate(String clusterId);

    /**
     * Sets ({@code name} non-null) or clears the principal of the live session ({@link SessionPrincipals}).
     *
     * @return false when the container holds no such session live here
     */
    boolean setPrincipal(String clusterId, String name);

    /** The value of attribute {@code name} of the live session, or null (no such session or attribute). */
    Object attribute(String clusterId, String name);

    /** An integration without live sessions of its own (tests of the core). */
    LiveSessions NONE = new LiveSessions() {
        @Override
        public boolean invalidate(String clusterId) {
            return false;
        }

        @Override
        public boolean setPrincipal(String clusterId, String name) {
            return false;
        }

        @Override
        public Object attribute(String clusterId, String name) {
            return null;
        }
    };
}
