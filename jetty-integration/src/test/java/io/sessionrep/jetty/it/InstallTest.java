package io.sessionrep.jetty.it;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.jetty.ReplicatedSessionCache;
import io.sessionrep.jetty.ReplicatedSessions;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.session.DefaultSessionIdManager;
import org.eclipse.jetty.session.SessionCache;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How {@link ReplicatedSessions#install} wires a context, and what it refuses. One node, no network. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InstallTest {
    private final InMemoryNetwork network = new InMemoryNetwork();
    private final Server server = new Server();

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    private ReplicatedSessions install(ServletContextHandler context, String nodeName) {
        ReplicationConfig config = ReplicationConfig.builder().nodeName(nodeName).machineId("m").build();
        server.setHandler(context);
        return ReplicatedSessions.install(context, config, new SimpleMeterRegistry(),
                c -> network.transport(c.nodeName(), c.machineId()));
    }

    @Test
    void nodeNameBecomesTheRouteSuffixAndTheReplicatorRunsWithTheContext() throws Exception {
        ServletContextHandler context = new ServletContextHandler(); // no session handler yet: one is added
        ReplicatedSessions sessions = install(context, "web-1");
        server.start();

        assertEquals("web-1", context.getSessionHandler().getSessionIdManager().getWorkerName());
        assertTrue(context.getSessionHandler().getSessionCache() instanceof ReplicatedSessionCache);
        assertEquals("web-1", sessions.replicator().nodeName());

        context.stop();
        assertThrows(IllegalStateException.class, sessions::replicator, "closed with the context");
    }

    @Test
    void nodeNameWithADotCannotBeARouteSuffix() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> install(new ServletContextHandler(ServletContextHandler.SESSIONS), "web.1"));
        assertEquals("node-name", e.option());
    }

    @Test
    void anIdManagerWithAnotherWorkerNameStopsTheStart() throws Exception {
        DefaultSessionIdManager ids = new DefaultSessionIdManager(server);
        ids.setWorkerName("other");
        server.addBean(ids, true);
        install(new ServletContextHandler(ServletContextHandler.SESSIONS), "web-1");

        Exception e = assertThrows(Exception.class, server::start);
        assertTrue(e.getMessage().contains("web-1") && e.getMessage().contains("other"), e.getMessage());
    }

    @Test
    void anUnnamedIdManagerOfTheServerGetsTheNodeNameAtInstall() throws Exception {
        DefaultSessionIdManager ids = new DefaultSessionIdManager(server);
        server.addBean(ids, true);
        install(new ServletContextHandler(ServletContextHandler.SESSIONS), "web-1");
        server.start();

        assertEquals("web-1", ids.getWorkerName());
    }

    @Test
    void evictionWouldLoseSessionsAndIsRefused() throws Exception {
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.SESSIONS);
        install(context, "web-1");
        context.getSessionHandler().getSessionCache().setEvictionPolicy(SessionCache.EVICT_ON_SESSION_EXIT);

        Exception e = assertThrows(Exception.class, server::start);
        assertTrue(e.getMessage().contains("evictionPolicy"), e.getMessage());
    }
}
