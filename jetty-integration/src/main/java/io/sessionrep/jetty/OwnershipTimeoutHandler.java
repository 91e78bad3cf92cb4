package io.sessionrep.jetty;

import io.sessionrep.core.OwnershipTimeoutException;
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
    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        try {
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
