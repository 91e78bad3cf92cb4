package io.sessionrep.transport.jgroups;

import io.sessionrep.core.config.ReplicationConfig;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.protocols.TCP;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * cluster-key over real JGroups channels: nodes with the key form a cluster and exchange messages; what
 * goes on the wire contains no plaintext; a node with another key, or none, can neither join nor be heard.
 * Attacks on captured frames: {@link ClusterKeyAttackTest}.
 */
@Timeout(120)
class ClusterKeyTest {
    private static final String KEY = "the-shared-secret-of-this-cluster";
    private static final byte[] SECRET_VALUE = "CREDIT-CARD-4111-1111-1111-1111".getBytes(StandardCharsets.UTF_8);

    private static ReplicationConfig withKey(ReplicationConfig base, String key) {
        return ReplicationConfig.builder().nodeName(base.nodeName()).machineId(base.machineId())
                .clusterName(base.clusterName()).bindAddress(base.bindAddress()).bindPort(base.bindPort())
                .peers(base.peers()).clusterKey(key).build();
    }

    @Test
    void trafficIsEncryptedAndANodeWithAnotherKeyCannotJoinNorInject() throws Exception {
        try (TestNodes nodes = new TestNodes()) {
            int[] ports = TestNodes.freePorts(3);
            RecordingReceiver onA = new RecordingReceiver();
            RecordingReceiver onB = new RecordingReceiver();
            RecordingReceiver onIntruder = new RecordingReceiver();
            JGroupsTransport a = nodes.start(withKey(nodes.staticNode("a", ports[0], ports[1]), KEY), onA);
            List<byte[]> wire = spyOnWire(a);
            JGroupsTransport b = nodes.start(withKey(nodes.staticNode("b", ports[1], ports[0]), KEY), onB);
            await().atMost(Duration.ofSeconds(20)).until(() -> a.members().size() == 2 && b.members().size() == 2);

            a.send(b.localMember(), SECRET_VALUE);
            await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 1);
            assertArrayEquals(SECRET_VALUE, onB.messages.get(0).message(), "the keyed peer decrypts it");
            assertFalse(wire.stream().anyMatch(ClusterKeyTest::containsSecret),
                    "no plaintext of the value on the wire (" + wire.size() + " messages captured)");

            JGroupsTransport intruder = nodes.start(
                    withKey(nodes.staticNode("intruder", ports[2], ports[0], ports[1]), "a-different-secret-entirely"),
                    onIntruder);
            // MERGE3 probes every 1-3 s and compares views every 3.2 s: give it several rounds to try
            await().during(Duration.ofSeconds(12)).atMost(Duration.ofSeconds(15))
                    .until(() -> a.members().size() == 2 && intruder.members().size() == 1);
            intruder.broadcast("injected".getBytes(StandardCharsets.UTF_8));
            a.broadcast("hello".getBytes(StandardCharsets.UTF_8));
            await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 2);
            Thread.sleep(500);
            assertEquals(2, onB.messages.size(), "nothing from the intruder was delivered");
            assertTrue(onIntruder.messages.isEmpty(), "the intruder heard nothing");
        }
    }

    @Test
    void aNodeWithoutAnyKeyCannotJoinNorInject() throws Exception {
        try (TestNodes nodes = new TestNodes()) {
            int[] ports = TestNodes.freePorts(3);
            RecordingReceiver onB = new RecordingReceiver();
            RecordingReceiver onPlain = new RecordingReceiver();
            JGroupsTransport a = nodes.start(withKey(nodes.staticNode("a", ports[0], ports[1]), KEY), new RecordingReceiver());
            JGroupsTransport b = nodes.start(withKey(nodes.staticNode("b", ports[1], ports[0]), KEY), onB);
            await().atMost(Duration.ofSeconds(20)).until(() -> a.members().size() == 2 && b.members().size() == 2);
            JGroupsTransport plain = nodes.start(nodes.staticNode("plain", ports[2], ports[0], ports[1]), onPlain);
            await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(13))
                    .until(() -> a.members().size() == 2 && plain.members().size() == 1);
            plain.broadcast("injected".getBytes(StandardCharsets.UTF_8));
            Thread.sleep(1_000);
            assertTrue(onB.messages.isEmpty(), "nothing from the node without a key was delivered");
        }
    }

    @Test
    void withoutAKeyTheSameCaptureSeesThePlaintext() throws Exception {
        // the control for the test above: proves the capture would see the value if it were not encrypted
        try (TestNodes nodes = new TestNodes()) {
            int[] ports = TestNodes.freePorts(2);
            RecordingReceiver onB = new RecordingReceiver();
            JGroupsTransport a = nodes.start(nodes.staticNode("a", ports[0], ports[1]), new RecordingReceiver());
            List<byte[]> wire = spyOnWire(a);
            JGroupsTransport b = nodes.start(nodes.staticNode("b", ports[1], ports[0]), onB);
            await().atMost(Duration.ofSeconds(20)).until(() -> a.members().size() == 2);
            a.send(b.localMember(), SECRET_VALUE);
            await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 1);
            assertTrue(wire.stream().anyMatch(ClusterKeyTest::containsSecret));
        }
    }

    /** Records the payload of every message this node hands to its TCP transport. */
    private static List<byte[]> spyOnWire(JGroupsTransport transport) throws Exception {
        var field = JGroupsTransport.class.getDeclaredField("channel");
        field.setAccessible(true);
        JChannel channel = (JChannel) field.get(transport);
        List<byte[]> captured = new CopyOnWriteArrayList<>();
        Protocol spy = new Protocol() {
            @Override
            public Object down(Message msg) {
                if (msg.hasArray() && msg.getLength() > 0) {
                    byte[] copy = new byte[msg.getLength()];
                    System.arraycopy(msg.getArray(), msg.getOffset(), copy, 0, msg.getLength());
                    captured.add(copy);
                }
                return down_prot.down(msg);
            }
        };
        channel.getProtocolStack().insertProtocol(spy, ProtocolStack.Position.ABOVE, TCP.class);
        return captured;
    }

    private static boolean containsSecret(byte[] data) {
        outer:
        for (int i = 0; i <= data.length - SECRET_VALUE.length; i++) {
            for (int j = 0; j < SECRET_VALUE.length; j++) {
                if (data[i + j] != SECRET_VALUE[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
