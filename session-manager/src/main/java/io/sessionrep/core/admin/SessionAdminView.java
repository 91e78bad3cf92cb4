package io.sessionrep.core.admin;

import io.sessionrep.core.ClusterAnswer;
import io.sessionrep.core.SessionAdmin;
import io.sessionrep.core.SessionRow;

import java.util.List;
import java.util.function.Supplier;

/**
 * {@link SessionAdminMBean} over a node's {@link SessionAdmin}: the one MBean class every integration registers (and
 * Tomcat's manager delegates to). Each operation asks for the running admin; while the node is stopped it fails with
 * "not started".
 */
public final class SessionAdminView implements SessionAdminMBean {
    /** The most rows a listing shows. */
    static final int MAX_ROWS = 1000;

    private final Supplier<SessionAdmin> admin;

    /** @param admin the running node's admin, or null while it is not running */
    public SessionAdminView(Supplier<SessionAdmin> admin) {
        this.admin = admin;
    }

    private SessionAdmin admin() {
        SessionAdmin running = admin.get();
        if (running == null) {
            throw new IllegalStateException("not started");
        }
        return running;
    }

    @Override
    public int getActiveSessions() {
        SessionAdmin running = admin.get();
        return running == null ? 0 : running.localCount();
    }

    @Override
    public String listSessionIds() {
        return String.join(" ", admin().localShortIds(MAX_ROWS));
    }

    @Override
    public String getSessionAttribute(String sessionId, String key) {
        Object value = admin().attribute(sessionId, key);
        return value == null ? null : value.toString();
    }

    @Override
    public void expireSession(String sessionId) {
        admin().invalidate(sessionId);
    }

    @Override
    public String countClusterSessions() {
        ClusterAnswer<Integer> answer = admin().count();
        return answer.result() + " sessions; " + answer.coverage();
    }

    @Override
    public String listClusterSessions(int offset, int limit) {
        return rows(admin().list(offset, limit));
    }

    @Override
    public String findSessionsOfPrincipal(String principal) {
        return rows(admin().sessionsOf(principal, MAX_ROWS));
    }

    @Override
    public String expireClusterSession(String sessionId) {
        ClusterAnswer<Integer> answer = admin().invalidate(sessionId);
        return answer.result() + " session(s) invalidated; " + answer.coverage();
    }

    @Override
    public String expireSessionsOfPrincipal(String principal) {
        ClusterAnswer<Integer> answer = admin().invalidateSessionsOf(principal);
        return answer.result() + " session(s) invalidated; " + answer.coverage();
    }

    /** One row a line, then the coverage. */
    static String rows(ClusterAnswer<List<SessionRow>> answer) {
        StringBuilder text = new StringBuilder();
        for (SessionRow row : answer.result()) {
            text.append(row).append('\n');
        }
        return text.append(answer.result().size()).append(" session(s); ").append(answer.coverage()).toString();
    }
}
