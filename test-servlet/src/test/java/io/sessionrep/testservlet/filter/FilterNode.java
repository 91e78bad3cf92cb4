package io.sessionrep.testservlet.filter;

import io.micrometer.core.instrument.Counter;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.filter.FilterInternals;
import io.sessionrep.core.filter.ReplicationFilter;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.testsupport.EmbeddedNode;
import io.sessionrep.testsupport.SessionServlet;
import jakarta.servlet.DispatcherType;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;

/**
 * One embedded container (Jetty 12.1 ee10 or Tomcat 11) on 127.0.0.1 whose root context has the web.xml
 * install: {@link ReplicationFilter} on {@code /*} (REQUEST, async supported) configured only through its
 * init-params, the {@link SessionServlet} at {@code /session} and {@code /inner}; the container's own
 * sessions are never used. The filter instance is made here (so that its transport can be wrapped) and
 * handed to the container, which initializes it as it would one named in web.xml.
 */
final class FilterNode extends EmbeddedNode {
    /** A running container: its HTTP port, and an orderly stop (which destroys the filter). */
    interface Running {
        int port();

        void stop() throws Exception;
    }

    /** Starts a container with the filter and the servlet as described above. */
    @FunctionalInterface
    interface Container {
        Running start(String name, ReplicationFilter filter, Map<String, String> filterParameters,
                      SessionServlet servlet) throws Exception;
    }

    private final Running running;
    private final SessionReplicator replicator;
    private final io.sessionrep.core.SessionEvents events;
    private final ReplicationTransport transport;
    private volatile boolean stopped;

    private FilterNode(String name, Running running, SessionReplicator replicator, io.sessionrep.core.SessionEvents events,
                       ReplicationTransport transport) {
        super(name);
        this.running = running;
        this.replicator = replicator;
        this.events = events;
        this.transport = transport;
    }

    static FilterNode start(Container container, String name, Map<String, String> filterParameters,
                            java.util.function.Function<io.sessionrep.core.config.ReplicationConfig,
                                    ReplicationTransport> transports) throws Exception {
        ReplicationTransport[] made = new ReplicationTransport[1];
        ReplicationFilter filter = new ReplicationFilter(config -> {
            made[0] = transports.apply(config);
            return made[0];
        });
        Running running = container.start(name, filter, filterParameters, new SessionServlet(name));
        // kept: the filter forgets its engine when the container destroys it, the tests ask after a stop
        SessionReplicator replicator = FilterInternals.replicator(filter);
        if (replicator == null) {
            running.stop();
            throw new IllegalStateException("the filter of " + name + " did not start");
        }
        return new FilterNode(name, running, replicator, FilterInternals.sessionEvents(filter), made[0]);
    }

    @Override
    public URI uri(String query) {
        return URI.create("http://127.0.0.1:" + running.port() + "/session?" + query);
    }

    @Override
    public SessionReplicator replicator() {
        return replicator;
    }

    @Override
    public io.sessionrep.core.SessionEvents sessionEvents() {
        return events;
    }

    /**
     * Whether this node serves the session as its primary. The filter drops its live copy when it loses the
     * ownership ({@code ownershipLost}) and checks it at the next request; the core's primary flag is what
     * a test can read from outside.
     */
    @Override
    public boolean holdsLive(String clusterId) {
        return !stopped && replicator.isPrimary(clusterId);
    }

    int members() {
        return stopped || transport == null ? 0 : transport.members().size();
    }

    @Override
    public boolean isRunning() {
        return !stopped;
    }

    @Override
    public double count(String meter, String... tags) {
        return replicator.metrics().registry().find(meter).tags(tags).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    @Override
    public void stop() throws Exception {
        if (!stopped) {
            stopped = true;
            running.stop();
        }
    }

    /** Embedded Jetty 12.1 (ee10): a plain context without a session handler. */
    static final Container JETTY = (name, filter, filterParameters, servlet) -> {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        // requests naming 150 session ids (the lookup contract tests) need more than the default 8 KiB of header
        connector.getConnectionFactory(org.eclipse.jetty.server.HttpConnectionFactory.class).getHttpConfiguration()
                .setRequestHeaderSize(32 * 1024);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler(); // no container sessions at all
        context.setContextPath("/");
        ServletHolder holder = new ServletHolder(servlet);
        holder.setAsyncSupported(true);
        context.addServlet(holder, "/session");
        context.addServlet(holder, "/inner");
        context.addServlet(holder, "/peek");
        context.setBaseResourceAsPath(io.sessionrep.testsupport.StaticFiles.write(Files.createTempDirectory("jetty-" + name)));
        context.addServlet(new ServletHolder("default", org.eclipse.jetty.ee10.servlet.DefaultServlet.class), "/");
        FilterHolder filterHolder = new FilterHolder(filter);
        filterHolder.setAsyncSupported(true);
        filterHolder.setInitParameters(filterParameters);
        context.addFilter(filterHolder, "/*", EnumSet.of(DispatcherType.REQUEST));
        server.setHandler(context);
        server.start();
        return new Running() {
            @Override
            public int port() {
                return connector.getLocalPort();
            }

            @Override
            public void stop() throws Exception {
                server.stop();
            }
        };
    };

    /** Embedded Tomcat 11: a context whose own session manager is never used. */
    static final Container TOMCAT = (name, filter, filterParameters, servlet) -> {
        Path work = Files.createTempDirectory("tomcat-" + name);
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(work.toString());
        tomcat.setHostname("127.0.0.1");
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        tomcat.getConnector().setProperty("maxHttpHeaderSize", "32768"); // requests naming 150 session ids
        Context context = tomcat.addContext("", io.sessionrep.testsupport.StaticFiles.write(work.resolve("root")).toString());
        Wrapper wrapper = Tomcat.addServlet(context, "session", servlet);
        wrapper.setAsyncSupported(true);
        context.addServletMappingDecoded("/session", "session");
        context.addServletMappingDecoded("/inner", "session");
        context.addServletMappingDecoded("/peek", "session");
        Tomcat.addServlet(context, "default", new org.apache.catalina.servlets.DefaultServlet());
        context.addServletMappingDecoded("/", "default");
        FilterDef def = new FilterDef();
        def.setFilterName("sessionrep");
        def.setFilter(filter);
        def.setFilterClass(ReplicationFilter.class.getName());
        def.setAsyncSupported("true");
        filterParameters.forEach(def::addInitParameter);
        context.addFilterDef(def);
        FilterMap mapping = new FilterMap();
        mapping.setFilterName("sessionrep");
        mapping.addURLPattern("/*");
        context.addFilterMap(mapping);
        tomcat.start();
        if (!context.getState().isAvailable()) {
            tomcat.stop();
            tomcat.destroy();
            throw new IllegalStateException("Tomcat context of " + name + " did not start: " + context.getState());
        }
        return new Running() {
            @Override
            public int port() {
                return tomcat.getConnector().getLocalPort();
            }

            @Override
            public void stop() throws Exception {
                tomcat.stop();
                tomcat.destroy();
            }
        };
    };
}
