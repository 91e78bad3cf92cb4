package io.sessionrep.transport.jgroups;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.discovery.SealedFrames;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.EmptyMessage;
import org.jgroups.Message;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An attacker on the path or at the port of a cluster-key cluster, over real JGroups channels on
 * 127.0.0.1: frames captured from the wire and altered, replayed or sent to another member, and a forged
 * payload-less join, are all refused by the receiver's SealedFrames (counted by reason), and the untouched
 * frame still delivers. The control test shows the same forged join succeeds without a key.
 */
@Timeout(120)
class ClusterKeyAttackTest {
    private static final String KEY = "the-shared-secret-of-this-cluster";
    /** Big enough to tell the frame that carries it from heartbeats and acknowledgements. */
    private static final byte[] PAYLOAD = new byte[3_000];

    static {
        ThreadLocalRandom.current().nextBytes(PAYLOAD);
    }

    private static ReplicationConfig withKey(ReplicationConfig base) {
        return ReplicationConfig.builder().nodeName(base.nodeName()).machineId(base.machineId())
                .clusterName(base.clusterName()).bindAddress(base.bindAddress()).bindPort(base.bindPort())
                .peers(base.peers()).clusterKey(KEY).build();
    }

    private static Map<String, Long> refusals(JGroupsTransport transport) throws Exception {
        return ((SealedFrames) WireTap.channel(transport).getProtocolStack().findProtocol(SealedFrames.class))
                .refusedByReason();
    }

    private static Address address(JGroupsTransport transport) throws Exception {
        return WireTap.channel(transport).getAddress();
    }

    private static Message flipped(Message frame, int index) {
        byte[] bytes = Arrays.copyOfRange(frame.getArray(), frame.getOffset(), frame.getOffset() + frame.getLength());
        bytes[index] ^= 0x01;
        return new BytesMessage(frame.getDest(), bytes).setSrc(frame.getSrc());
    }

