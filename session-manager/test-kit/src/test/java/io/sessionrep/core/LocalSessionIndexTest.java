package io.sessionrep.core;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a node answers to an operator's query (unit level, in-memory network): malformed queries from a member get
 * no answer and are counted; a listing is a bounded window of short ids, newest access first; the principal of a
 * copy whose owner left is read from the copy.
 */
class LocalSessionIndexTest {
    private final InMemoryNetwork network = new InMemoryNetwork();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    private SessionReplicator node(String name) {
        return SessionReplicator.start(ReplicationConfig.builder().nodeName(name).machineId(name).build(),
                network.transport(name, name), getClass().getClassLoader(), meters, SessionEvents.NONE);
    }

    @Test
    void malformedQueriesFromAMemberGetNoAnswerAndAreCounted() {
        try (SessionReplicator a = node("a"); SessionReplicator b = node("b")) {
            Member fromA = new Member("a", "a");
            double before = b.metrics().rejectedMalformed.count();
            for (Message.AdminQuery bad : List.of(
                    new Message.AdminQuery(Message.AdminKind.RESOLVE_SHORT_ID, "not-a-short-id", 0, 2),
                    new Message.AdminQuery(Message.AdminKind.PRINCIPAL, "", 0, 10),
                    new Message.AdminQuery(Message.AdminKind.LIST, "something", 0, 10))) {
                assertNull(b.incoming().onMessage(fromA, WireCodec.encode(bad, WireCodec.ADMIN_SINCE)), bad.toString());
            }
            assertEquals(before + 3, b.metrics().rejectedMalformed.count());
            byte[] good = WireCodec.encode(new Message.AdminQuery(Message.AdminKind.COUNT, "", 0, 0), WireCodec.ADMIN_SINCE);
            assertTrue(b.incoming().onMessage(fromA, good) != null, "a well-formed query is answered");
        }
    }

    @Test
    void aListingIsABoundedWindowOfShortIdsNewestFirst() {
        try (SessionReplicator a = node("a"); SessionReplicator b = node("b")) {
            for (int i = 0; i < 30; i++) {
                TestSession s = new TestSession("session-" + i, 1_000L * i).set(SessionPrincipals.ATTRIBUTE, "user" + i % 3);
                s.access(1_000L * i);
                (i % 2 == 0 ? a : b).requestEnd(s, s.tracker);
            }
            SessionAdmin admin = a.admin(LiveSessions.NONE);
            ClusterAnswer<List<SessionRow>> page = admin.list(5, 10);
            assertEquals(List.of("a", "b"), page.answered());
            assertEquals(10, page.result().size());
            for (int i = 0; i < 10; i++) {
                SessionRow row = page.result().get(i);
                assertEquals(LogIds.shortForm("session-" + (24 - i)), row.shortId(), "newest first, from the 6th");
                assertTrue(row.shortId().matches("#[0-9a-f]{8}"));
                assertEquals((24 - i) % 2 == 0 ? "a" : "b", row.owner());
            }
            assertEquals(10, admin.sessionsOf("user1", 100).result().size());
            assertEquals(30, admin.count().result());
        }
    }

    @Test
    void thePrincipalOfACopyWhoseOwnerLeftIsReadFromTheCopy() {
        try (SessionReplicator b = node("b")) {
            SessionReplicator a = node("a");
            TestSession s = new TestSession("kept", 0).set(SessionPrincipals.ATTRIBUTE, "ann").set("cart", "x");
            a.requestEnd(s, s.tracker);
            a.flush(Duration.ofSeconds(5));
            await().atMost(Duration.ofSeconds(5)).until(() -> b.hasBackup("kept"));
            a.close();
            await().atMost(Duration.ofSeconds(5)).until(() -> b.members().size() == 1);
            List<SessionRow> anns = b.admin(LiveSessions.NONE).sessionsOf("ann", 10).result();
            assertEquals(1, anns.size(), anns.toString());
            assertEquals("ann", anns.get(0).principal());
            assertEquals(LogIds.shortForm("kept"), anns.get(0).shortId());
        }
    }
}
