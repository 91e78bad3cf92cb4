package io.sessionrep.jetty.it;

import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.health.ReadinessServlet;
import io.sessionrep.jetty.ReplicatedSessionCacheFactory;
import io.sessionrep.jetty.ReplicatedSessionDataStoreFactory;
import io.sessionrep.testsupport.Browser;
import io.sessionrep.testsupport.SessionServlet;
import jakarta.servlet.Servlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.session.DefaultSessionIdManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

/**
 * The readiness endpoint in embedded Jetty ({@link ReadinessServlet} at {@code /ready}, finding the node through the
 * context attribute the session store sets): 503 with the reason while a configured peer is up but not in the view
 * (a plain server socket), 200 once it is gone; and, as the Jetty module installs it (factories as server beans), a
 * copy of the servlet loaded by a class loader of its own (as from a WAR's {@code WEB-INF/lib}, beside sessionrep on
 * Jetty's server class path) reading the same node.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JettyReadinessTest {
    private TestCluster cluster;
    private Server server;

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void notReadyWhileAConfiguredPeerIsUpButNotInTheViewThenReady() throws Exception {
        try (ServerSocket stranger = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            HostPort peer = new HostPort("127.0.0.1", stranger.getLocalPort());
            cluster = TestCluster.start("ready", 1, (i, b) -> b.peers(List.of(peer)));
            JettyNode a = cluster.node(0);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                Browser.Reply reply = new Browser().get(a.readyUri());
                assertEquals(503, reply.status(), reply.body());
                assertEquals("not ready\nconfigured peer " + peer + " is up (accepts connections) but not in this"
                        + " node's view\n", reply.body());
            });
        }
        JettyNode a = cluster.node(0);
        await("ready once the peer's port refuses").atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            Browser.Reply reply = new Browser().get(a.readyUri());
            assertEquals(200, reply.status(), reply.body());
            assertEquals("ready\n", reply.body());
        });
        a.stop();
    }

    /** As the Jetty module installs it; the servlet class a copy of its own, as in a WAR. */
    @Test
    void aCopyOfTheServletInTheApplicationReadsTheNodeTheModuleStarted() throws Exception {
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        DefaultSessionIdManager ids = new DefaultSessionIdManager(server);
        ids.setWorkerName("node-m");
        server.addBean(ids, true);
        server.addBean(new ReplicatedSessionCacheFactory());
        ReplicatedSessionDataStoreFactory store = new ReplicatedSessionDataStoreFactory();
        store.setOption("cluster-name", "ready-module-" + UUID.randomUUID().toString().substring(0, 8));
        store.setOption("bind-address", "127.0.0.1");
        store.validate();
        server.addBean(store);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.SESSIONS);
        context.setContextPath("/shop");
        context.addServlet(new ServletHolder(new SessionServlet("node-m")), "/session");
        Class<?> copy = new CopyOfTheServlet().loadClass(ReadinessServlet.class.getName());
        assertNotSame(ReadinessServlet.class, copy);
        context.addServlet(new ServletHolder((Servlet) copy.getDeclaredConstructor().newInstance()), "/ready");
        server.setHandler(context);
        server.start();

        URI ready = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/shop/ready");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            Browser.Reply reply = new Browser().get(ready);
            assertEquals(200, reply.status(), reply.body());
            assertEquals("ready\n", reply.body());
        });
        context.stop();
        Browser.Reply stopped = new Browser().get(ready);
        assertNotEquals(200, stopped.status(), "a stopped application is not ready: " + stopped.body());
    }

    /**
     * A web application's class loader whose only class of sessionrep is its own copy of {@link ReadinessServlet}
     * (the one class file the Jetty module's guide puts into the WAR): any other class of sessionrep it needed would
     * be missing. Everything else (the Servlet API, the JDK) comes from its parent.
     */
    private static final class CopyOfTheServlet extends ClassLoader {
        CopyOfTheServlet() {
            super(JettyReadinessTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("io.sessionrep.")) {
                return super.loadClass(name, resolve);
            }
            if (!name.equals(ReadinessServlet.class.getName())) {
                throw new ClassNotFoundException(name + ": not in this web application");
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded != null) {
                    return loaded;
                }
                try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    if (in == null) {
                        throw new ClassNotFoundException(name);
                    }
                    byte[] bytes = in.readAllBytes();
                    return defineClass(name, bytes, 0, bytes.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        }
    }
}
