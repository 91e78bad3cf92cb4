package io.sessionrep.boot;

import io.sessionrep.core.ClusterAnswer;
import io.sessionrep.core.SessionAdmin;
import io.sessionrep.core.SessionRow;
import org.springframework.security.core.AuthenticatedPrincipal;
import org.springframework.security.core.session.SessionInformation;
import org.springframework.security.core.session.SessionRegistry;
import org.springframework.security.core.userdetails.UserDetails;

import java.security.Principal;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Spring Security's {@link SessionRegistry} over the whole cluster, so that concurrent-session control
 * ({@code sessionManagement().maximumSessions(n)}) counts a user's sessions on every node: a log-in on node B expires
 * the user's oldest session on node A. The starter defines it as the application's {@code SessionRegistry} bean, which
 * Spring Security's session management picks up.
 *
 * <ul>
 *   <li>{@link #registerNewSession}: records the principal's name in the session (the node's session index,
 *       replicated with the session), at log-in on the node that serves it.</li>
 *   <li>{@link #getAllSessions}: asks every member for the sessions of that name (the operators' cluster query, one
 *       round trip to each member at log-in, not on other requests).</li>
 *   <li>{@link SessionInformation#expireNow} of such a session invalidates it everywhere (a tombstone on every
 *       member): its next request, on any node, has no session and signs in again. Spring Security's in-memory
 *       registry only marks the session for its {@code ConcurrentSessionFilter}; here the session itself ends.</li>
 *   <li>{@link #getSessionInformation}, which that filter calls on every request, answers null without asking
 *       anyone (an expired session no longer exists), and {@link #refreshLastRequest} does nothing: the last
 *       access time is the session's own, replicated with it.</li>
 * </ul>
 * A principal is named by {@link UserDetails#getUsername}, {@link AuthenticatedPrincipal#getName},
 * {@link Principal#getName} or its string form. Members of an older release, which cannot answer the query, are left
 * out of the count.
 */
public final class ClusterSessionRegistry implements SessionRegistry {
    private final LocalNode node;

    public ClusterSessionRegistry(LocalNode node) {
        this.node = node;
    }

    @Override
    public List<Object> getAllPrincipals() {
        Set<Object> names = new LinkedHashSet<>();
        node.admin().ifPresent(admin -> {
            for (SessionRow row : admin.list(0, io.sessionrep.core.wire.Message.AdminQuery.MAX_ROWS).result()) {
                if (row.principal() != null) {
                    names.add(row.principal());
                }
            }
        });
        return new ArrayList<>(names);
    }

    @Override
    public List<SessionInformation> getAllSessions(Object principal, boolean includeExpiredSessions) {
        SessionAdmin admin = node.admin().orElse(null);
        if (admin == null || principal == null) {
            return List.of();
        }
        ClusterAnswer<List<SessionAdmin.PrincipalSession>> found = admin.sessionsOfPrincipal(nameOf(principal));
        List<SessionInformation> sessions = new ArrayList<>(); // mutable: Spring Security sorts it
        for (SessionAdmin.PrincipalSession session : found.result()) {
            sessions.add(new ClusterSessionInformation(principal, session, admin));
        }
        return sessions;
    }

    @Override
    public SessionInformation getSessionInformation(String sessionId) {
        return null; // every request asks: no cluster work here, and an expired session no longer exists
    }

    @Override
    public void refreshLastRequest(String sessionId) {
        // the session's own last access time, replicated with it
    }

    @Override
    public void registerNewSession(String sessionId, Object principal) {
        node.admin().ifPresent(admin -> admin.setPrincipal(sessionId, principal == null ? null : nameOf(principal)));
    }

    @Override
    public void removeSessionInformation(String sessionId) {
        // the session's end removes it, with its principal, from every node
    }

    /** The name a principal is indexed under. */
    static String nameOf(Object principal) {
        if (principal instanceof UserDetails user) {
            return user.getUsername();
        }
        if (principal instanceof AuthenticatedPrincipal authenticated) {
            return authenticated.getName();
        }
        if (principal instanceof Principal named) {
            return named.getName();
        }
        return String.valueOf(principal);
    }

    /** A session of the cluster; expiring it invalidates it on every node. */
    private static final class ClusterSessionInformation extends SessionInformation {
        private final transient SessionAdmin admin;

        ClusterSessionInformation(Object principal, SessionAdmin.PrincipalSession session, SessionAdmin admin) {
            super(principal, session.sessionId(), new Date(session.lastAccessedTime()));
            this.admin = admin;
        }

        @Override
        public void expireNow() {
            super.expireNow();
            admin.invalidate(getSessionId());
        }
    }
}
