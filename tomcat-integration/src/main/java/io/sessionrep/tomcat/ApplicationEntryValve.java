package io.sessionrep.tomcat;

import jakarta.servlet.ServletException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;

import java.io.IOException;

/**
 * Marks, in a note on the request, that it passed the valves Tomcat runs before the application (the
 * authenticator): {@link ReplicatedSessionManager} appends it to its context's pipeline when it starts, after
 * Tomcat configured the context. A session lookup made before this point is the container's own (the
 * authenticator's principal cache); after it, the application's.
 */
final class ApplicationEntryValve extends ValveBase {

    ApplicationEntryValve() {
        super(true);
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        request.setNote(ReplicatedSessionManager.APPLICATION_NOTE, Boolean.TRUE);
        getNext().invoke(request, response);
    }
}
