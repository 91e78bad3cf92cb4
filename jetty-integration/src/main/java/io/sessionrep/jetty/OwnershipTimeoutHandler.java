package io.sessionrep.jetty;

import io.sessionrep.core.OwnershipTimeoutException;
import io.sessionrep.core.RequestLookups;
import org.eclipse.jetty.http.HttpCookie;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Answers {@code 503 Service Unavailable} (with {@code Retry-After: 1} and
 * {@code X-Sessionrep-Refused: ownership-timeout}) to a request whose session was not handed over to
 * this node within {@code ownership-timeout}. The application did not run. Placed in front of the
 * context's session handler by {@link ReplicatedSessions#install}.
 */
public class OwnershipTimeoutHandler extends Handler.Wrapper {
    private final java.util.function.Supplier<String> cookieName;

    public OwnershipTimeoutHandler() {
        this(() -> "JSESSIONID");
    }

    /**
     * Also opens the session lookups of each request ({@link RequestLookups}) with the ids its cookies named
     * {@code cookieName} carry: the session handler behind this one looks them up in turn, and only a few of
     * them may have the cluster asked about them.
     */
    public OwnershipTimeoutHandler(java.util.function.Supplier<String> cookieName) {
        this.cookieName = cookieName;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        java.util.List<String> named = new java.util.ArrayList<>();
        String name = cookieName.get();
        for (HttpCookie cookie : Request.getCookies(request)) {
            if (cookie.getName().equalsIgnoreCase(name)) {
                named.add(cookie.getValue());
            }
        }
        try (RequestLookups lookups = RequestLookups.open(named)) {
            return super.handle(request, response, callback);
        } catch (HandOverTimeout refused) {
            if (response.isCommitted()) {
                throw refused;
            }
            response.setStatus(OwnershipTimeoutException.STATUS);
            response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
            response.getHeaders().put(OwnershipTimeoutException.HEADER, OwnershipTimeoutException.REASON);
            Response.writeError(request, response, callback, OwnershipTimeoutException.STATUS, "ownership-timeout");
            return true;
        }
    }
}
