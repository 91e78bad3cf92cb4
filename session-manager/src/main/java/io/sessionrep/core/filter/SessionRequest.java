package io.sessionrep.core.filter;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpSession;

/**
 * The request the application sees behind {@link ReplicationFilter}: every session method answers from
 * the filter's replicated sessions (cookie {@code cookie-name}), never from the container's. Session ids
 * travel only in the cookie: {@link #isRequestedSessionIdFromURL()} is always false.
 */
final class SessionRequest extends HttpServletRequestWrapper {
    private final RequestScope scope;

    SessionRequest(HttpServletRequest request, RequestScope scope) {
        super(request);
        this.scope = scope;
    }

    @Override
    public HttpSession getSession(boolean create) {
        return scope.session(create);
    }

    @Override
    public HttpSession getSession() {
        return scope.session(true);
    }

    @Override
    public String changeSessionId() {
        return scope.changeSessionId();
    }

    @Override
    public String getRequestedSessionId() {
        return scope.requestedSessionId();
    }

    @Override
    public boolean isRequestedSessionIdValid() {
        return scope.requestedSessionIdValid();
    }

    @Override
    public boolean isRequestedSessionIdFromCookie() {
        return scope.requestedSessionId() != null;
    }

    @Override
    public boolean isRequestedSessionIdFromURL() {
        return false;
    }

    /** Async with this wrapper in the context (so later dispatches keep seeing replicated sessions). */
    @Override
    public AsyncContext startAsync() {
        AsyncContext context = getRequest().startAsync(this, scope.response());
        scope.asyncStarted(context);
        return context;
    }

    @Override
    public AsyncContext startAsync(ServletRequest request, ServletResponse response) {
        AsyncContext context = getRequest().startAsync(request, response);
        scope.asyncStarted(context);
        return context;
    }
}
