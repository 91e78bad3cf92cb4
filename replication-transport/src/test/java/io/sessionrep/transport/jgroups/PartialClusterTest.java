package io.sessionrep.transport.jgroups;

import io.sessionrep.core.config.ReplicationConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link JGroupsTransport#partialClusterSigns()} over real channels on 127.0.0.1: what the transport reports when
 * its node is in a partial cluster, and that a peer that is down, or up but never joining, does not keep it
 * unready.
 */
@Timeout(120)
class PartialClusterTest {
    /** Checks and probes every 200 ms; a peer that accepts connections but never joins is given up after 3 s. */
    private static final PartialClusterWatch.Timing FAST = new PartialClusterWatch.Timing(
            PartialClusterWatch.Timing.DEFAULT.evidenceMillis(), PartialClusterWatch.Timing.DEFAULT.departedGraceMillis(),
            200, 200, 3_000);

    private final TestNodes nodes = new TestNodes();

    @AfterEach
    void close() {
        nodes.close();
    }

    private JGroupsTransport start(ReplicationConfig config) {
        JGroupsTransport transport = nodes.track(new JGroupsTransport(config, FAST));
        transport.start(new RecordingReceiver());
        return transport;
    }

    /**
     * a starts while b is down and founds a view of its own; b starts listing nobody and founds another. a sees at
     * once that its configured peer is up and not in its view; b, which lists no peer, hears of a when a's MERGE3
     * looks for other subgroups (every 1 to 3 s). Once MERGE3 has merged the two views, neither sees a sign.
     */
    @Test
    void twoViewsOfOneClusterAreSignsOnBothSidesUntilTheyMerge() throws Exception {
        int[] ports = TestNodes.freePorts(2);
        JGroupsTransport a = start(nodes.staticNode("a", ports[0], ports[1]));
        assertEquals(1, a.members().size());
        assertEquals(List.of(), a.partialClusterSigns(), "b is down: no sign");

        JGroupsTransport b = start(nodes.staticNode("b", ports[1]));
        assertEquals(1, b.members().size(), "b lists nobody: a view of its own");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertEquals(
                List.of("configured peer 127.0.0.1:" + ports[1] + " is up (accepts connections) but not in this node's view"),
                a.partialClusterSigns()));
        await().atMost(Duration.ofSeconds(30)).until(() -> b.members().size() == 2
                || b.partialClusterSigns().stream().anyMatch(s -> s.startsWith("1 node of this cluster answers from"
                + " another view: a (127.0.0.1:" + ports[0] + ")")));
        assertEquals(1, b.members().size(), "merged before b heard of a: the test saw nothing (run it again)");

        await().atMost(Duration.ofSeconds(60)).until(() -> a.members().size() == 2 && b.members().size() == 2);
        await().atMost(Duration.ofSeconds(5)).until(() -> a.partialClusterSigns().isEmpty()
                && b.partialClusterSigns().isEmpty());
    }

    @Test
    void aConfiguredPeerThatIsDownIsNoSign() throws Exception {
        // a port held by a socket that never listens: refused, and no other process can take it meanwhile
        try (Socket holder = new Socket()) {
            holder.bind(new InetSocketAddress(TestNodes.LOOPBACK, 0));
            int[] ports = TestNodes.freePorts(1);
            JGroupsTransport a = start(nodes.staticNode("a", ports[0], holder.getLocalPort()));
            for (int i = 0; i < 10; i++) { // 2 s: ten checks, each probing the peer
                Thread.sleep(200);
                assertEquals(List.of(), a.partialClusterSigns());
            }
        }
    }

    /**
     * A configured peer whose port accepts connections but that never joins nor answers as a member of another view
     * (here a plain server socket: a hung process, or something else on that port) is a sign for a bounded time.
     */
    @Test
    void aConfiguredPeerThatIsUpButNeverJoinsIsGivenUp() throws Exception {
        try (ServerSocket stranger = new ServerSocket(0, 50, InetAddress.getByName(TestNodes.LOOPBACK))) {
            int[] ports = TestNodes.freePorts(1);
            long started = System.nanoTime();
            JGroupsTransport a = start(nodes.staticNode("a", ports[0], stranger.getLocalPort()));
            String sign = "configured peer 127.0.0.1:" + stranger.getLocalPort()
                    + " is up (accepts connections) but not in this node's view";
            await().atMost(Duration.ofSeconds(2)).until(() -> a.partialClusterSigns().equals(List.of(sign)));
            await().atMost(Duration.ofSeconds(10)).until(() -> a.partialClusterSigns().isEmpty());
            long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();
            assertTrue(millis >= FAST.peerGiveUpMillis(), "given up after " + millis + " ms");
            Thread.sleep(1_000);
            assertEquals(List.of(), a.partialClusterSigns(), "given up for good");
        }
    }
}
