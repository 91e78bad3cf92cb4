package io.sessionrep.tomcat;

import io.sessionrep.core.OwnershipTimeoutException;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
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
 *   <li>Before the application (not for async dispatches): a session id with another node's route is taken
 *       over and the cookie rewritten ({@link ReplicatedSessionManager#enterRequestedSession}); when the session's owner does not hand it over within ownership-timeout, the request is answered 503 and the application does not run.</li>
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
    private static final String ENTERED_NOTE = ReplicationValve.class.getName() + ".entered";

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
        if (!request.isAsyncDispatching()) {
            String entered;
            try {
                entered = manager.enterRequestedSession(request);
            } catch (OwnershipTimeoutException e) {
                // the session's owner did not hand it over in time: refuse, without running the application
                response.setHeader("Retry-After", "1");
                response.setHeader(OwnershipTimeoutException.HEADER, OwnershipTimeoutException.REASON);
                response.sendError(OwnershipTimeoutException.STATUS);
                return;
            }
            if (entered != null) {
                request.setNote(ENTERED_NOTE, entered);
            }
        }
        Request outer = manager.runInValve(request);
        try {
            getNext().invoke(request, response);
        } finally {
            manager.runInValve(outer);
            afterDispatch(request);
        }
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
            exit(request, ENTERED_NOTE); // after its replication: a waiting hand-over may go now
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
