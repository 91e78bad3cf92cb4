package io.sessionrep.tomcat;

import io.sessionrep.core.OwnershipTimeoutException;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.ServletException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;
import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;

import java.io.IOException;

/**
 * The request-end hook of {@link ReplicatedSessionManager}, which adds it to its context's pipeline when
 * the context starts, ahead of the authenticator (users never configure it). A context's pipeline runs once
 * per request: forwards, includes and
 * error pages are dispatched inside it, so they are part of the request that contains them. It runs again
 * for each {@code AsyncContext.dispatch()}, which this valve tells apart:
 * <ul>
 *   <li>Before the application (not for async dispatches): notes whether {@code ignored-paths} matches the
 *       request. Nothing else: the request takes part in the session's ownership only when the session is
 *       first looked up by the application (its first {@code getSession}), which this valve's manager sees in
 *       {@link ReplicatedSessionManager#findSession}: there a session held by another node is handed over and
 *       the cookie's route rewritten. The authenticator's lookups before the application take part only when
 *       this node owns the session, or when it creates a session for the request (a login).</li>
 *   <li>When that lookup times out (the owner did not hand the session over within ownership-timeout), the
 *       request is answered 503 with {@code Retry-After: 1}: the exception goes up through the application
 *       (which may have run up to its {@code getSession}), and this valve replaces Tomcat's 500 by the 503,
 *       unless the response is committed by then.</li>
 *   <li>During it: a session the application creates is entered in the core at once
 *       ({@link ReplicatedSessionManager#createSession}).</li>
 *   <li>After it: the session the request used is replicated, once. For a request that went async it is
 *       replicated when the async cycle completes ({@link AsyncListener#onComplete}), not after each
 *       dispatch.</li>
 * </ul>
 * In {@code sync} mode the request thread waits here for the backup's acknowledgement, before Tomcat
 * finishes the response (unless the application committed all of it itself, e.g. with
 * {@code flushBuffer()}). An async request's {@code onComplete} comes after Tomcat finished its response,
 * so there the client may see the response just before the backup holds the update.
 */
final class ReplicationValve extends ValveBase {
    private static final Log log = LogFactory.getLog(ReplicationValve.class);
    private static final String ASYNC_NOTE = ReplicationValve.class.getName() + ".async";

    private final ReplicatedSessionManager manager;

    ReplicationValve(ReplicatedSessionManager manager) {
        super(true); // async supported: a valve that is not would forbid startAsync in the whole context
        this.manager = manager;
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        try (io.sessionrep.core.RequestLookups lookups = manager.openLookups(request)) {
            invokeWithLookups(request, response);
        }
    }

    private void invokeWithLookups(Request request, Response response) throws IOException, ServletException {
        Request outer = manager.runInValve(request);
        try {
            if (!request.isAsyncDispatching()) {
                manager.noteIgnored(request);
                manager.enterIfLookedUpAhead(request);
            }
            getNext().invoke(request, response);
        } catch (OwnershipTimeoutException e) {
            // a valve behind this one (the authenticator) looked the session up, and its owner did not hand it
            // over in time: nothing of the application ran
            refuse(request, response, e);
        } finally {
            manager.runInValve(outer);
            afterDispatch(request);
        }
        if (request.getNote(ReplicatedSessionManager.TIMED_OUT_NOTE) != null) {
            // the application looked the session up, and the lookup timed out: the exception went up through the
            // application to Tomcat's wrapper valve, which made it a 500; it is a 503 with Retry-After instead
            request.removeNote(ReplicatedSessionManager.TIMED_OUT_NOTE);
            request.removeAttribute(RequestDispatcher.ERROR_EXCEPTION);
            refuse(request, response, null);
        }
    }

    /** Answers 503 with Retry-After, unless the response is committed already (then it stays as it is). */
    private static void refuse(Request request, Response response, OwnershipTimeoutException e) throws IOException {
        request.removeNote(ReplicatedSessionManager.TIMED_OUT_NOTE);
        if (response.isCommitted()) {
            log.warn("Session of " + request.getRequestURI() + " not handed over within ownership-timeout, after the"
                    + " response was committed: it cannot be answered 503 any more");
            if (e != null) {
                throw e;
            }
            return;
        }
        response.reset();
        response.setHeader("Retry-After", "1");
        response.setHeader(OwnershipTimeoutException.HEADER, OwnershipTimeoutException.REASON);
        response.sendError(OwnershipTimeoutException.STATUS);
    }

    private void afterDispatch(Request request) {
        if (request.getNote(ASYNC_NOTE) != null) {
            return; // replicated by the listener when the async cycle completes
        }
        if (request.isAsync()) {
            request.setNote(ASYNC_NOTE, Boolean.TRUE);
            request.getAsyncContextInternal().addListener(new Completion(request));
            return;
        }
        replicate(request);
    }

    private void replicate(Request request) {
        try {
            manager.requestCompleted(request);
        } catch (RuntimeException e) {
            // never fail a request because of its replication (the core already counts its own failures)
            log.warn("Replication of the session of " + request.getRequestURI() + " failed", e);
        } finally {
            exit(request, ReplicatedSessionManager.ENTERED_NOTE); // after its replication: a waiting hand-over may go now
            exit(request, ReplicatedSessionManager.CREATED_NOTE);
        }
    }

    /** Exits the session the note names (entered for this request), once. */
    private void exit(Request request, String note) {
        if (request.getNote(note) instanceof String clusterId) {
            request.removeNote(note);
            manager.exitSession(clusterId);
        }
    }

    private final class Completion implements AsyncListener {
        private final Request request;

        Completion(Request request) {
            this.request = request;
        }

        @Override
        public void onComplete(AsyncEvent event) {
            replicate(request);
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
            // a new async cycle of the same request: this listener must hear its completion too
            event.getAsyncContext().addListener(this);
        }
    }
}
