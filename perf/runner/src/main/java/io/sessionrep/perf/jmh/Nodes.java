package io.sessionrep.perf.jmh;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.SessionEvents;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.transport.ForwardingTransport;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.core.wire.ProtocolRange;
import io.sessionrep.core.wire.WireCodec;
import io.sessionrep.transport.jgroups.JGroupsTransport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Two {@link SessionReplicator}s (a primary and its backup) in the benchmark JVM, over real JGroups on
 * 127.0.0.1 (the product's TCP stack, static discovery) or over the core's in-memory test transport.
 */
final class Nodes implements AutoCloseable {

    final SessionReplicator primary;
    final SessionReplicator backup;

    private Nodes(SessionReplicator primary, SessionReplicator backup) {
        this.primary = primary;
        this.backup = backup;
    }

    static Nodes start(String transport, String mode) throws InterruptedException {
        return start(transport, mode, WireCodec.CURRENT);
    }

    /**
     * {@code protocol}: the wire protocol the backup states it reads; 2 makes the primary write what the release
     * before this one reads (values in field order), as it does while such a node is in its view.
     */
    static Nodes start(String transport, String mode, int protocol) throws InterruptedException {
        // the benchmark's own start/stop messages (views, quota warnings while the second node joins) are noise here
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.SEVERE);
        String cluster = "jmh-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        int[] ports = freePorts();
        ReplicationConfig a = config("bench-a", cluster, mode, ports[0], ports[1]);
        ReplicationConfig b = config("bench-b", cluster, mode, ports[1], ports[0]);
        ReplicationTransport ta;
        ReplicationTransport tb;
        ProtocolRange backupReads = new ProtocolRange(WireCodec.OLDEST_READ, protocol);
        if (transport.equals("jgroups")) {
            ta = new JGroupsTransport(a);
            tb = new JGroupsTransport(b, backupReads);
        } else {
            InMemoryNetwork network = new InMemoryNetwork();
            InMemoryNetwork.Node backupNode = network.transport("bench-b", "bench-b");
            ta = new ForwardingTransport(network.transport("bench-a", "bench-a")) {
                @Override
                public ProtocolRange protocolsOf(io.sessionrep.core.transport.Member member) {
                    return member.name().equals("bench-b") ? backupReads : super.protocolsOf(member);
                }
            };
            tb = new ForwardingTransport(backupNode) {
                @Override
                public ProtocolRange protocolsOf(io.sessionrep.core.transport.Member member) {
                    return member.name().equals("bench-b") ? backupReads : super.protocolsOf(member);
                }
            };
        }
        ClassLoader loader = Nodes.class.getClassLoader();
        SessionReplicator primary = SessionReplicator.start(a, ta, loader, new SimpleMeterRegistry(), SessionEvents.NONE);
        SessionReplicator backup = SessionReplicator.start(b, tb, loader, new SimpleMeterRegistry(), SessionEvents.NONE);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (primary.members().size() < 2 || backup.members().size() < 2) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the two benchmark nodes did not see each other: " + primary.members());
            }
            Thread.sleep(20);
        }
        return new Nodes(primary, backup);
    }

    private static ReplicationConfig config(String name, String cluster, String mode, int port, int peerPort) {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("node-name", name);
        o.put("machine-id", name);
        o.put("cluster-name", cluster);
        o.put("discovery", "static");
        o.put("bind-address", "127.0.0.1");
        o.put("bind-port", Integer.toString(port));
        o.put("peers", "127.0.0.1:" + peerPort);
        o.put("replication-mode", mode);
        o.put("write-quota", "1");
        o.put("serialization-allowlist", "io.sessionrep.perf.jmh.");
        return ReplicationConfig.fromMap(o);
    }

    private static int[] freePorts() {
        int[] ports = new int[2];
        for (int i = 0; i < 2; i++) {
            do {
                try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    ports[i] = s.getLocalPort();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            } while (ports[i] > 65_000 - 200 || (i == 1 && ports[1] == ports[0]));
        }
        return ports;
    }

    /** Appends a line to the side file the runner reads (system property perf.jmh.out), if set. */
    static void sideResult(String line) {
        String dir = System.getProperty("perf.jmh.out");
        if (dir == null) {
            System.out.println("side result: " + line);
            return;
        }
        try {
            Path file = Path.of(dir, "side-results.tsv");
            Files.createDirectories(file.getParent());
            Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        primary.close();
        backup.close();
    }
}
