package io.sessionrep.jetty.it;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.jetty.ReplicatedSessionCache;
import io.sessionrep.jetty.ReplicatedSessionCacheFactory;
import io.sessionrep.jetty.ReplicatedSessionDataStore;
import io.sessionrep.jetty.ReplicatedSessionDataStoreFactory;
import io.sessionrep.testsupport.FreePorts;
import io.sessionrep.testsupport.SessionServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.session.DefaultSessionIdManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Jetty-XML way: no install call; the server has the two factories as beans (options by their
 * canonical names, as strings) and a DefaultSessionIdManager whose workerName is the node name.
 * Every context of the server then gets replicated sessions.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FactoryConfigurationTest {
    private final List<Server> servers = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() throws Exception {
        for (Server server : servers) {
            server.stop();
        }
    }

    private Server server(String node, String cluster, int bindPort, int peerPort) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);

        DefaultSessionIdManager ids = new DefaultSessionIdManager(server);
        ids.setWorkerName(node);
        server.addBean(ids, true);
        server.addBean(new ReplicatedSessionCacheFactory());
        ReplicatedSessionDataStoreFactory store = new ReplicatedSessionDataStoreFactory();
        store.setOption("node-name", node);
        store.setOption("machine-id", "machine-" + node);
        store.setOption("cluster-name", cluster);
        store.setOption("replication-mode", "sync");
        store.setOption("bind-address", "127.0.0.1");
        store.setOption("bind-port", String.valueOf(bindPort));
        store.setOption("peers", "127.0.0.1:" + peerPort);
        store.setMeterRegistry(new SimpleMeterRegistry());
        server.addBean(store);

        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.SESSIONS);
        context.setContextPath("/");
        context.addServlet(new ServletHolder(new SessionServlet(node)), "/session");
        server.setHandler(context);
        servers.add(server);
        server.start();
        return server;
    }

    @Test
    void factoriesOnTheServerReplicateEveryContext() throws Exception {
        String cluster = "factories-" + UUID.randomUUID().toString().substring(0, 8);
        int[] ports = FreePorts.onLoopback(2);
        Server a = server("node-a", cluster, ports[0], ports[1]);
        Server b = server("node-b", cluster, ports[1], ports[0]);
        assertTrue(cache(a) instanceof ReplicatedSessionCache);

        HttpResponse<String> created = get(a, "op=set&name=color&value=blue", null);
        String cookie = created.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
        assertTrue(cookie.endsWith(".node-a"), cookie);
        String id = cookie.substring(cookie.indexOf('=') + 1, cookie.lastIndexOf('.'));
        // node-b may join after the first replication: each request re-checks the backups
        await("backup on node-b").atMost(Duration.ofSeconds(20)).until(() -> {
            get(a, "op=get&name=color", cookie);
            return store(b).replicator().hasLocalCopy(id);
        });

        a.stop();
        HttpResponse<String> failedOver = get(b, "op=get&name=color", cookie);
        assertEquals("blue", failedOver.body());
        assertTrue(failedOver.headers().firstValue("Set-Cookie").orElseThrow().contains(id + ".node-b"));
    }

    /** As the Jetty module does it: no node-name option, the id manager's workerName is the node name. */
    @Test
    void nodeNameDefaultsToTheWorkerNameAndOneFactoryServesOneApplication() throws Exception {
        Server server = new Server();
        server.addConnector(new ServerConnector(server));
        DefaultSessionIdManager ids = new DefaultSessionIdManager(server);
        ids.setWorkerName("worker-7");
        server.addBean(ids, true);
        server.addBean(new ReplicatedSessionCacheFactory());
        ReplicatedSessionDataStoreFactory factory = new ReplicatedSessionDataStoreFactory();
        factory.setOption("node-name", null); // what etc/sessionrep.xml passes for an unset property
        factory.setOption("cluster-name", "worker-" + UUID.randomUUID().toString().substring(0, 8));
        factory.setOption("bind-address", "127.0.0.1");
        factory.setMeterRegistry(new SimpleMeterRegistry());
        factory.validate();
        server.addBean(factory);
        ServletContextHandler first = new ServletContextHandler(ServletContextHandler.SESSIONS);
        first.setContextPath("/first");
        ServletContextHandler second = new ServletContextHandler(ServletContextHandler.SESSIONS);
        second.setContextPath("/second");
        server.setHandler(new org.eclipse.jetty.server.handler.ContextHandlerCollection(first, second));
        servers.add(server);
        Exception refused = org.junit.jupiter.api.Assertions.assertThrows(Exception.class, server::start);
        assertTrue(String.valueOf(refused).contains("replicates one web application per server"), String.valueOf(refused));
        ReplicatedSessionDataStore store =
                (ReplicatedSessionDataStore) first.getSessionHandler().getSessionCache().getSessionDataStore();
        assertEquals("worker-7", store.getConfig().nodeName());
    }

    private static ReplicatedSessionCache cache(Server server) {
        ServletContextHandler context = (ServletContextHandler) server.getHandler();
        return (ReplicatedSessionCache) context.getSessionHandler().getSessionCache();
    }

    private static ReplicatedSessionDataStore store(Server server) {
        return (ReplicatedSessionDataStore) cache(server).getSessionDataStore();
    }

    private HttpResponse<String> get(Server server, String query, String cookie)
            throws IOException, InterruptedException {
        int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/session?" + query));
        if (cookie != null) {
            request.header("Cookie", cookie);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
