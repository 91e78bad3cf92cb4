package io.sessionrep.jetty;

import io.sessionrep.core.OwnershipTimeoutException;
import io.sessionrep.core.config.IgnoredPaths;
import io.sessionrep.core.RequestLookups;
import org.eclipse.jetty.http.HttpCookie;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Answers {@code 503 Service Unavailable} (with {@code Retry-After: 1} and
 * {@code X-Sessionrep-Refused: ownership-timeout}) to a request whose session was not handed over to
 * this node within {@code ownership-timeout}. The application did not run. Placed in front of the
 * context's session handler by {@link ReplicatedSessions#install}.
 */
public class OwnershipTimeoutHandler extends Handler.Wrapper {
    private final Supplier<String> cookieName;
    private final IgnoredPaths ignoredPaths;

    public OwnershipTimeoutHandler() {
        this(() -> "JSESSIONID", IgnoredPaths.NONE);
    }

    /**
     * Also opens the session lookups of each request ({@link RequestLookups}) with the ids its cookies named
     * {@code cookieName} carry: the session handler behind this one looks them up in turn, and only a few of
     * them may have the cluster asked about them. A request without such a cookie opens none (nothing to limit:
     * at most the one id of its URL). A request with such a cookie whose path inside the context
     * {@code ignoredPaths} matches gets no session from the session handler: it neither waits for nor moves it.
     */
    public OwnershipTimeoutHandler(Supplier<String> cookieName, IgnoredPaths ignoredPaths) {
        this.cookieName = cookieName;
        this.ignoredPaths = ignoredPaths;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        List<String> named = sessionCookies(request);
        boolean ignored = named != null && ignoredPaths.matches(Request.getPathInContext(request));
        boolean outer = ReplicatedSessionCache.ignoreRequests(ignored);
        try (RequestLookups lookups = named == null ? null : RequestLookups.open(named)) {
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
        } finally {
            ReplicatedSessionCache.ignoreRequests(outer);
        }
    }

    /** The values of the request's session cookies, in the order sent; null when it has none. */
    private List<String> sessionCookies(Request request) {
        List<String> named = null;
        String name = cookieName.get();
        for (HttpCookie cookie : Request.getCookies(request)) {
            if (cookie.getName().equalsIgnoreCase(name)) {
                if (named == null) {
                    named = new ArrayList<>(2);
                }
                named.add(cookie.getValue());
            }
        }
        return named;
    }
}
