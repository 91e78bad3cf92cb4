package io.sessionrep.jetty.it;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.jetty.ReplicatedSessions;
import io.sessionrep.testsupport.EmbeddedNode;
import io.sessionrep.testsupport.SessionServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import java.net.URI;
import java.util.function.Consumer;
import java.util.function.Function;

/** One embedded Jetty 12.1 ee10 server on 127.0.0.1 whose only context has replicated sessions. */
final class JettyNode extends EmbeddedNode {
    final ReplicationConfig config;
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final Server server;
    private final ServerConnector connector;
    private final ServletContextHandler context;
    private final ReplicatedSessions sessions;
    private volatile ReplicationTransport transport;

    private JettyNode(ReplicationConfig config, Function<ReplicationConfig, ReplicationTransport> transports,
                      Consumer<ServletContextHandler> customizeContext) {
        super(config.nodeName());
        this.config = config;
        server = new Server();
        connector = new ServerConnector(server);
        // requests naming 150 session ids (the lookup contract tests) need more than the default 8 KiB of header
        connector.getConnectionFactory(org.eclipse.jetty.server.HttpConnectionFactory.class).getHttpConfiguration()
                .setRequestHeaderSize(32 * 1024);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        context = new ServletContextHandler(ServletContextHandler.SESSIONS);
        context.setContextPath("/");
        SessionServlet servlet = new SessionServlet(name());
        context.addServlet(new ServletHolder(servlet), "/session");
        context.addServlet(new ServletHolder(servlet), "/inner");
        context.addServlet(new ServletHolder(servlet), "/peek");
        try {
            context.setBaseResourceAsPath(io.sessionrep.testsupport.StaticFiles.write(
                    java.nio.file.Files.createTempDirectory("jetty-" + name())));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        context.addServlet(new ServletHolder("default", org.eclipse.jetty.ee10.servlet.DefaultServlet.class), "/");
        context.addServlet(new ServletHolder(new io.sessionrep.core.health.ReadinessServlet()), "/ready");
        customizeContext.accept(context);
        sessions = ReplicatedSessions.install(context, config, meters, c -> {
            ReplicationTransport t = transports.apply(c);
            transport = t;
            return t;
        });
        server.setHandler(context);
    }

    static JettyNode start(ReplicationConfig config, Function<ReplicationConfig, ReplicationTransport> transports)
            throws Exception {
        return start(config, transports, context -> { });
    }

    /** As above, {@code customizeContext} adding to the context (servlets, security) before it starts. */
    static JettyNode start(ReplicationConfig config, Function<ReplicationConfig, ReplicationTransport> transports,
                           Consumer<ServletContextHandler> customizeContext) throws Exception {
        JettyNode node = new JettyNode(config, transports, customizeContext);
        node.server.start();
        return node;
    }

    @Override
    public URI uri(String query) {
        return uri("/session", query);
    }

    /** {@code path?query} on this node. */
    URI uri(String path, String query) {
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + path + "?" + query);
    }

    /** The readiness endpoint ({@code /ready}). */
    URI readyUri() {
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/ready");
    }

    @Override
    public SessionReplicator replicator() {
        return sessions.replicator();
    }

    @Override
    public io.sessionrep.core.SessionEvents sessionEvents() {
        return ((io.sessionrep.jetty.ReplicatedSessionCache) context.getSessionHandler().getSessionCache()).sessionEvents();
    }

    /** Whether Jetty's session cache on this node holds the session live (not: a backup copy). */
    @Override
    public boolean holdsLive(String sessionId) throws Exception {
        return context.getSessionHandler().getSessionCache().contains(sessionId);
    }

    int members() {
        ReplicationTransport t = transport;
        return t == null || !isRunning() ? 0 : t.members().size();
    }

    @Override
    public boolean isRunning() {
        return server.isRunning();
    }

    @Override
    public double count(String meter, String... tags) {
        return meters.find(meter).tags(tags).counters().stream().mapToDouble(Counter::count).sum();
    }

    @Override
    public void stop() throws Exception {
        if (!server.isStopped()) {
            server.stop();
        }
    }
}
