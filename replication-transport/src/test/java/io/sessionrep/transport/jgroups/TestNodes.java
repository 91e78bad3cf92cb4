package io.sessionrep.transport.jgroups;

import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Builds configurations for test nodes on 127.0.0.1 and keeps track of the transports to close. */
public final class TestNodes implements AutoCloseable {

    public static final String LOOPBACK = "127.0.0.1";
    /** FD_SOCK2 listens at the transport port + 100 (+ up to 3): test ports keep that range free too. */

    public final String clusterName = "test-" + UUID.randomUUID();
    private final List<JGroupsTransport> transports = new ArrayList<>();

    /** A static-discovery configuration: {@code node-name = name}, machine {@code name + "-host"}. */
    public ReplicationConfig staticNode(String name, int port, int... peerPorts) {
        return staticNodeOptions(name, port, peerPorts).build();
    }

    /** {@link #staticNode}'s options, for a test that sets more of them. */
    public ReplicationConfig.Builder staticNodeOptions(String name, int port, int... peerPorts) {
        List<HostPort> peers = new ArrayList<>();
        for (int peer : peerPorts) {
            peers.add(new HostPort(LOOPBACK, peer));
        }
        return ReplicationConfig.builder().nodeName(name).machineId(name + "-host").clusterName(clusterName)
                .discovery(DiscoveryMode.STATIC).bindAddress(LOOPBACK).bindPort(port).peers(peers);
    }

    public JGroupsTransport start(ReplicationConfig config, io.sessionrep.core.transport.MessageReceiver receiver) {
        JGroupsTransport transport = track(new JGroupsTransport(config));
        transport.start(receiver);
        return transport;
    }

    public record Pair(JGroupsTransport a, JGroupsTransport b) {
    }

    /** The member of {@code t}'s view that is not {@code t} (in a pair: the other node). */
    public static io.sessionrep.core.transport.Member other(JGroupsTransport t) {
        return t.members().stream().filter(m -> !m.equals(t.localMember())).findFirst().orElseThrow();
    }

    /** Two static nodes "a" and "b" on free ports that list each other, started and seeing each other. */
    public Pair startPair(RecordingReceiver onA, RecordingReceiver onB) throws IOException {
        return startPair(onA, onB, options -> options);
    }

    /** As {@link #startPair(RecordingReceiver, RecordingReceiver)}, with {@code options} set on each node's {@link #staticNodeOptions}. */
    public Pair startPair(RecordingReceiver onA, RecordingReceiver onB,
                          java.util.function.UnaryOperator<ReplicationConfig.Builder> options) throws IOException {
        int[] ports = freePorts(2);
        JGroupsTransport a = start(options.apply(staticNodeOptions("a", ports[0], ports[1])).build(), onA);
        JGroupsTransport b = start(options.apply(staticNodeOptions("b", ports[1], ports[0])).build(), onB);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20))
                .until(() -> a.members().size() == 2 && b.members().size() == 2);
        return new Pair(a, b);
    }

    /**
     * Whether a lane closed {@code s}: the end of its stream, or a reset when it closed with bytes of ours unread (a TLS
     * lane may send an alert first, which is read past).
     */
    public static boolean closedByTheLane(java.net.Socket s) {
        return closedByTheLane(s, java.time.Duration.ofSeconds(5));
    }

    /** As {@link #closedByTheLane(java.net.Socket)}, waiting at most {@code within}. */
    public static boolean closedByTheLane(java.net.Socket s, java.time.Duration within) {
        try {
            s.setSoTimeout((int) within.toMillis());
            java.io.InputStream in = s.getInputStream();
            for (int i = 0; i < 4096; i++) {
                if (in.read() == -1) {
                    return true;
                }
            }
            return false;
        } catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException closed) {
            return true;
        }
    }

    public JGroupsTransport track(JGroupsTransport transport) {
        transports.add(transport);
        return transport;
    }

    public List<JGroupsTransport> started() {
        return List.copyOf(transports);
    }

    @Override
    public void close() {
        for (int i = transports.size() - 1; i >= 0; i--) {
            transports.get(i).close();
        }
    }

    /** {@code count} distinct ports that are free now, each with its failure-detection port free too. */
    public static int[] freePorts(int count) throws IOException {
        return io.sessionrep.testsupport.FreePorts.onLoopback(count);
    }
}
