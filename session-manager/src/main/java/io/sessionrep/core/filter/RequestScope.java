package io.sessionrep.core.filter;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.SessionCookieConfig;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What one HTTP exchange did with sessions: the session the client asked for (resolved lazily, on the first
 * {@code getSession} call), the sessions it used, and the one end of the exchange: when the outermost
 * dispatch returns, or, if the request went asynchronous, when the async cycle completes
 * ({@link AsyncListener#onComplete}). Forwards, includes, error and async dispatches share the scope (a
 * request attribute), so they never end it.
 */
final class RequestScope implements AsyncListener {
    static final String ATTRIBUTE = RequestScope.class.getName();

    private final HttpServletRequest request;
    private final HttpServletResponse response;
    private final FilterSessionManager sessions;
    private final String cookieName;
    private final List<ReplicatedHttpSession> used = new ArrayList<>();
    private final AtomicBoolean ended = new AtomicBoolean();
    private boolean requestedResolved;
    private String requestedId;
    private ReplicatedHttpSession requested;
    private ReplicatedHttpSession current;
    private volatile boolean async;
    /** Whether the requested session's lookup timed out waiting for its hand-over (the filter answers 503). */
    private volatile boolean timedOut;

    RequestScope(HttpServletRequest request, HttpServletResponse response, FilterSessionManager sessions,
                 String cookieName) {
        this.request = request;
        this.response = response;
        this.sessions = sessions;
        this.cookieName = cookieName;
    }

    /** The request's path inside the context, decoded: servlet path and path info. */
    private static String pathInContext(HttpServletRequest request) {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        return servletPath == null ? pathInfo : pathInfo == null ? servletPath : servletPath + pathInfo;
    }

    /** Whether the lookup of the requested session timed out waiting for its owner to hand it over. */
    boolean timedOut() {
        return timedOut;
    }

    HttpServletResponse response() {
        return response;
    }

    synchronized HttpSession session(boolean create) {
        if (current != null && current.isValid()) {
            return current;
        }
        resolveRequested();
        if (requested != null && requested.isValid() && current == null) {
            current = requested;
            return current;
        }
        if (!create) {
            return null;
        }
        if (response.isCommitted()) {
            throw new IllegalStateException("cannot create a session after the response has been committed");
        }
        current = sessions.create();
        use(current);
        writeCookie(current);
        return current;
    }

    /** The cookie value the client sent (the first of our cookies that names a session, else the first). */
    synchronized String requestedSessionId() {
        resolveRequested();
        return requestedId;
    }

    synchronized boolean requestedSessionIdValid() {
        resolveRequested();
        return requested != null && requested.isValid();
    }

    synchronized String changeSessionId() {
        HttpSession session = session(false);
        if (!(session instanceof ReplicatedHttpSession replicated)) {
            throw new IllegalStateException("changeSessionId: the request has no session");
        }
        String newId = sessions.changeId(replicated);
        writeCookie(replicated);
        return newId;
    }

    /**
     * Finds the session the client names (its cookie), bringing it here from its owner if needed: on the first
     * call that needs it ({@code getSession}, {@code isRequestedSessionIdValid}, ...), so that a request that never
     * asks neither waits for nor moves its session. A request that {@code ignored-paths} matches only gets the
     * live copy held here, if any: it is not entered, and not replicated at the end of the request.
     *
     * @throws io.sessionrep.core.OwnershipTimeoutException when its owner did not hand it over in time
     */
    synchronized void resolveRequested() {
        try {
            resolveNamed();
        } catch (io.sessionrep.core.OwnershipTimeoutException e) {
            timedOut = true;
            throw e;
        }
    }

    private void resolveNamed() {
        if (requestedResolved) {
            return;
        }
        requestedResolved = true;
        Cookie[] cookies = request.getCookies();
        if (cookies == null) {
            return;
        }
        List<String> named = new ArrayList<>();
        for (Cookie cookie : cookies) {
            if (cookieName.equals(cookie.getName())) {
                named.add(cookie.getValue());
            }
        }
        // worked out here, not per request: a request that never asks for its session pays no match
        boolean ignored = !named.isEmpty() && sessions.ignores(pathInContext(request));
        // the ids of this request: at most a few of them are looked up in the cluster, in the order named
        try (io.sessionrep.core.RequestLookups lookups = io.sessionrep.core.RequestLookups.open(named)) {
            for (String value : named) {
                if (requestedId == null) {
                    requestedId = value;
                }
                if (value == null) {
                    continue;
                }
                String clusterId = SessionIds.clusterId(value);
                if (ignored) {
                    ReplicatedHttpSession copy = sessions.liveCopy(clusterId);
                    if (copy != null) {
                        requestedId = value;
                        requested = copy;
                        return; // not used: neither entered nor replicated by this request
                    }
                    continue;
                }
                ReplicatedHttpSession found = sessions.find(value,
                        clusterId != null ? clusterId : io.sessionrep.core.ReplicationNode.clusterId(value));
                if (found != null) {
                    requestedId = value;
                    requested = found;
                    use(found);
                    if (!value.equals(sessions.cookieValue(found))) {
                        writeCookie(found); // taken over from another node: the route names this one now
                    }
                    return;
                }
            }
        }
    }

    /**
     * Counts {@code session} as used by this exchange. After the exchange ended (an error page dispatched by
     * the container after the filter returned) the session is replicated and released at once: what such a
     * late dispatch changes afterwards waits for the session's next request.
     */
    private void use(ReplicatedHttpSession session) {
        if (ended.get()) {
            sessions.requestEnd(session);
        } else {
            used.add(session);
        }
    }

    private void writeCookie(ReplicatedHttpSession session) {
        if (response.isCommitted()) {
            return; // too late to tell the client; the next request re-routes it again
        }
        Cookie cookie = new Cookie(cookieName, sessions.cookieValue(session));
        // the application's <session-config><cookie-config> applies to our cookie too (none: defaults)
        SessionCookieConfig config = request.getServletContext().getSessionCookieConfig();
        String path = config == null ? null : config.getPath();
        if (path == null || path.isEmpty()) {
            String contextPath = request.getContextPath();
            path = contextPath == null || contextPath.isEmpty() ? "/" : contextPath;
        }
        cookie.setPath(path);
        cookie.setHttpOnly(true);
        cookie.setSecure(request.isSecure() || config != null && config.isSecure());
        if (config != null) {
            if (config.getDomain() != null) {
                cookie.setDomain(config.getDomain());
            }
            cookie.setMaxAge(config.getMaxAge());
            String sameSite = config.getAttribute("SameSite");
            if (sameSite != null) {
                cookie.setAttribute("SameSite", sameSite);
            }
        }
        response.addCookie(cookie);
    }

    // ------------------------------------------------------------------ end of the exchange

    /** The request went asynchronous: end when the async cycle completes (registered once). */
    void asyncStarted(AsyncContext context) {
        if (!async) {
            async = true;
            context.addListener(this, request, response);
        }
    }

    boolean isAsync() {
        return async;
    }

    /** Replicates every session the exchange used; once. */
    void end() {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        List<ReplicatedHttpSession> sessionsUsed;
        synchronized (this) {
            sessionsUsed = List.copyOf(used);
            used.clear();
        }
        java.security.Principal principal = sessionsUsed.isEmpty() ? null : request.getUserPrincipal();
        for (ReplicatedHttpSession session : sessionsUsed) {
            if (principal != null) {
                recordPrincipal(session, principal.getName());
            }
            sessions.requestEnd(session);
        }
    }

    /**
     * The container's authenticated principal, recorded in the session when it is not the recorded one
     * ({@link io.sessionrep.core.SessionPrincipals}): a string comparison, no allocation, when unchanged.
     */
    private static void recordPrincipal(ReplicatedHttpSession session, String name) {
        if (io.sessionrep.core.SessionPrincipals.changes(name, session.attribute(io.sessionrep.core.SessionPrincipals.ATTRIBUTE))) {
            try {
                session.setAttribute(io.sessionrep.core.SessionPrincipals.ATTRIBUTE, name);
            } catch (IllegalStateException e) {
                // invalidated by the request: nothing to record
            }
        }
    }

    @Override
    public void onComplete(AsyncEvent event) {
        end();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        // onComplete follows
    }

    @Override
    public void onError(AsyncEvent event) {
        // onComplete follows
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        // the request went asynchronous again: listeners must register again to hear the new cycle end
        event.getAsyncContext().addListener(this, request, response);
    }
}
