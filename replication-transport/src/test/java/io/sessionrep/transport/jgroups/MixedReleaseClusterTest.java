package io.sessionrep.transport.jgroups;

import io.sessionrep.core.FailOverContract;
import io.sessionrep.core.HandOverContract;
import io.sessionrep.core.MembershipContract;
import io.sessionrep.core.ReplicationBasicsContract;
import io.sessionrep.core.RestoredSession;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.SessionReplicatorContract;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.TransportException;
import io.sessionrep.core.wire.ProtocolRange;
import io.sessionrep.core.wire.WireCodec;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cluster being rolled from one release to the next: nodes "b" and "d" state that they read wire protocol 2 only,
 * as the release before this one does, and read nothing newer (messages of protocol 3 and values with named fields
 * are rejected there, as that release rejects them). The replicator contracts run across the two (replication,
 * fail-over, hand-over and rebalancing in both directions), then what is particular to the mix: values written
 * before a protocol-2 node joined reach it in field order, the cluster writes protocol 3 again once the last such
 * node left, and a node of a release that shares no protocol with the cluster is refused with both ranges named.
 */
class MixedReleaseClusterTest {
    private static final Map<String, ProtocolRange> PREVIOUS_RELEASE = Map.of(
            "b", ProtocolRange.UNSTATED, "d", ProtocolRange.UNSTATED);

    @Nested
    @Tag("extended")
    class ReplicationBasics extends ReplicationBasicsContract {
        ReplicationBasics() {
            super(GrowingStaticCluster.mixed("mixed", PREVIOUS_RELEASE));
        }
    }

    @Nested
    class FailOver extends FailOverContract {
        FailOver() {
            super(GrowingStaticCluster.mixed("mixed", PREVIOUS_RELEASE));
        }
    }

    @Nested
    @Tag("extended")
    class Membership extends MembershipContract {
        Membership() {
            super(GrowingStaticCluster.mixed("mixed", PREVIOUS_RELEASE));
        }
    }

    @Nested
    class HandOver extends HandOverContract {
        HandOver() {
            super(GrowingStaticCluster.mixed("mixed", PREVIOUS_RELEASE));
        }
    }

    /** An application class whose two formats differ (field order against named fields). */
    record Cart(String owner, List<String> items, int count) implements Serializable {
    }

    @Nested
    class Particulars extends SessionReplicatorContract {
        private final List<byte[]> sentByA = new CopyOnWriteArrayList<>();

        Particulars() {
            super(GrowingStaticCluster.mixed("mixed", Map.of("old", ProtocolRange.UNSTATED,
                    "later", new ProtocolRange(5, 6))));
        }

        private final UnaryOperator<ReplicationConfig.Builder> shop =
                b -> b.serializationAllowlist(List.of(Cart.class.getName()));

        @Test
        void valuesWrittenBeforeAPreviousReleaseNodeJoinedReachItInFieldOrderAndSurviveTheirWriter() {
            SessionReplicator a = node("a", shop);
            transports.get("a").dropWhen((target, bytes) -> !sentByA.add(bytes));
            TestSession s = newSession("s1").set("cart", new Cart("ann", List.of("book"), 1));
            a.requestEnd(s, s.tracker);
            settle(a);
            assertTrue(sentByA.isEmpty(), "alone: nothing sent");

            SessionReplicator old = node("old", shop); // the rebalancer copies s1 to it, in protocol 2
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> old.hasBackup("s1"));
            settle(a);
            assertTrue(sentByA.stream().allMatch(bytes -> bytes[1] == 2), "every message to a protocol-2 member is of protocol 2");

            stopNode(a);
            RestoredSession restored = old.takeOver("s1").orElseThrow();
            assertEquals(new Cart("ann", List.of("book"), 1), restored.attributes().get("cart"));
        }

        @Test
        void aCurrentNodeTakesOverWhatAPreviousReleaseWroteAndTheClusterWritesProtocol3OnceItLeft() {
            SessionReplicator old = node("old", shop);
            SessionReplicator a = node("a", shop);
            TestSession s = newSession("s1").set("cart", new Cart("bob", List.of("lamp", "pen"), 2));
            old.requestEnd(s, s.tracker);
            settle(old);
            RestoredSession restored = a.takeOver("s1").orElseThrow();
            assertEquals(new Cart("bob", List.of("lamp", "pen"), 2), restored.attributes().get("cart"));

            SessionReplicator c = node("c", shop);
            stopNode(old);
            transports.get("a").dropWhen((target, bytes) -> !sentByA.add(bytes));
            TestSession again = new TestSession("s1", clock.millis()).set("cart", new Cart("bob", List.of("lamp"), 1));
            a.requestEnd(again, again.tracker);
            settle(a);
            assertTrue(sentByA.stream().anyMatch(bytes -> bytes[1] == WireCodec.CURRENT), "the newest protocol again");
            stopNode(a);
            assertEquals(new Cart("bob", List.of("lamp"), 1), c.takeOver("s1").orElseThrow().attributes().get("cart"));
        }

        @Test
        void aNodeOfAReleaseSharingNoProtocolWithTheClusterIsRefusedAtStartNamingBoth() {
            node("a");
            TransportException refused = assertThrows(TransportException.class, () -> node("later"));
            assertTrue(refused.getMessage().contains("member a reads wire protocols 2-4 and node later reads 5-6"),
                    refused.getMessage());
            assertTrue(refused.getMessage().contains("does not join cluster"), refused.getMessage());
        }
    }
}
