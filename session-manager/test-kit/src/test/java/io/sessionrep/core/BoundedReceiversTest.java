package io.sessionrep.core;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.store.BackupStore;
import io.sessionrep.core.store.Tombstones;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.MalformedMessageException;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.Message.AckStatus;
import io.sessionrep.core.wire.WireCodec;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a receiver holds is bounded, whatever its peers send (issue #11, "bounded receivers" and hygiene). */
class BoundedReceiversTest {
    private static final Member OWNER = new Member("owner", "m");

    private static SessionUpdate full(String id, long version, int bytes) {
        return new SessionUpdate(id, 0, version, true, 0, 0, 1800, Map.of("a", new byte[bytes]), Set.of());
    }

    private static SessionUpdate delta(String id, long from, int bytes) {
        return new SessionUpdate(id, from, from + 1, false, 0, 0, 1800, Map.of("a", new byte[bytes]), Set.of());
    }

    @Test
    void theBackupStoreRefusesNewCopiesBeyondItsBoundAndKeepsUpdatingHeldOnes() {
        BackupStore store = new BackupStore(10_000);
        assertEquals(AckStatus.APPLIED, store.apply(full("s1", 1, 6_000), OWNER));
        assertEquals(6_000, store.bytes());
        assertEquals(AckStatus.FULL, store.apply(full("s2", 1, 6_000), OWNER), "a new copy over the bound");
        assertNull(store.get("s2"));
        assertEquals(AckStatus.APPLIED, store.apply(delta("s1", 1, 7_000), OWNER), "a held copy is updated");
        assertEquals(7_000, store.bytes());
        store.remove("s1");
        assertEquals(0, store.bytes());
        assertEquals(AckStatus.APPLIED, store.apply(full("s2", 1, 6_000), OWNER), "room again");
        assertTrue(store.release("s2", "owner", 1, 0));
        assertEquals(0, store.bytes());
    }

    @Test
    void tombstonesAreBoundedAndForgetTheOldestFirst() {
        Tombstones tombstones = new Tombstones(Clock.systemUTC(), Duration.ofMinutes(10), 100);
        for (int i = 0; i < 1_000; i++) {
            tombstones.add("s" + i);
        }
        assertTrue(tombstones.size() <= 100, "bounded: " + tombstones.size());
        assertTrue(tombstones.contains("s999"), "the newest are kept");
    }

    @Test
    void oneSegmentAllowlistWildcardsAreRefused() {
        for (String broad : List.of("org.", "io.*", "net.", "com.")) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> ReplicationConfig.fromMap(Map.of("serialization-allowlist", broad)), broad);
            assertTrue(e.getMessage().contains("serialization-allowlist"), e.getMessage());
        }
        assertEquals(List.of("org.example."),
                ReplicationConfig.fromMap(Map.of("serialization-allowlist", "org.example.")).serializationAllowlist());
    }

    @Test
    void versionsNearTheLongLimitAreMalformed() {
        SessionUpdate huge = new SessionUpdate("s", 0, Long.MAX_VALUE, true, 0, 0, 1800, Map.of(), Set.of());
        byte[] bytes = WireCodec.encode(new Message.Update(huge, false));
        assertThrows(MalformedMessageException.class, () -> WireCodec.decode(bytes));
        byte[] ownership = WireCodec.encode(new Message.Ownership("s", Long.MAX_VALUE - 1, "x", true));
        assertThrows(MalformedMessageException.class, () -> WireCodec.decode(ownership));
    }

    @Test
    void maxSessionSizeIsEnforcedOnReceiptAndBackupBytesAreAGauge() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ReplicationConfig configA = ReplicationConfig.builder().nodeName("a").machineId("a").build();
        ReplicationConfig configB = ReplicationConfig.builder().nodeName("b").machineId("b")
                .maxSessionSize(4096).maxBackupBytes(1024 * 1024).build();
        try (SessionReplicator a = SessionReplicator.start(configA, network.transport("a", "a"),
                getClass().getClassLoader(), meters, SessionEvents.NONE);
             SessionReplicator b = SessionReplicator.start(configB, network.transport("b", "b"),
                     getClass().getClassLoader(), meters, SessionEvents.NONE)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> b.members().size() == 2);
            Member fromA = new Member("a", "a");
            b.incoming().onMessage(fromA, WireCodec.encode(new Message.Update(full("big", 1, 10_000), true)));
            assertFalse(b.hasBackup("big"), "a copy over max-session-size is refused");
            assertEquals(1.0, meters.find(ReplicationMetrics.REJECTED).tag("node", "b")
                    .tag("reason", ReplicationMetrics.REASON_TOO_LARGE).counter().count());
            io.sessionrep.core.testing.TestSession small = new io.sessionrep.core.testing.TestSession("small", 0)
                    .set("text", "y".repeat(1_000));
            a.requestEnd(small, small.tracker); // a real, decodable value, replicated to b
            await().atMost(Duration.ofSeconds(10)).until(() -> b.hasBackup("small"));
            double held = meters.find(ReplicationMetrics.BACKUP_BYTES).tag("node", "b").gauge().value();
            assertTrue(held >= 1_000 && held < 1_100, "backup bytes held: " + held);
        }
    }
}