    @Test
    void alteredReplayedAndMisdirectedFramesAreRefusedAndTheOriginalStillDelivers() throws Exception {
        try (TestNodes nodes = new TestNodes()) {
            int[] ports = TestNodes.freePorts(3);
            RecordingReceiver onB = new RecordingReceiver();
            RecordingReceiver onC = new RecordingReceiver();
            JGroupsTransport a = nodes.start(withKey(nodes.staticNode("a", ports[0], ports[1], ports[2])),
                    new RecordingReceiver());
            JGroupsTransport b = nodes.start(withKey(nodes.staticNode("b", ports[1], ports[0])), onB);
            JGroupsTransport c = nodes.start(withKey(nodes.staticNode("c", ports[2], ports[0])), onC);
            await().atMost(Duration.ofSeconds(30)).until(() -> a.members().size() == 3 && b.members().size() == 3
                    && c.members().size() == 3);
            Address bAddress = address(b);
            Address cAddress = address(c);

            // an on-path attacker holds back the frame that carries the payload (and its retransmissions)
            WireTap tap = WireTap.on(a);
            tap.holdBack(m -> bAddress.equals(m.getDest()) && m.getLength() > PAYLOAD.length);
            a.send(b.localMember(), PAYLOAD);
            await().atMost(Duration.ofSeconds(10)).until(() -> tap.captured.stream()
                    .anyMatch(m -> bAddress.equals(m.getDest()) && m.getLength() > PAYLOAD.length));
            Message frame = tap.captured.stream()
                    .filter(m -> bAddress.equals(m.getDest()) && m.getLength() > PAYLOAD.length).findFirst().orElseThrow();
            assertTrue(indexOf(frame, PAYLOAD) < 0, "the payload is not visible in the frame");

            // a flipped bit in the ciphertext (the IV-flip attack on CBC), in the counter, in the tag
            tap.inject(flipped(frame, frame.getOffset() + 100));
            tap.inject(flipped(frame, frame.getOffset() + 20));
            tap.inject(flipped(frame, frame.getOffset() + frame.getLength() - 1));
            await().atMost(Duration.ofSeconds(10)).until(() -> refusals(b).get("not-authentic") == 3);
            assertTrue(onB.messages.isEmpty(), "nothing altered was delivered");

            // the untouched frame still delivers: the alterations were the only reason for the refusals
            tap.holdBack(m -> false);
            tap.inject(frame.copy(true, true));
            await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 1);
            assertArrayEquals(PAYLOAD, onB.messages.get(0).message());

            // replayed: to the same node, and to another member
            tap.inject(frame.copy(true, true));
            await().atMost(Duration.ofSeconds(10)).until(() -> refusals(b).get("replayed") >= 1);
            tap.inject(frame.copy(true, true).setDest(cAddress));
            await().atMost(Duration.ofSeconds(10)).until(() -> refusals(c).get("misdirected") == 1);
            Thread.sleep(500);
            assertEquals(1, onB.messages.size(), "the replay was not delivered again");
            assertTrue(onC.messages.isEmpty(), "the frame sealed for b was not delivered to c");
            assertEquals(3, a.members().size(), "the cluster is intact");
        }
    }

    @Test
    void aForgedPayloadLessJoinIsRefused() throws Exception {
        try (TestNodes nodes = new TestNodes()) {
            int[] ports = TestNodes.freePorts(2);
            JGroupsTransport a = nodes.start(withKey(nodes.staticNode("a", ports[0], ports[1])), new RecordingReceiver());
            JGroupsTransport b = nodes.start(withKey(nodes.staticNode("b", ports[1], ports[0])), new RecordingReceiver());
            await().atMost(Duration.ofSeconds(20)).until(() -> a.members().size() == 2 && b.members().size() == 2);

            WireTap tap = WireTap.on(b);
            tap.inject(forgedJoin(address(a)));
            await().atMost(Duration.ofSeconds(10)).until(() -> refusals(a).get("malformed") >= 1);
            // and a forged frame with a payload that only looks sealed
            byte[] junk = new byte[200];
            ThreadLocalRandom.current().nextBytes(junk);
            java.nio.ByteBuffer.wrap(junk).put((byte) 1).position(17).putLong(1).putLong(System.currentTimeMillis());
            tap.inject(new BytesMessage(address(a), junk));
            await().atMost(Duration.ofSeconds(10)).until(() -> refusals(a).get("not-authentic") >= 1);
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> a.members().size() == 2);
        }
    }

    @Test
    void withoutAKeyTheSameForgedJoinAddsAMember() throws Exception {
        // the control for the test above: the forged join is a real attack on a cluster without a key
        try (TestNodes nodes = new TestNodes()) {
            int[] ports = TestNodes.freePorts(2);
            JGroupsTransport a = nodes.start(nodes.staticNode("a", ports[0], ports[1]), new RecordingReceiver());
            JGroupsTransport b = nodes.start(nodes.staticNode("b", ports[1], ports[0]), new RecordingReceiver());
            await().atMost(Duration.ofSeconds(20)).until(() -> a.members().size() == 2 && b.members().size() == 2);
            WireTap.on(b).inject(forgedJoin(address(a)));
            await().atMost(Duration.ofSeconds(10)).until(() -> WireTap.channel(a).getView().size() == 3);
        }
    }

    /** A JOIN_REQ of a member that does not exist, without a payload, sent to the coordinator. */
    private static Message forgedJoin(Address coordinator) {
        Address ghost = UUID.randomUUID();
        return new EmptyMessage(coordinator).setSrc(ghost)
                .putHeader(ClassConfigurator.getProtocolId(GMS.class), new GMS.GmsHeader(GMS.GmsHeader.JOIN_REQ, ghost));
    }

    private static int indexOf(Message frame, byte[] part) {
        byte[] data = Arrays.copyOfRange(frame.getArray(), frame.getOffset(), frame.getOffset() + frame.getLength());
        outer:
        for (int i = 0; i <= data.length - part.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (data[i + j] != part[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
