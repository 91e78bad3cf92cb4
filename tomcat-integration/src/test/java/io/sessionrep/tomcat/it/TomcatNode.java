package io.sessionrep.tomcat.it;

import io.micrometer.core.instrument.Counter;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.testsupport.EmbeddedNode;
import io.sessionrep.testsupport.SessionServlet;
import io.sessionrep.tomcat.ReplicatedSessionManager;
import io.sessionrep.transport.jgroups.JGroupsTransport;
import org.apache.catalina.Context;
import org.apache.catalina.Lifecycle;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.Wrapper;
import org.apache.catalina.authenticator.NonLoginAuthenticator;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.IntrospectionUtils;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * One embedded Tomcat 11 on 127.0.0.1 whose ROOT context has a {@link ReplicatedSessionManager} configured
 * exactly as {@code context.xml} would: every attribute is set through Tomcat's own
 * {@link IntrospectionUtils#setProperty}, the call its Digester makes for XML attributes. Optionally a
 * second context, {@code /other}, with a manager of its own, for cross-context dispatches.
 */
final class TomcatNode extends EmbeddedNode {
    final SessionEventsLog sessionEvents = new SessionEventsLog();
    final ReplicatedSessionManager manager = new ReplicatedSessionManager();
    final ReplicatedSessionManager otherManager = new ReplicatedSessionManager();
    private final Tomcat tomcat = new Tomcat();
    private final Connector connector;
    private final Context context;
    private final Context other;

    /**
     * @param viaJvmRoute the node name comes from the Engine's jvmRoute (else from the nodeName attribute)
     * @param attributes  the Manager attributes of the ROOT context
     * @param otherAttributes the Manager attributes of {@code /other}, or null for no such context
     */
    private TomcatNode(String name, boolean viaJvmRoute, Map<String, String> attributes,
                       Map<String, String> otherAttributes, UnaryOperator<ReplicationTransport> decorate)
            throws IOException {
        super(name);
        Path base = Files.createTempDirectory("tomcat-" + name);
        tomcat.setBaseDir(base.toString());
        tomcat.getEngine().setName("engine-" + name); // its own JMX domain: several Tomcats share this JVM
        if (viaJvmRoute) {
            tomcat.getEngine().setJvmRoute(name);
        }
        connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        connector.setProperty("maxHttpHeaderSize", "32768"); // requests naming 150 session ids (lookup contract tests)
        tomcat.setConnector(connector);
        tomcat.getHost().setAutoDeploy(false);

        context = tomcat.addContext("", io.sessionrep.testsupport.StaticFiles.write(base.resolve("root")).toString());
        context.setCrossContext(true);
        // as a deployed application gets from Tomcat's ContextConfig when the context starts: an
        // authenticator, which looks up the request's session before the application runs
        context.addLifecycleListener(event -> {
            if (Lifecycle.CONFIGURE_START_EVENT.equals(event.getType())) {
                context.getPipeline().addValve(new NonLoginAuthenticator());
                context.getPipeline().addValve(new TestLogin());
            }
        });
        configure(manager, attributes, viaJvmRoute ? null : name, decorate);
        context.setManager(manager);
        SessionServlet servlet = new SessionServlet(name);
        Wrapper wrapper = Tomcat.addServlet(context, "session", servlet);
        wrapper.setAsyncSupported(true);
        context.addServletMapping("/session", "session");
        context.addServletMapping("/inner", "session");
        context.addServletMapping("/peek", "session");
        Tomcat.addServlet(context, "default", new org.apache.catalina.servlets.DefaultServlet());
        context.addServletMapping("/", "default");
        Tomcat.addServlet(context, "ready", new io.sessionrep.core.health.ReadinessServlet());
        context.addServletMapping("/ready", "ready");
        context.addServletContainerInitializer((classes, servletContext) -> servletContext.addListener(sessionEvents),
                null);

        if (otherAttributes != null) {
            other = tomcat.addContext("/other", Files.createDirectories(base.resolve("other")).toString());
            configure(otherManager, otherAttributes, viaJvmRoute ? null : name, decorate);
            other.setManager(otherManager);
            Tomcat.addServlet(other, "session", new SessionServlet(name));
            other.addServletMapping("/session", "session");
        } else {
            other = null;
        }
    }

    /**
     * A request with parameter {@code as-user} is authenticated as that user (as an authenticator would make it, with
     * {@code request.setUserPrincipal}): the container's principal, which the manager records in the session.
     */
    static final class TestLogin extends org.apache.catalina.valves.ValveBase {
        TestLogin() {
            super(true);
        }

        @Override
        public void invoke(org.apache.catalina.connector.Request request, org.apache.catalina.connector.Response response)
                throws IOException, jakarta.servlet.ServletException {
            String user = request.getQueryString() != null && request.getQueryString().contains("as-user=")
                    ? request.getParameter("as-user") : null;
            if (user != null) {
                request.setUserPrincipal(new org.apache.catalina.realm.GenericPrincipal(user, java.util.List.of()));
            }
            getNext().invoke(request, response);
        }
    }

    private static void configure(ReplicatedSessionManager manager, Map<String, String> attributes, String nodeName,
                                  UnaryOperator<ReplicationTransport> decorate) {
        if (nodeName != null) {
            IntrospectionUtils.setProperty(manager, "nodeName", nodeName);
        }
        attributes.forEach((attribute, value) -> IntrospectionUtils.setProperty(manager, attribute, value));
        manager.setTransportFactory(c -> decorate.apply(new JGroupsTransport(c)));
    }

    static TomcatNode start(String name, boolean viaJvmRoute, Map<String, String> attributes,
                            Map<String, String> otherAttributes, UnaryOperator<ReplicationTransport> decorate)
            throws Exception {
        TomcatNode node = new TomcatNode(name, viaJvmRoute, attributes, otherAttributes, decorate);
        try {
            node.tomcat.start();
        } catch (Exception | Error e) {
            node.stop();
            throw e;
        }
        return node;
    }

    /** The session servlet of the ROOT context. */
    @Override
    public URI uri(String query) {
        return uri("", query);
    }

    /** The session servlet of the context at {@code contextPath} ("" for ROOT, or {@code /other}). */
    URI uri(String contextPath, String query) {
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + contextPath + "/session?" + query);
    }

    /** The readiness endpoint of the ROOT context ({@code /ready}). */
    URI readyUri() {
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/ready");
    }

    /** The engine's JMX domain (each node has its own: {@code engine-<name>}). */
    String jmxDomain() {
        return tomcat.getEngine().getName();
    }

    Context context() {
        return context;
    }

    @Override
    public SessionReplicator replicator() {
        return manager.replicator();
    }

    @Override
    public io.sessionrep.core.SessionEvents sessionEvents() {
        return manager.sessionEvents();
    }

    /** Whether this node's Tomcat holds the session live (not: a backup copy). */
    @Override
    public boolean holdsLive(String clusterId) {
        return Arrays.stream(manager.findSessions()).anyMatch(s -> s.getIdInternal().startsWith(clusterId + "."));
    }

    int members() {
        return manager.getState() == LifecycleState.STARTED ? manager.replicator().members().size() : 0;
    }

    int otherMembers() {
        return otherManager.getState() == LifecycleState.STARTED ? otherManager.replicator().members().size() : 0;
    }

    @Override
    public boolean isRunning() {
        return tomcat.getServer().getState() == LifecycleState.STARTED;
    }

    @Override
    public double count(String meter, String... tags) {
        return manager.getMeterRegistry().find(meter).tags(tags).tag("node", name()).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    /** Orderly stop: the contexts stop (their managers leave the cluster), then the server. */
    @Override
    public void stop() throws Exception {
        if (tomcat.getServer().getState().isAvailable()) {
            tomcat.stop();
        }
        if (tomcat.getServer().getState() != LifecycleState.DESTROYED) {
            tomcat.destroy();
        }
    }
}
