package io.sessionrep.core.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.SessionEvents;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.ForwardingTransport;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MessageReceiver;
import io.sessionrep.core.transport.TransportException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;

import java.time.Duration;

/**
 * Coverage-guided fuzzing of a live node's message handler, driven through its transport as the
 * network would: any bytes from a member of the view are applied, answered or rejected (counted), and
 * never throw into the transport. After the run, the node still takes a real update. The sender is a
 * real member (node a), so the handler's membership checks let the input through to decoding and
 * deserialization. Seeds: a valid message of every type ({@code ReceiverFuzzTestInputs/}, kept with the core's other seeds in
 * session-manager/src/test/resources: FuzzSeeds writes them there). Long run:
 * <pre>JAZZER_FUZZ=1 JAZZER_MAX_DURATION=30m mvn -B -pl session-manager/test-kit -am test -Dtest='ReceiverFuzzTest' -Dsurefire.failIfNoSpecifiedTests=false</pre>
 */
class ReceiverFuzzTest {
    private static Cluster cluster;

    /** Two nodes on the in-memory network; b's handler is captured where the transport would call it. */
    private static final class Cluster {
        final SessionReplicator a;
        final SessionReplicator b;
        final Member fromA;
        volatile MessageReceiver receiverOfB;

        Cluster() throws TransportException {
            InMemoryNetwork network = new InMemoryNetwork();
            InMemoryNetwork.Node transportA = network.transport("a", "a");
            fromA = transportA.localMember();
            a = SessionReplicator.start(ReplicationConfig.builder().nodeName("a").machineId("a").build(), transportA,
                    ReceiverFuzzTest.class.getClassLoader(), new SimpleMeterRegistry(), SessionEvents.NONE);
            b = SessionReplicator.start(ReplicationConfig.builder().nodeName("b").machineId("b").build(),
                    new ForwardingTransport(network.transport("b", "b")) {
                        @Override
                        public void start(MessageReceiver receiver) throws TransportException {
                            receiverOfB = receiver;
                            super.start(receiver);
                        }
                    }, ReceiverFuzzTest.class.getClassLoader(), new SimpleMeterRegistry(), SessionEvents.NONE);
        }
    }

    private static synchronized Cluster cluster() throws TransportException {
        if (cluster == null) {
            cluster = new Cluster();
        }
        return cluster;
    }

    @FuzzTest(maxDuration = "5s")
    void handleAnyMessage(byte[] input) throws TransportException {
        Cluster c = cluster();
        c.receiverOfB.onMessage(c.fromA, input); // must not throw, whatever the bytes
    }

    @AfterAll
    static void theNodeStillReplicates() {
        if (cluster == null) {
            return;
        }
        try (SessionReplicator a = cluster.a; SessionReplicator b = cluster.b) {
            String id = "after-fuzz-" + System.nanoTime();
            TestSession session = new TestSession(id, 0).set("x", 1);
            a.requestEnd(session, session.tracker);
            a.flush(Duration.ofSeconds(5));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> b.backupVersion(id) >= 1);
        } finally {
            cluster = null;
        }
    }
}
