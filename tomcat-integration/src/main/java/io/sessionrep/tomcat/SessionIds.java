package io.sessionrep.tomcat;

/**
 * Tomcat session ids carry the route suffix of the node that owns the session, {@code <id>.<route>} (the
 * {@code jvmRoute} convention sticky load balancers read); the cluster knows a session by its id without
 * the suffix. The route is this node's {@code node-name}, which cannot contain a dot, and Tomcat's
 * generated ids are hex, so the suffix is everything from the first dot (as Tomcat's own
 * {@code JvmRouteBinderValve} reads it).
 */
final class SessionIds {
    private SessionIds() {
    }

    /** {@code 3F2A...9C.node-a} becomes {@code 3F2A...9C}; an id without a suffix is returned as is. */
    static String clusterId(String id) {
        int dot = id.indexOf('.');
        return dot < 0 ? id : id.substring(0, dot);
    }

    /** The id under which {@code route}'s node holds the cluster session {@code clusterId}. */
    static String withRoute(String clusterId, String route) {
        return clusterId + '.' + route;
    }
}
