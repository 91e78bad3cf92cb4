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

/** What a receiver holds is bounded, whatever its peers send. */
class BoundedReceiversTest {
    private static final Member OWNER = new Member("owner", "m");

    private static SessionUpdate full(String id, long version, int bytes) {
        return new SessionUpdate(id, 0, version, true, 0, 0, 1800, Map.of("a", new byte[bytes]), Set.of());
    }

    private static SessionUpdate delta(String id, long from, int bytes) {
        return new SessionUpdate(id, from, from + 1, false, 0, 0, 1800, Map.of("a", new byte[bytes]), Set.of());
    }

    /** What a copy of one attribute "a" of {@code bytes} bytes costs in the store. */
    private static long held(String id, int bytes) {
        return io.sessionrep.core.store.SessionCopy.sizesOf(full(id, 1, bytes))[1];
    }

    @Test
    void theBackupStoreRefusesNewCopiesBeyondItsBoundAndKeepsUpdatingHeldOnesWithinIt() {
        BackupStore store = new BackupStore(10_000, 1 << 20);
        assertEquals(AckStatus.APPLIED, store.apply(full("s1", 1, 6_000), OWNER));
        assertEquals(held("s1", 6_000), store.bytes());
        assertEquals(AckStatus.FULL, store.apply(full("s2", 1, 6_000), OWNER), "a new copy over the bound");
        assertNull(store.get("s2"));
        assertEquals(AckStatus.APPLIED, store.apply(delta("s1", 1, 7_000), OWNER), "a held copy is updated");
        assertEquals(held("s1", 7_000), store.bytes());
        store.remove("s1");
        assertEquals(0, store.bytes());
        assertEquals(AckStatus.APPLIED, store.apply(full("s2", 1, 6_000), OWNER), "room again");
        assertTrue(store.release("s2", "owner", 1, 0));
        assertEquals(0, store.bytes());
    }

    private static SessionUpdate delta(String id, long from, String attribute, int bytes) {
        return new SessionUpdate(id, from, from + 1, false, 0, 0, 1800, Map.of(attribute, new byte[bytes]), Set.of());
    }

    @Test
    void deltasCannotGrowOneCopyPastMaxSessionSizeNorTheStorePastMaxBackupBytes() {
        BackupStore store = new BackupStore(8L << 20, 1 << 20);
        assertEquals(AckStatus.APPLIED, store.apply(full("s1", 1, 1_000), OWNER));
        long version = 1;
        AckStatus status = AckStatus.APPLIED;
        for (int i = 0; i < 128 && status == AckStatus.APPLIED; i++) { // 128 deltas of 512 KiB, each a new attribute
            status = store.apply(delta("s1", version++, "a" + i, 512 * 1024), OWNER);
        }
        assertEquals(AckStatus.FULL, status, "refused once the copy would pass max-session-size");
        assertEquals(3, version, "two deltas fit in 1 MiB with the first kilobyte, the third does not");
        assertNull(store.get("s1"), "the copy that missed an update is dropped");
        assertEquals(0, store.bytes());

        BackupStore small = new BackupStore(100_000, 1 << 20);
        for (int i = 0; i < 20; i++) {
            assertEquals(AckStatus.APPLIED, small.apply(full("c" + i, 1, 100), OWNER));
        }
        int grown = 0;
        for (int i = 0; i < 20; i++) { // each copy grown by deltas, all within max-session-size
            if (small.apply(delta("c" + i, 1, "b", 10_000), OWNER) == AckStatus.APPLIED) {
                grown++;
            }
        }
        assertTrue(small.bytes() <= 100_000, "never past max-backup-bytes: " + small.bytes());
        assertTrue(grown >= 8 && grown < 10, "as many grew as fit: " + grown);
        assertEquals(grown, small.size(), "the copies that could not take their update are dropped");
    }

    @Test
    void idsAndNamesCountAgainstMaxBackupBytes() {
        BackupStore store = new BackupStore(8L << 20, 1 << 20);
        String longName = "n".repeat(4_000);
        int held = 0;
        for (int i = 0; i < 10_000; i++) {
            String id = i + "-" + "i".repeat(4_000);
            SessionUpdate tiny = new SessionUpdate(id, 0, 1, true, 0, 0, 1800, Map.of(longName, new byte[8]), Set.of());
            if (store.apply(tiny, OWNER) == AckStatus.APPLIED) {
                held++;
            }
        }
        assertTrue(store.bytes() <= 8L << 20, "bounded: " + store.bytes());
        assertTrue(held < 600, "about 16 KB of heap each, so about 500 fit in 8 MiB: " + held);
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
            assertTrue(held >= 1_000 && held < 1_400, "the value, its name, the id and the per-copy overhead: " + held);
        }
    }
}
