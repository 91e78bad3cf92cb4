package io.sessionrep.core;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.testing.TestSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node asks for a session while a request on its owner still uses it, so the owner promises it and grants it
 * when that request ends. When the session is invalidated (or goes elsewhere) before that, the asker must hear
 * so at once: its request goes on without the session, rather than waiting out ownership-timeout and being
 * answered 503.
 */
class PromiseAnsweredOnRemovalTest {
    private static final Duration OWNERSHIP_TIMEOUT = Duration.ofSeconds(8);

    private final List<SessionReplicator> nodes = new ArrayList<>();
    private final InMemoryNetwork network = new InMemoryNetwork();

    @AfterEach
    void close() {
        nodes.forEach(SessionReplicator::close);
    }

    @Test
    void anAskerPromisedASessionThatIsThenInvalidatedIsToldAtOnce() throws Exception {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        await().atMost(Duration.ofSeconds(10)).until(() -> a.members().size() == 2);
        TestSession s = new TestSession("s1", System.currentTimeMillis()).set("cart", 1);
        a.requestEnd(s, s.tracker);
        a.flush(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(10)).until(() -> b.backupVersion("s1") >= 1);
        assertEquals(SessionAccess.OWNED, a.enter("s1")); // a request on the owner is still running

        long asked = System.nanoTime();
        CompletableFuture<Optional<RestoredSession>> askerRequest =
                CompletableFuture.supplyAsync(() -> b.acquire("s1"));
        // the owner promises it (to hand it over when its request exits)
        await().atMost(Duration.ofSeconds(5)).until(() -> a.probe("s1") == SessionAccess.PROMISED);

        a.invalidate("s1"); // the running request invalidates the session (logout)
        Optional<RestoredSession> got = askerRequest.get(OWNERSHIP_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
        a.exit("s1");

        assertTrue(got.isEmpty(), "an invalidated session is not brought back");
        assertTrue(waitedMillis < OWNERSHIP_TIMEOUT.toMillis() / 2,
                "the asker was told at once, not after ownership-timeout: waited " + waitedMillis + " ms");
        assertTrue(b.takeOver("s1").isEmpty(), "and it stays invalidated");
    }

    private SessionReplicator node(String name) throws Exception {
        ReplicationConfig config = ReplicationConfig.builder().nodeName(name).machineId(name)
                .ownershipTimeout(OWNERSHIP_TIMEOUT).build();
        SessionReplicator node = SessionReplicator.start(config, network.transport(name, name),
                getClass().getClassLoader(), new SimpleMeterRegistry(), SessionEvents.NONE);
        nodes.add(node);
        return node;
    }
}
