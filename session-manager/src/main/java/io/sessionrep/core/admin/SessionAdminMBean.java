package io.sessionrep.core.admin;

/**
 * The operator's session operations over JMX, the same on every install: the MBean
 * {@code sessionrep:cluster=<cluster-name>,context=<context path>,node=<node-name>,type=sessions} (Jetty module,
 * servlet filter and Tomcat alike), and on Tomcat also the operations of the manager's own MBean
 * ({@code Catalina:type=Manager,...}) under these names. Names that Tomcat's {@code ManagerBase} has mean what they
 * mean there, except that ids are listed in their short form ({@code #1a2b3c4d}, never a whole id) and accepted in
 * either form; the {@code Cluster} ones ask every member ({@link io.sessionrep.core.SessionAdmin}) and end with the
 * members that answered and those that did not.
 */
public interface SessionAdminMBean {

    /** Attribute {@code ActiveSessions}: how many sessions this node owns. */
    int getActiveSessions();

    /** The short forms of the sessions this node owns, newest access first, separated by spaces (at most 1000). */
    String listSessionIds();

    /** The value of attribute {@code key} of a session this node holds live ({@code toString}), or null. */
    String getSessionAttribute(String sessionId, String key);

    /** Invalidates the session (short form or whole id) everywhere in the cluster. */
    void expireSession(String sessionId);

    /** How many sessions the cluster holds, and which members answered. */
    String countClusterSessions();

    /** The cluster's sessions, newest access first, one row a line: {@code limit} from {@code offset}. */
    String listClusterSessions(int offset, int limit);

    /** The sessions of a principal in the whole cluster, one row a line (at most 1000). */
    String findSessionsOfPrincipal(String principal);

    /** Invalidates a session (short form or whole id) everywhere; says how many and which members answered. */
    String expireClusterSession(String sessionId);

    /** Invalidates every session of a principal everywhere; says how many and which members answered. */
    String expireSessionsOfPrincipal(String principal);
}
