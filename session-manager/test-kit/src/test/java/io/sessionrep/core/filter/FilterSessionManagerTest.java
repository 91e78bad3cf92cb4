package io.sessionrep.core.filter;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.config.ReplicationTrigger;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.testing.MutableClock;
import jakarta.servlet.ServletContext;
import jakarta.servlet.SessionCookieConfig;
import jakarta.servlet.http.HttpSessionEvent;
import jakarta.servlet.http.HttpSessionListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The filter's session manager on the core's in-memory network with a fake clock: expiry by the sweep
 * (without sleeping), sessions in use left alone, take-over on a miss, ids no node knows never adopted.
 */
class FilterSessionManagerTest {
    static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    /** Instantiated by reflection (the stub context cannot create listeners), as a container fallback. */
    public static final class Recorder implements HttpSessionListener {
        @Override
        public void sessionCreated(HttpSessionEvent se) {
            EVENTS.add("created " + se.getSession().getId());
        }

        @Override
        public void sessionDestroyed(HttpSessionEvent se) {
            EVENTS.add("destroyed " + se.getSession().getId());
        }
    }

    private final InMemoryNetwork network = new InMemoryNetwork();
    private final List<InMemoryNetwork.Node> nodes = new CopyOnWriteArrayList<>();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private FilterSessionManager a;
    private FilterSessionManager b;

    @BeforeEach
    void start() {
        EVENTS.clear();
        a = manager("node-a");
        b = manager("node-b");
        drain();
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
    }

    @Test
    void theSweepExpiresIdleSessionsEverywhereWithListenersOnTheOwner() {
        ReplicatedHttpSession session = a.create();
        String id = session.getId();
        session.setAttribute("cart", "3 items");
        a.requestEnd(session);
        drain();
        assertTrue(b.replicator().hasBackup(id));

        clock.advance(Duration.ofSeconds(59));
        a.sweep();
        assertEquals(1, a.liveSessions(), "not idle long enough (timeout: 1 minute)");

        clock.advance(Duration.ofSeconds(2));
        a.sweep();
        drain();
        assertEquals(0, a.liveSessions());
        assertEquals(List.of("created " + id, "destroyed " + id), EVENTS);
        assertFalse(b.replicator().hasLocalCopy(id), "the backup went with it");
        assertNull(b.find(id), "and nobody can take it over");
    }

    @Test
    void aSessionInUseIsNotExpiredUnderItsRequest() {
        ReplicatedHttpSession session = a.create(); // the creating request still runs
        clock.advance(Duration.ofMinutes(5));
        a.sweep();
        assertEquals(1, a.liveSessions());
        a.requestEnd(session);
        a.sweep();
        assertEquals(0, a.liveSessions());
        assertThrows(IllegalStateException.class, () -> session.getAttribute("x"));
    }

    @Test
    void aMissIsTakenOverAndAnUnknownIdIsNotAdopted() {
        ReplicatedHttpSession session = a.create();
        session.setAttribute("user", "ada");
        a.requestEnd(session);
        drain();

        ReplicatedHttpSession moved = b.find(session.getId());
        assertNotNull(moved);
        assertEquals("ada", moved.getAttribute("user"));
        assertFalse(moved.isNew());
        b.requestEnd(moved);
        drain();
        assertEquals(0, a.liveSessions(), "the old owner dropped its live copy");

        assertNull(b.find(new SessionIds(new SecureRandom()).next()), "an id nobody knows");
        assertEquals(1, EVENTS.stream().filter(e -> e.startsWith("created")).count(), "a take-over creates nothing");
    }

    @Test
    void onShutdownHandsTheLiveSessionsOverWhenTheApplicationStops() {
        a.close();
        b.close();
        nodes.clear();
        a = manager("node-a", ReplicationTrigger.ON_SHUTDOWN);
        b = manager("node-b", ReplicationTrigger.ON_SHUTDOWN);
        InMemoryNetwork.Node nodeB = nodes.get(1);
        drain();
        ReplicatedHttpSession session = a.create();
        session.setAttribute("user", "ada");
        a.requestEnd(session);
        drain();
        assertFalse(b.replicator().hasLocalCopy(session.getId()), "nothing travels while node-a runs");

        a.close(); // an orderly stop
        for (int i = 0; i < 3; i++) {
            nodeB.drain();
        }

        ReplicatedHttpSession moved = b.find(session.getId());
        assertNotNull(moved, "node-b took the session over");
        assertEquals("ada", moved.getAttribute("user"));
    }

    private FilterSessionManager manager(String name) {
        return manager(name, ReplicationTrigger.ON_REQUEST_END);
    }

    private FilterSessionManager manager(String name, ReplicationTrigger trigger) {
        ReplicationConfig config = ReplicationConfig.builder().nodeName(name).machineId(name)
                .replicationTrigger(trigger).build();
        ServletContext context = stubContext();
        SessionListeners listeners = SessionListeners.create(context, List.of(Recorder.class.getName()),
                getClass().getClassLoader());
        FilterSessionManager manager = new FilterSessionManager(context, config, listeners,
                getClass().getClassLoader(), clock, new SecureRandom());
        manager.start(c -> {
            InMemoryNetwork.Node node = network.transport(c.nodeName(), c.machineId());
            nodes.add(node);
            return node;
        }, new SimpleMeterRegistry(), null);
        return manager;
    }

    /** Delivers everything in flight (a few rounds: replies and the messages they cause). */
    private void drain() {
        for (int i = 0; i < 3; i++) {
            for (FilterSessionManager m : new FilterSessionManager[] {a, b}) {
                if (m != null) {
                    m.replicator().flush(Duration.ofSeconds(5)); // the async sender hands over what it queued
                }
            }
            nodes.forEach(InMemoryNetwork.Node::drain);
        }
    }

    /** A servlet context with a 1 minute session timeout and nothing else. */
    private static ServletContext stubContext() {
        SessionCookieConfig cookies = (SessionCookieConfig) Proxy.newProxyInstance(
                FilterSessionManagerTest.class.getClassLoader(), new Class<?>[] {SessionCookieConfig.class},
                (proxy, method, args) -> null);
        return (ServletContext) Proxy.newProxyInstance(FilterSessionManagerTest.class.getClassLoader(),
                new Class<?>[] {ServletContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getSessionTimeout" -> 1;
                    case "getSessionCookieConfig" -> cookies;
                    case "createListener" -> throw new UnsupportedOperationException("stub");
                    case "toString" -> "stub context";
                    case "hashCode" -> 0;
                    case "equals" -> proxy == args[0];
                    default -> null;
                });
    }
}
