package io.sessionrep.perf.floor;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The floor in a web application: around every request it records the session changes ({@link FloorListener})
 * and, once the application has run, sends them from this thread to every peer ({@link FloorNode}). A request to
 * a path ending in {@value #STATUS_PATH} answers the node's counters as JSON instead (the runner reads them to
 * show the floor did its work). Settings: {@link FloorSettings} (system properties).
 */
public class FloorFilter implements Filter {

    /** The counters' path, under the application. */
    public static final String STATUS_PATH = "/floor-status";

    private FloorNode node;

    @Override
    public void init(FilterConfig config) throws ServletException {
        try {
            node = new FloorNode(FloorSettings.fromSystemProperties());
        } catch (IOException | IllegalArgumentException e) {
            throw new ServletException("floor: cannot start: " + e.getMessage(), e);
        }
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        if (request instanceof HttpServletRequest http && http.getRequestURI().endsWith(STATUS_PATH)) {
            response.setContentType("application/json");
            response.getOutputStream().write(node.status().getBytes(StandardCharsets.UTF_8));
            return;
        }
        RequestChanges changes = RequestChanges.onThisThread();
        changes.begin();
        try {
            chain.doFilter(request, response);
        } finally {
            node.send(changes.end());
        }
    }

    @Override
    public void destroy() {
        if (node != null) {
            node.close();
        }
    }
}
