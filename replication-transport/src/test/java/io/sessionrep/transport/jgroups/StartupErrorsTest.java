package io.sessionrep.transport.jgroups;

import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.TransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** start() fails with a message that names the option to fix, and leaves nothing open behind. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StartupErrorsTest {

    private final TestNodes nodes = new TestNodes();

    @AfterEach
    void closeNodes() {
        nodes.close();
    }

    @Test
    void bindPortInUseIsNamedWithThePort() throws Exception {
        int port = TestNodes.freePorts(1)[0];
        try (ServerSocket occupant = new ServerSocket(port, 1, InetAddress.getByName(TestNodes.LOOPBACK))) {
            JGroupsTransport transport = nodes.track(new JGroupsTransport(nodes.staticNode("a", port)));

            TransportException e = assertThrows(TransportException.class, () -> transport.start(new RecordingReceiver()));

            assertTrue(e.getMessage().startsWith("bind-port: " + port), e.getMessage());
            assertTrue(transport.members().isEmpty());
            assertThrows(IllegalStateException.class, () -> transport.start(new RecordingReceiver()),
                    "a failed transport is not restartable");
        }
    }

    @Test
    void freedPortCanBeUsedByANewTransportAfterAFailedStart() throws Exception {
        int port = TestNodes.freePorts(1)[0];
        try (ServerSocket occupant = new ServerSocket(port, 1, InetAddress.getByName(TestNodes.LOOPBACK))) {
            JGroupsTransport failed = nodes.track(new JGroupsTransport(nodes.staticNode("a", port)));
            assertThrows(TransportException.class, () -> failed.start(new RecordingReceiver()));
        }
        JGroupsTransport retry = nodes.start(nodes.staticNode("a", port), new RecordingReceiver());
        assertTrue(retry.boundAddress().getPort() == port);
    }

    @Test
    void unresolvablePeerIsNamedWithTheHost() {
        ReplicationConfig config = ReplicationConfig.builder().nodeName("a").clusterName(nodes.clusterName)
                .discovery(DiscoveryMode.STATIC).bindAddress(TestNodes.LOOPBACK)
                .peers(List.of(new HostPort("no-such-peer.invalid", 7800))).build();
        JGroupsTransport transport = nodes.track(new JGroupsTransport(config));

        TransportException e = assertThrows(TransportException.class, () -> transport.start(new RecordingReceiver()));

        assertTrue(e.getMessage().startsWith("peers:"), e.getMessage());
        assertTrue(e.getMessage().contains("no-such-peer.invalid"), e.getMessage());
    }
}
