package io.sessionrep.transport.jgroups;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.RecordingEvents;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataOutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * What the transport refuses before any message reaches the core shows in the node's meters, where an operator
 * alerts on it: a hostile connection to the data lane is counted in
 * {@code sessionrep.transport.refused{reason=lane-connection}} of the node's registry, tagged with its name.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransportMetersTest {

    private final TestNodes nodes = new TestNodes();
    private SessionReplicator replicator;

    @AfterEach
    void close() {
        if (replicator != null) {
            replicator.close();
        }
    }

    @Test
    void aHostileLaneConnectionIsCountedInTheNodesMeters() throws Exception {
        int port = TestNodes.freePorts(1)[0];
        ReplicationConfig config = nodes.staticNodeOptions("a", port, port).build();
        JGroupsTransport transport = new JGroupsTransport(config);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        replicator = SessionReplicator.start(config, transport, getClass().getClassLoader(), meters, new RecordingEvents());

        FunctionCounter refused = meters.find("sessionrep.transport.refused").tag("node", "a")
                .tag("reason", "lane-connection").functionCounter();
        assertNotNull(refused, "registered with the node's meters");
        assertEquals(0, refused.count());
        try (Socket s = new Socket(TestNodes.LOOPBACK, transport.dataLanePort())) { // a length far beyond the lane's
            new DataOutputStream(s.getOutputStream()).writeInt(Integer.MAX_VALUE);
            assertEquals(-1, s.getInputStream().read(), "closed by the lane");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> transport.counters().laneRefused() == 1);
        System.gc(); // the registry holds a function counter's source weakly: the count must outlive a collection
        assertEquals(1, refused.count(), "the transport's count, in the node's meters");
        for (String name : new String[]{"sessionrep.transport.requests.unanswered", "sessionrep.transport.sends.dropped",
                "sessionrep.transport.held.dropped", "sessionrep.transport.receiver.failures",
                "sessionrep.transport.lane.not.handled", "sessionrep.transport.lane.pauses",
                "sessionrep.transport.lane.given.up"}) {
            assertNotNull(meters.find(name).tag("node", "a").functionCounter(), name);
        }
    }
}
