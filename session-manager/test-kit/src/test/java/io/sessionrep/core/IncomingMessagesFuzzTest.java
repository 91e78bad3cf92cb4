package io.sessionrep.core;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile replication traffic against a running node: every message a fuzzer can build (valid framing
 * with mutated attribute bytes, truncations, random bytes) is either applied or rejected and counted;
 * no exception reaches the transport, and the node keeps replicating afterwards. Iterations:
 * {@code -Dsessionrep.fuzz.iterations} (default 200,000 in {@code mvn verify}).
 */
@Timeout(300)
class IncomingMessagesFuzzTest {

    @Test
    void mutatedAndHostileMessagesAreRejectedAndTheNodeKeepsWorking() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ReplicationConfig configA = ReplicationConfig.builder().nodeName("a").machineId("a").build();
        ReplicationConfig configB = ReplicationConfig.builder().nodeName("b").machineId("b").build();
        try (SessionReplicator a = SessionReplicator.start(configA, network.transport("a", "a"),
                getClass().getClassLoader(), meters, SessionEvents.NONE);
             SessionReplicator b = SessionReplicator.start(configB, network.transport("b", "b"),
                     getClass().getClassLoader(), meters, SessionEvents.NONE)) {
            IncomingMessages receiver = b.incoming();
            Member from = new Member("a", "a"); // a member: hostile bytes from inside the view reach the handler
            Random random = new Random(Long.getLong("sessionrep.fuzz.seed", 7L));
            List<byte[]> seeds = seeds(a);
            int iterations = Integer.getInteger("sessionrep.fuzz.iterations", 200_000) / 4;
            for (int i = 0; i < iterations; i++) {
                byte[] input = mutate(seeds.get(random.nextInt(seeds.size())), random);
                receiver.onMessage(from, input); // must never throw
            }
            double rejected = meters.find(ReplicationMetrics.REJECTED).tag("node", "b").counters().stream()
                    .mapToDouble(c -> c.count()).sum();
            assertTrue(rejected > iterations / 10.0, "hostile input is counted: " + rejected);

            // a known gadget entry point inside an otherwise valid update is refused by class name
            double classRejectedBefore = meters.find(ReplicationMetrics.REJECTED).tag("node", "b")
                    .tag("reason", ReplicationMetrics.REASON_CLASS_NOT_ALLOWED).counter().count();
            SessionUpdate gadget = new SessionUpdate("gadget-session-1", 0, 1, true, 0, 0, 60,
                    Map.of("payload", io.sessionrep.core.serial.HostileValues.plainKryoBytes(
                            new PriorityQueue<>(List.of("x")))), Set.of()); // a primary refuses to write it
            receiver.onMessage(from, WireCodec.encode(new Message.Update(gadget, false)));
            assertEquals(classRejectedBefore + 1, meters.find(ReplicationMetrics.REJECTED).tag("node", "b")
                    .tag("reason", ReplicationMetrics.REASON_CLASS_NOT_ALLOWED).counter().count());
            SessionUpdate javaGadget = new SessionUpdate("gadget-session-2", 0, 1, true, 0, 0, 60,
                    Map.of("payload", javaSerialized(new PriorityQueue<>(List.of("x")))), Set.of());
            receiver.onMessage(from, WireCodec.encode(new Message.Update(javaGadget, false)));

            // the node still works: a real update from a arrives
            TestSession s = new TestSession("after-fuzz", 0).set("x", 1);
            a.requestEnd(s, s.tracker);
            a.flush(java.time.Duration.ofSeconds(5));
            org.awaitility.Awaitility.await().until(() -> b.backupVersion("after-fuzz") == 1);
        }
    }

    private static NodeState stateOf(SessionReplicator replicator) throws Exception {
        var field = SessionReplicator.class.getDeclaredField("node");
        field.setAccessible(true);
        return (NodeState) field.get(replicator);
    }

    private static List<byte[]> seeds(SessionReplicator a) throws Exception {
        Map<String, byte[]> attributes = new HashMap<>();
        attributes.put("list", kryoBytesOf(new ArrayList<>(List.of("a", "b", 3, 4L))));
        attributes.put("map", kryoBytesOf(new HashMap<>(Map.of("k", new byte[] {1, 2, 3}))));
        attributes.put("text", kryoBytesOf("hello"));
        SessionUpdate full = new SessionUpdate("s", 0, 3, true, 1, 2, 60, attributes, Set.of());
        SessionUpdate delta = new SessionUpdate("s", 3, 4, false, 1, 2, 60, Map.of("text", kryoBytesOf("bye")), Set.of("map"));
        return List.of(WireCodec.encode(new Message.Update(full, false)), WireCodec.encode(new Message.Update(delta, true)),
                WireCodec.encode(new Message.Touch(List.of(new Message.Touch.Entry("s", 5)))),
                WireCodec.encode(new Message.Ownership("s", 9, "mallory", true)), WireCodec.encode(new Message.Fetch("s")),
                WireCodec.encode(new Message.Release("s", 3)), WireCodec.encode(new Message.Invalidate("s")));
    }

    private static byte[] mutate(byte[] seed, Random random) {
        byte[] input = seed.clone();
        switch (random.nextInt(4)) {
            case 0 -> {
                for (int flips = 1 + random.nextInt(6); flips > 0; flips--) {
                    input[random.nextInt(input.length)] = (byte) random.nextInt(256);
                }
            }
            case 1 -> input = java.util.Arrays.copyOf(input, random.nextInt(input.length));
            case 2 -> {
                // keep the framing, corrupt the tail (attribute bytes: Kryo must refuse them cleanly)
                int from = Math.min(input.length - 1, 40);
                for (int i = from; i < input.length; i++) {
                    if (random.nextInt(8) == 0) {
                        input[i] = (byte) random.nextInt(256);
                    }
                }
            }
            default -> {
                input = new byte[random.nextInt(96)];
                random.nextBytes(input);
            }
        }
        return input;
    }

    private static byte[] kryoBytesOf(Object value) throws Exception {
        var serializer = new io.sessionrep.core.serial.KryoSessionSerializer(
                io.sessionrep.core.serial.ClassAllowlist.of(List.of()),
                IncomingMessagesFuzzTest.class.getClassLoader());
        return serializer.serialize(value);
    }

    private static byte[] javaSerialized(Object value) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }
}
