package io.sessionrep.transport.jgroups;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.RestoredSession;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.MutableClock;
import io.sessionrep.core.testing.RecordingEvents;
import io.sessionrep.core.testing.TestSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mutual TLS between nodes over real JGroups channels on 127.0.0.1: a cluster of nodes with trusted
 * certificates forms, replicates sessions and fails over (also with cluster-key on top); a node whose
 * certificate the others do not trust cannot join, and hears nothing.
 */
@Timeout(120)
public class TlsClusterTest {
    @TempDir
    static Path dir;
    private static Path trust;
    private static final List<String> NODES = List.of("a", "b", "c");
    private static TestCertificates certificates;

    @BeforeAll
    static void certificates() throws Exception {
        certificates = new TestCertificates(dir);
        for (String node : NODES) {
            certificates.keystore(node);
        }
        certificates.keystore("intruder");
        trust = certificates.truststore("trust", "a", "b", "c");
    }

    public static ReplicationConfig.Builder withTls(ReplicationConfig base, Path keystore, Path truststore) {
        return ReplicationConfig.builder().nodeName(base.nodeName()).machineId(base.machineId())
                .clusterName(base.clusterName()).bindAddress(base.bindAddress()).bindPort(base.bindPort())
                .peers(base.peers()).tlsKeystore(keystore.toString()).tlsKeystorePassword(TestCertificates.PASSWORD)
                .tlsTruststore(truststore.toString()).tlsTruststorePassword(TestCertificates.PASSWORD);
    }

    @Test
    void aTlsClusterFormsReplicatesAndFailsOver() throws Exception {
        TestNodes nodes = new TestNodes();
        int[] ports = TestNodes.freePorts(3);
        MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        List<SessionReplicator> replicators = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                List<Integer> peers = new ArrayList<>();
                for (int j = 0; j < i; j++) {
                    peers.add(ports[j]);
                }
                ReplicationConfig config = withTls(nodes.staticNode(NODES.get(i), ports[i],
                        peers.stream().mapToInt(Integer::intValue).toArray()), dir.resolve(NODES.get(i) + ".p12"), trust)
                        .build();
                replicators.add(SessionReplicator.start(config, new JGroupsTransport(config),
                        getClass().getClassLoader(), new SimpleMeterRegistry(), new RecordingEvents(), clock));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> replicators.stream().allMatch(r -> r.members().size() == 3));

            SessionReplicator a = replicators.get(0);
            TestSession session = new TestSession("tls-session", clock.millis()).set("user", "alice");
            a.requestEnd(session, session.tracker);
            assertTrue(a.flush(Duration.ofSeconds(10)));
            // the backup may be b or c: once a is gone, whichever holds the copy serves it
            Thread.sleep(500);
            a.close();
            await().atMost(Duration.ofSeconds(20)).until(() -> replicators.get(1).members().size() == 2
                    && replicators.get(2).members().size() == 2);

            RestoredSession restored = replicators.get(1).takeOver("tls-session")
                    .or(() -> replicators.get(2).takeOver("tls-session")).orElseThrow();
            assertEquals("alice", restored.attributes().get("user"));
        } finally {
            replicators.forEach(SessionReplicator::close);
            nodes.close();
        }
    }

    @Test
    void tlsAndClusterKeyTogetherFormAndDeliver() throws Exception {
        try (TestNodes nodes = new TestNodes()) {
            int[] ports = TestNodes.freePorts(2);
            RecordingReceiver onB = new RecordingReceiver();
            String key = "the-shared-secret-of-this-cluster";
            JGroupsTransport a = nodes.start(withTls(nodes.staticNode("a", ports[0], ports[1]),
                    dir.resolve("a.p12"), trust).clusterKey(key).build(), new RecordingReceiver());
            JGroupsTransport b = nodes.start(withTls(nodes.staticNode("b", ports[1], ports[0]),
                    dir.resolve("b.p12"), trust).clusterKey(key).build(), onB);
            await().atMost(Duration.ofSeconds(20)).until(() -> a.members().size() == 2 && b.members().size() == 2);
            a.send(b.localMember(), "both".getBytes(StandardCharsets.UTF_8));
            await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 1);
        }
    }

    @Test
    void aNodeWithAnUntrustedCertificateCannotJoinNorBeHeard() throws Exception {
        try (TestNodes nodes = new TestNodes()) {
            int[] ports = TestNodes.freePorts(3);
            RecordingReceiver onA = new RecordingReceiver();
            RecordingReceiver onB = new RecordingReceiver();
            RecordingReceiver onIntruder = new RecordingReceiver();
            JGroupsTransport a = nodes.start(withTls(nodes.staticNode("a", ports[0], ports[1]),
                    dir.resolve("a.p12"), trust).build(), onA);
            JGroupsTransport b = nodes.start(withTls(nodes.staticNode("b", ports[1], ports[0]),
                    dir.resolve("b.p12"), trust).build(), onB);
            await().atMost(Duration.ofSeconds(20)).until(() -> a.members().size() == 2 && b.members().size() == 2);

            // the intruder trusts everyone (its trust store has all certificates), but nobody trusts it
            Path intruderTrust = certificates.truststore("intruder-trust", "a", "b", "c", "intruder");
            JGroupsTransport intruder = nodes.start(withTls(nodes.staticNode("intruder", ports[2], ports[0], ports[1]),
                    dir.resolve("intruder.p12"), intruderTrust).build(), onIntruder);
            await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(13))
                    .until(() -> a.members().size() == 2 && intruder.members().size() == 1);
            intruder.broadcast("injected".getBytes(StandardCharsets.UTF_8));
            a.broadcast("hello".getBytes(StandardCharsets.UTF_8));
            await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 1);
            Thread.sleep(500);
            assertEquals(1, onB.messages.size(), "nothing from the intruder was delivered");
            assertTrue(onIntruder.messages.isEmpty(), "the intruder heard nothing");
        }
    }
}
