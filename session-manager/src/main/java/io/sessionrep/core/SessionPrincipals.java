package io.sessionrep.core;

import jakarta.servlet.http.HttpSession;

/**
 * Which principal a session belongs to: the name is kept in the session itself, as the attribute {@link #ATTRIBUTE}
 * (a {@code String}), so that it travels with every copy to the session's backups, survives a fail-over and a
 * hand-over, and needs no change of the wire protocol (a node of an older release holds it as any attribute). The
 * operator's look-ups ({@link SessionAdmin}) read it where the session is held.
 *
 * <p>Sources: the Tomcat manager, the Jetty integration and the servlet filter record the container's authenticated
 * principal at request end ({@code request.getUserPrincipal()}, on Tomcat else the session's own principal). An
 * application
 * or a framework integration (a Spring Security {@code SessionRegistry}, say) sets or clears it with {@link #set} and
 * {@link #clear} on the session, or by id with {@link SessionAdmin#setPrincipal}.
 *
 * <p>Cost: a request whose principal is the one recorded compares two strings (usually one reference: the
 * container hands out the name it holds) and allocates nothing; only a change writes the attribute, which is then
 * replicated as an attribute change.
 *
 * <p>Memory per session whose principal is known (name of 8 characters, one backup; heap histogram of 2 x 10,000
 * sessions in {@code SessionAdminScaleTest}): about 300 bytes in the cluster, of which the live session's map entry
 * (32 to 40 bytes: the name string is the principal's own), the primary's digest of the attribute (64 bytes) and, on
 * each backup, the copy's entry with its own attribute name and the serialized value (about 135 bytes). A session
 * without a principal costs nothing.
 */
public final class SessionPrincipals {
    /** The attribute that holds the principal's name. */
    public static final String ATTRIBUTE = "io.sessionrep.principal";

    private SessionPrincipals() {
    }

    /**
     * Records {@code name} as the principal of {@code session} when it is not the recorded one already; a null name
     * (an anonymous request) changes nothing. Call at request end, on the request thread.
     */
    public static void record(HttpSession session, String name) {
        if (name != null && !name.equals(session.getAttribute(ATTRIBUTE))) {
            session.setAttribute(ATTRIBUTE, name);
        }
    }

    /** Sets the principal of {@code session} (null clears it). No change when it is that one already. */
    public static void set(HttpSession session, String name) {
        if (name == null) {
            clear(session);
        } else {
            record(session, name);
        }
    }

    /** Clears the principal of {@code session} (a log-out that keeps the session). */
    public static void clear(HttpSession session) {
        if (session.getAttribute(ATTRIBUTE) != null) {
            session.removeAttribute(ATTRIBUTE);
        }
    }

    /** Whether {@code name} differs from the {@code recorded} value: true only for a non-null name not equal to it. */
    public static boolean changes(String name, Object recorded) {
        return name != null && !name.equals(recorded);
    }

    /** The recorded name in a value read from the attribute, or null. */
    static String nameIn(Object recorded) {
        return recorded instanceof String name && !name.isEmpty() ? name : null;
    }
}
