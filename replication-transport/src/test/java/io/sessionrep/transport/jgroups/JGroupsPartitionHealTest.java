package io.sessionrep.transport.jgroups;

import io.sessionrep.core.PartitionHealContract;
import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.Tag;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Partition and heal (see {@link PartitionHealContract}) over real JGroups channels on 127.0.0.1, with the
 * product's stack (static discovery, every node listing the others). The split is made with JGroups' own
 * DISCARD protocol, inserted right above the transport of every channel: each node drops everything it
 * receives from the other side (discovery, heartbeats, merge probes, replication), so failure detection
 * (FD_ALL3, about 10 s) installs a view per side; the heal clears the filters and MERGE3 merges the views.
 */
@Tag("extended")
class JGroupsPartitionHealTest extends PartitionHealContract {
    private static final List<String> NAMES = List.of("a", "b", "c");

    private final String clusterName = "partition-" + UUID.randomUUID();
    private final Map<String, Integer> ports = new HashMap<>();
    private final Map<String, JGroupsTransport> transports = new HashMap<>();
    private final Map<String, DISCARD> discards = new HashMap<>();

    JGroupsPartitionHealTest() throws IOException {
        int[] free = TestNodes.freePorts(NAMES.size());
        for (int i = 0; i < NAMES.size(); i++) {
            ports.put(NAMES.get(i), free[i]);
        }
    }

    @Override
    protected ReplicationConfig.Builder networkOptions(String name, ReplicationConfig.Builder options) {
        List<HostPort> peers = new ArrayList<>();
        for (String other : NAMES) {
            if (!other.equals(name)) {
                peers.add(new HostPort(TestNodes.LOOPBACK, ports.get(other)));
            }
        }
        return options.clusterName(clusterName).discovery(DiscoveryMode.STATIC).bindAddress(TestNodes.LOOPBACK)
                .bindPort(ports.get(name)).peers(peers);
    }

    @Override
    protected ReplicationTransport newTransport(ReplicationConfig config) {
        JGroupsTransport transport = new JGroupsTransport(config);
        transports.put(config.nodeName(), transport);
        return transport;
    }

    @Override
    protected void split(List<Set<String>> sides) throws Exception {
        Map<String, Address> addresses = new HashMap<>();
        transports.forEach((name, t) -> addresses.put(name, t.channel().getAddress()));
        for (Set<String> side : sides) {
            for (String name : side) {
                DISCARD discard = discard(name);
                for (Map.Entry<String, Address> other : addresses.entrySet()) {
                    if (!side.contains(other.getKey())) {
                        discard.addIgnoreMember(other.getValue());
                    }
                }
            }
        }
    }

    @Override
    protected void heal() {
        discards.values().forEach(DISCARD::resetIgnoredMembers);
    }

    /** The DISCARD protocol of {@code name}'s channel, inserted above the transport on first use. */
    private DISCARD discard(String name) throws Exception {
        DISCARD existing = discards.get(name);
        if (existing != null) {
            return existing;
        }
        JChannel channel = transports.get(name).channel();
        DISCARD discard = new DISCARD();
        channel.getProtocolStack().insertProtocol(discard, ProtocolStack.Position.ABOVE, TP.class);
        discards.put(name, discard);
        return discard;
    }
}
