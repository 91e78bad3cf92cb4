package io.sessionrep.testservlet.filter;

import io.sessionrep.core.filter.ReplicationFilter;
import jakarta.servlet.DispatcherType;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The filter's contract in embedded Jetty 12.1 (ee10), a plain context without a session handler. */
class FilterInEmbeddedJettyTest extends FilterContractTest {

    @Override
    Node start(String name, Map<String, String> filterParameters) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = context(name, filterParameters);
        server.setHandler(context);
        server.start();
        return new Node() {
            @Override
            public int port() {
                return connector.getLocalPort();
            }

            @Override
            public void stop() throws Exception {
                server.stop();
            }
        };
    }

    private static ServletContextHandler context(String name, Map<String, String> filterParameters) {
        ServletContextHandler context = new ServletContextHandler(); // no container sessions at all
        context.setContextPath("/");
        context.setInitParameter("node", name);
        ServletHolder probe = new ServletHolder(new ProbeServlet());
        probe.setAsyncSupported(true);
        context.addServlet(probe, "/probe");
        context.addServlet(new ServletHolder(new io.sessionrep.core.health.ReadinessServlet()), "/ready");
        FilterHolder filter = new FilterHolder(ReplicationFilter.class);
        filter.setAsyncSupported(true);
        filter.setInitParameters(filterParameters);
        context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
        return context;
    }

    @Test
    void aBadOptionStopsTheApplicationNamingIt() throws Exception {
        Server bad = new Server();
        ServletContextHandler context = context("node-x", Map.of("write-quota", "-1"));
        bad.setHandler(context);
        try {
            Exception e = assertThrows(Exception.class, bad::start);
            String messages = e + " / " + e.getCause();
            assertTrue(messages.contains("write-quota: -1 is not allowed"), messages);
            assertFalse(context.isAvailable(), "the application does not run");
        } finally {
            bad.stop();
        }
    }
}
