package io.sessionrep.testservlet;

import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.session.DefaultSessionIdManager;

import io.sessionrep.core.Readiness;

import java.net.URI;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One embedded Jetty 12 (ee10) server (on 127.0.0.1 unless another HTTP host is given) with a session-enabled context at {@code /} and the
 * {@link SessionTestServlet} at {@code /session}. The session setup of the context can be changed (for
 * replication) between construction and {@link #start}.
 */
public final class NodeServer implements AutoCloseable {

    public static final String HOST = "127.0.0.1";
    /** How long a stop waits for the requests in flight. */
    static final long STOP_TIMEOUT_MS = 5_000;

    private final Server server;
    private final ServerConnector connector;
    private final ServletContextHandler context;
    private final String nodeName;
    private final String httpHost;
    private volatile Supplier<Readiness> readiness = () -> Readiness.READY;

    /**
     * @param contextSetup runs after the context is built and attached to the server, before start
     *                     (e.g. installs replicated sessions)
     */
    public NodeServer(String nodeName, int httpPort, Consumer<ServletContextHandler> contextSetup) {
        this(nodeName, HOST, httpPort, contextSetup);
    }

    /** As {@link #NodeServer(String, int, Consumer)}, serving HTTP on {@code httpHost}. */
    public NodeServer(String nodeName, String httpHost, int httpPort, Consumer<ServletContextHandler> contextSetup) {
        this.nodeName = nodeName;
        this.httpHost = httpHost;
        this.server = new Server();
        this.connector = new ServerConnector(server);
        connector.setHost(httpHost);
        connector.setPort(httpPort);
        server.addConnector(connector);

        context = new ServletContextHandler(ServletContextHandler.SESSIONS);
        context.setContextPath("/");
        context.setInitParameter(SessionTestServlet.NODE_NAME_PARAMETER, nodeName);
        context.addServlet(SessionTestServlet.class, "/session");
        // a stop lets the requests in flight finish (new ones get 503) before the context, and with it the
        // replication node, stops: a request is never cut off by its own session manager going away
        GracefulHandler graceful = new GracefulHandler(context);
        server.setHandler(graceful);
        server.setStopTimeout(STOP_TIMEOUT_MS);
        // SIGTERM / System.exit stop Jetty (and with it the context's replication node) in order
        server.setStopAtShutdown(true);
        contextSetup.accept(context);
    }

    /**
     * Plain Jetty sessions with the node name as the id's route suffix ({@code <id>.node-a}), as sticky load
     * balancers expect. For nodes without replication only: replicated sessions bring their own ids.
     */
    public static void routeSessionIds(ServletContextHandler context, String nodeName) {
        DefaultSessionIdManager ids = new DefaultSessionIdManager(context.getServer());
        ids.setWorkerName(nodeName);
        context.getServer().addBean(ids, true);
    }

    public void start() throws Exception {
        server.start();
    }

    public String nodeName() {
        return nodeName;
    }

    /** Where {@link #readiness()} asks; by default a node is always ready (no replication). */
    public void readiness(Supplier<Readiness> readiness) {
        this.readiness = readiness;
    }

    /** Whether the node is settled in its cluster (replication off: always). */
    public Readiness readiness() {
        return readiness.get();
    }

    /** The bound HTTP port (the real one when 0 was asked for). Valid after {@link #start}. */
    public int port() {
        return connector.getLocalPort();
    }

    /** {@code http://127.0.0.1:<port>/session} (or the HTTP host given). Valid after {@link #start}. */
    public URI sessionUri() {
        String host = httpHost.contains(":") ? "[" + httpHost + "]" : httpHost;
        return URI.create("http://" + host + ":" + port() + "/session");
    }

    public void join() throws InterruptedException {
        server.join();
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
