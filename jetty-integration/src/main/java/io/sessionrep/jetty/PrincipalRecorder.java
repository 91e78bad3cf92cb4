package io.sessionrep.jetty;

import io.sessionrep.core.SessionPrincipals;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.session.ManagedSession;
import org.eclipse.jetty.session.SessionManager;
import org.eclipse.jetty.util.Callback;

import java.security.Principal;

/**
 * Records the request's authenticated user ({@link Request#getAuthenticationState}, what the servlet API's
 * {@code getUserPrincipal()} answers) as the principal of the request's session ({@link SessionPrincipals}) when the
 * request ends, before Jetty releases the session: the change then replicates with the session's release, as any
 * attribute change. Placed in front of the context's session handler by {@link ReplicatedContext#install}.
 *
 * <p>Cost: one callback wrapper a request; a request without a session or a user reads one request attribute, a
 * request whose user is the recorded one compares two strings; only a change writes the attribute. The wrapper cannot
 * be left out for requests without a session or user: neither is known when the request enters (the servlet may
 * create the session or log the user in), and Jetty's only request-end hook limited to a session, the session
 * manager's own stream wrapper, is not open to a handler (Jetty's session handler itself adds that wrapper to every
 * request).
 */
final class PrincipalRecorder extends Handler.Wrapper {
    private final SessionManager sessions;

    PrincipalRecorder(SessionManager sessions) {
        this.sessions = sessions;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        return super.handle(request, response, new Callback.Nested(callback) {
            @Override
            public void succeeded() {
                record(request);
                super.succeeded();
            }
        });
    }

    private void record(Request request) {
        try {
            Request.AuthenticationState state = Request.getAuthenticationState(request);
            Principal user = state == null ? null : state.getUserPrincipal();
            if (user == null) {
                return;
            }
            ManagedSession session = sessions.getManagedSession(request);
            if (session == null || !session.isValid()) {
                return;
            }
            String name = user.getName();
            if (SessionPrincipals.changes(name, session.getAttribute(SessionPrincipals.ATTRIBUTE))) {
                // in the context's scope: the application's attribute listeners see the change
                request.getContext().run(() -> session.setAttribute(SessionPrincipals.ATTRIBUTE, name));
            }
        } catch (IllegalStateException invalidated) {
            // invalidated meanwhile by the request or the cluster: nothing to record
        }
    }
}
