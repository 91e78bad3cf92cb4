package io.sessionrep.testservlet;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;

import java.io.IOException;

/**
 * The benchmark method's test servlet (docs/benchmarks.md), at {@code /session}:
 * <ul>
 *   <li>{@code ?mode=initialize&number=2&size=5}: creates the session if there is none and sets
 *       {@code number} attributes of {@code size} KiB, version 0;</li>
 *   <li>{@code ?mode=process}: rewrites every attribute (with {@code setAttribute}) and increments the
 *       version; with {@code &from=N} (the version the client last saw) a request the HTTP client sent a
 *       second time is answered unchanged with {@code "replayed":true} (see {@link WorkloadRequest});</li>
 *   <li>{@code ?mode=verify}: reports the state, changes nothing;</li>
 *   <li>{@code ?mode=destroy}: reports the state, then invalidates the session.</li>
 * </ul>
 * Every answer is one small JSON object naming the node that served it:
 * {@code {"node":..,"session":..,"mode":..,"version":..,"attributes":..,"bytes":..,"checksum":..}}.
 * Bad parameters answer 400, a request without a session (other than initialize) 404, both with
 * {@code "error"}. The node name is the context init parameter or system property
 * {@value #NODE_NAME_PARAMETER}.
 */
public class SessionTestServlet extends HttpServlet {

    public static final String NODE_NAME_PARAMETER = "sessionrep.node-name";

    private String nodeName;

    @Override
    public void init() {
        String fromContext = getServletContext().getInitParameter(NODE_NAME_PARAMETER);
        nodeName = fromContext != null ? fromContext : System.getProperty(NODE_NAME_PARAMETER, "unnamed");
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        WorkloadRequest work;
        try {
            work = WorkloadRequest.parse(request::getParameter);
        } catch (WorkloadRequest.Invalid e) {
            error(response, HttpServletResponse.SC_BAD_REQUEST, request.getParameter("mode"), e.getMessage());
            return;
        }
        String mode = work.mode().label();
        HttpSession session = request.getSession(work.mode() == WorkloadRequest.Mode.INITIALIZE);
        if (session == null) {
            error(response, HttpServletResponse.SC_NOT_FOUND, mode, "no session");
            return;
        }
        WorkloadState state;
        boolean replayed = false;
        // one request at a time per session on this node, so version increments are never lost
        synchronized (session) {
            WorkloadAttributes attributes = WorkloadAttributes.of(session);
            switch (work.mode()) {
                case INITIALIZE -> Workload.initialize(attributes, work.number(), work.sizeKiB());
                case PROCESS -> {
                    Integer from = work.from();
                    if (from != null && Integer.valueOf(from + 1).equals(Workload.summarize(attributes).version())) {
                        replayed = true; // processed already: the client's HTTP library sent it again
                    } else if (!Workload.process(attributes)) {
                        error(response, HttpServletResponse.SC_CONFLICT, mode,
                                "session " + session.getId() + " was never initialized");
                        return;
                    }
                }
                default -> {
                }
            }
            state = Workload.summarize(attributes);
        }
        String id = session.getId();
        if (work.mode() == WorkloadRequest.Mode.DESTROY) {
            session.invalidate();
        }
        JsonWriter json = JsonWriter.object()
                .field("node", nodeName)
                .field("session", id)
                .field("mode", mode)
                .field("version", state.version())
                .field("attributes", state.attributes())
                .field("bytes", state.bytes())
                .field("checksum", state.checksum());
        if (replayed) {
            json.field("replayed", true);
        }
        write(response, HttpServletResponse.SC_OK, json);
    }

    private void error(HttpServletResponse response, int status, String mode, String message) throws IOException {
        write(response, status, JsonWriter.object()
                .field("node", nodeName)
                .field("mode", mode)
                .field("status", status)
                .field("error", message));
    }

    private static void write(HttpServletResponse response, int status, JsonWriter json) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-store");
        response.getWriter().print(json + "\n");
    }
}
