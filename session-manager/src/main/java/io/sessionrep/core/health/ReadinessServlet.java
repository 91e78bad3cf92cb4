package io.sessionrep.core.health;

import io.sessionrep.core.ReplicationNode;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;

/**
 * The readiness endpoint of a replicating web application, for a load balancer's health check or a Kubernetes
 * readiness probe: {@code GET} answers {@code 200} with the body {@code ready}, or {@code 503} with
 * {@code not ready} and one reason per line ({@link io.sessionrep.core.Readiness}), as {@code text/plain}, never
 * cached. {@code HEAD} answers the same status without a body.
 *
 * <p>The application maps it in {@code web.xml}:
 * <pre>
 * &lt;servlet&gt;
 *   &lt;servlet-name&gt;sessionrep-ready&lt;/servlet-name&gt;
 *   &lt;servlet-class&gt;io.sessionrep.core.health.ReadinessServlet&lt;/servlet-class&gt;
 * &lt;/servlet&gt;
 * &lt;servlet-mapping&gt;
 *   &lt;servlet-name&gt;sessionrep-ready&lt;/servlet-name&gt;
 *   &lt;url-pattern&gt;/sessionrep/ready&lt;/url-pattern&gt;
 * &lt;/servlet-mapping&gt;
 * </pre>
 * It finds the node of its own web application in the servlet context attribute
 * {@link ReplicationNode#READINESS_ATTRIBUTE}, which each integration (Tomcat manager, Jetty session store, the
 * filter) sets while the application's node runs; without it (replication not installed, not started yet, or
 * stopped) the answer is 503. It uses nothing but the Servlet API and JDK types (the attribute is a
 * {@code Supplier<List<String>>}), so a copy of this class in the web application works beside a node that the
 * container loads (the Jetty module: its jar is on Jetty's server class path, without the Servlet API).
 */
public class ReadinessServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        answer(response, true);
    }

    @Override
    protected void doHead(HttpServletRequest request, HttpServletResponse response) throws IOException {
        answer(response, false);
    }

    private void answer(HttpServletResponse response, boolean withBody) throws IOException {
        List<String> reasons = notReadyReasons();
        response.setStatus(reasons.isEmpty() ? HttpServletResponse.SC_OK : HttpServletResponse.SC_SERVICE_UNAVAILABLE);
        response.setContentType("text/plain");
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.setHeader("Cache-Control", "no-store");
        if (!withBody) {
            return;
        }
        PrintWriter out = response.getWriter();
        if (reasons.isEmpty()) {
            out.print("ready\n");
            return;
        }
        out.print("not ready\n");
        for (String reason : reasons) {
            out.print(reason);
            out.print('\n');
        }
    }

    /** What the node of this web application says against being ready now; empty when it is ready. */
    private List<String> notReadyReasons() {
        Object published = getServletContext().getAttribute(ReplicationNode.READINESS_ATTRIBUTE);
        if (!(published instanceof Supplier<?> node)) {
            return List.of(published == null
                    ? "no sessionrep node runs in this web application (not installed, not started yet, or stopped)"
                    : "servlet context attribute " + ReplicationNode.READINESS_ATTRIBUTE + " holds a "
                    + published.getClass().getName() + ", not sessionrep's readiness");
        }
        try {
            Object reasons = node.get();
            if (reasons instanceof List<?> list) {
                return list.stream().map(String::valueOf).toList();
            }
            return List.of("sessionrep's readiness answered " + reasons + " instead of a list of reasons");
        } catch (RuntimeException e) {
            return List.of("readiness could not be computed: " + e);
        }
    }
}
