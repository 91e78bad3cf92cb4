package io.sessionrep.testservlet;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;

/**
 * Read-only {@code GET /cluster}: this node's current view of the replication cluster, for tests and
 * operators. One flat JSON object:
 * {@code {"node":"node-a","cluster":"shop","size":3,"members":"node-a,node-b,node-c"}}; members in view order
 * (the first is the coordinator), separated by commas. Without replication: {@code "size":0,"members":""}.
 */
public final class ClusterViewServlet extends HttpServlet {

    private final String nodeName;
    private final String clusterName;
    private final Supplier<List<String>> members;

    public ClusterViewServlet(String nodeName, String clusterName, Supplier<List<String>> members) {
        this.nodeName = nodeName;
        this.clusterName = clusterName;
        this.members = members;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        List<String> view;
        try {
            view = members.get();
        } catch (RuntimeException e) { // not started yet, or stopping
            view = List.of();
        }
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-store");
        response.getWriter().print(JsonWriter.object()
                .field("node", nodeName)
                .field("cluster", clusterName)
                .field("size", view.size())
                .field("members", String.join(",", view)) + "\n");
    }
}
