package io.sessionrep.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.testing.RecordingEvents;
import io.sessionrep.core.testing.TestSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The owner of a live session keeps no second serialized copy of it: only a digest per
 * attribute. Changes are still told apart from reads, and every full copy a backup needs (a new backup after
 * a membership change) is serialized from the live session with the exact values.
 */
class OwnerMemoryTest {
    private final InMemoryNetwork network = new InMemoryNetwork();
    private final MeterRegistry meters = new SimpleMeterRegistry();
    private final List<SessionReplicator> started = new ArrayList<>();
    private final Random random = new Random(12);

    @AfterEach
    void stop() {
        started.forEach(SessionReplicator::close);
    }

    private SessionReplicator node(String name) {
        ReplicationConfig config = ReplicationConfig.builder().nodeName(name).machineId(name).build();
        SessionReplicator replicator = SessionReplicator.start(config, network.transport(name, name),
                getClass().getClassLoader(), meters, new RecordingEvents());
        started.add(replicator);
        await().atMost(Duration.ofSeconds(10)).until(() -> started.stream().filter(r -> !r.isClosed())
                .allMatch(r -> r.members().size() == started.stream().filter(n -> !n.isClosed()).count()));
        return replicator;
    }

    private double gauge(String name, SessionReplicator node) {
        return meters.get(name).tag("node", node.nodeName()).gauge().value();
    }

    private double counter(String name, SessionReplicator node) {
        return meters.find(name).tag("node", node.nodeName()).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private byte[] randomBytes(int size) {
        byte[] bytes = new byte[size];
        random.nextBytes(bytes);
        return bytes;
    }

    @Test
    void theOwnerOfALiveSessionHoldsNoSerializedValuesAndStillSendsOnlyWhatChanged() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        TestSession s = new TestSession("s1", System.currentTimeMillis())
                .set("one", randomBytes(5_000)).set("two", randomBytes(5_000));

        a.requestEnd(s, s.tracker);
        a.flush(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(5)).until(() -> b.backupVersion("s1") == 1);
        assertEquals(0, gauge(ReplicationMetrics.PRIMARY_HELD_BYTES, a), "the live session is the owner's only copy");
        assertTrue(gauge(ReplicationMetrics.BACKUP_BYTES, b) >= 10_000, "the backup holds the values");

        double before = counter(ReplicationMetrics.VALUE_BYTES_SENT, a);
        s.get("one"); // a byte[] read counts as possibly changed in place: the digest shows it was not
        s.set("two", randomBytes(5_000));
        a.requestEnd(s, s.tracker);
        a.flush(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(5)).until(() -> b.backupVersion("s1") == 2);
        double sent = counter(ReplicationMetrics.VALUE_BYTES_SENT, a) - before;
        assertTrue(sent >= 5_000 && sent < 5_200, "only the changed attribute is sent: " + sent);

        before = counter(ReplicationMetrics.VALUE_BYTES_SENT, a);
        s.get("one");
        s.get("two");
        a.requestEnd(s, s.tracker);
        a.flush(Duration.ofSeconds(5));
        assertEquals(before, counter(ReplicationMetrics.VALUE_BYTES_SENT, a), "reads send nothing");
        assertEquals(2, b.backupVersion("s1"));
    }

    @Test
    void aNewBackupGetsTheExactValuesSerializedFromTheLiveSession() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        byte[] one = randomBytes(5_000);
        byte[] two = randomBytes(3_000);
        TestSession s = new TestSession("s1", System.currentTimeMillis()).set("one", one).set("n", 1);
        a.requestEnd(s, s.tracker);
        s.set("two", two).set("n", 2);
        a.requestEnd(s, s.tracker);
        a.flush(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(5)).until(() -> b.backupVersion("s1") == 2);

        b.close(); // the only backup leaves; a new node joins: the rebalancer copies the live session to it
        SessionReplicator c = node("c");
        await().atMost(Duration.ofSeconds(10)).until(() -> c.backupVersion("s1") == 2);
        assertEquals(0, gauge(ReplicationMetrics.PRIMARY_HELD_BYTES, a));

        a.close(); // and c takes the session over from that copy
        await().atMost(Duration.ofSeconds(10)).until(() -> c.members().size() == 1);
        RestoredSession restored = c.takeOver("s1").orElseThrow();
        assertArrayEquals(one, (byte[]) restored.attributes().get("one"));
        assertArrayEquals(two, (byte[]) restored.attributes().get("two"));
        assertEquals(2, restored.attributes().get("n"));
    }

    @Test
    void aPromotedSessionHoldsItsValuesOnlyUntilARequestUsesIt() {
        SessionReplicator a = node("a");
        SessionReplicator b = node("b");
        byte[] one = randomBytes(4_000);
        TestSession s = new TestSession("s1", System.currentTimeMillis()).set("one", one);
        a.requestEnd(s, s.tracker);
        a.flush(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(5)).until(() -> b.backupVersion("s1") == 1);

        a.close(); // b promotes its backup: nobody holds the session live, so b keeps its values
        await().atMost(Duration.ofSeconds(10)).until(() -> b.isPrimary("s1"));
        assertTrue(gauge(ReplicationMetrics.PRIMARY_HELD_BYTES, b) >= 4_000);

        RestoredSession restored = b.takeOver("s1").orElseThrow(); // a request here: the container holds it live
        TestSession live = new TestSession("s1", restored.creationTime());
        restored.attributes().forEach((name, value) -> live.set(name, value));
        live.tracker.drain(); // restored, not changed by the request
        assertArrayEquals(one, (byte[]) live.attribute("one"));
        b.requestEnd(live, live.tracker);
        b.exit("s1");
        assertEquals(0, gauge(ReplicationMetrics.PRIMARY_HELD_BYTES, b));
    }

    @Test
    void aSessionInUseWhenABackupJoinsReachesItThroughTheRunningRequestsEnd() {
        SessionReplicator a = node("a");
        byte[] one = randomBytes(5_000);
        TestSession s = new TestSession("s1", System.currentTimeMillis()).set("one", one);
        a.requestEnd(s, s.tracker); // alone: no backup yet
        assertEquals(SessionAccess.OWNED, a.enter("s1")); // a request here uses the session

        SessionReplicator b = node("b"); // the rebalancer may not read the session while it is in use
        a.flush(Duration.ofSeconds(5));
        s.set("n", 2);
        a.requestEnd(s, s.tracker); // that request's end gives the new backup a full copy
        a.exit("s1");
        a.flush(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(10)).until(() -> b.backupVersion("s1") == 2);

        a.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> b.members().size() == 1);
        RestoredSession restored = b.takeOver("s1").orElseThrow();
        assertArrayEquals(one, (byte[]) restored.attributes().get("one"));
        assertEquals(2, restored.attributes().get("n"));
    }
}
