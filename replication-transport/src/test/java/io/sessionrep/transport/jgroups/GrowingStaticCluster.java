package io.sessionrep.transport.jgroups;

import io.sessionrep.core.ContractNetwork;
import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.core.wire.ProtocolRange;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The network of nodes that a contract test starts one after another on 127.0.0.1, over real JGroups
 * channels: static discovery, a cluster name of their own, each node on a free port listing the nodes
 * started before it; with a cluster key, every message sealed.
 */
final class GrowingStaticCluster implements ContractNetwork {
    private final String clusterName;
    private final String clusterKey;
    private final java.util.Map<String, ProtocolRange> releases;
    private final List<HostPort> started = new ArrayList<>();

    GrowingStaticCluster(String namePrefix) {
        this(namePrefix, null, java.util.Map.of());
    }

    private GrowingStaticCluster(String namePrefix, String clusterKey, java.util.Map<String, ProtocolRange> releases) {
        this.clusterName = namePrefix + "-" + UUID.randomUUID();
        this.clusterKey = clusterKey;
        this.releases = releases;
    }

    /**
     * The nodes named in {@code releases} state those wire protocols (a node of an older or a later release), the
     * others what this build reads.
     */
    static GrowingStaticCluster mixed(String namePrefix, java.util.Map<String, ProtocolRange> releases) {
        return new GrowingStaticCluster(namePrefix, null, releases);
    }

    /** Every message sealed with {@code cluster-key}. */
    static GrowingStaticCluster sealed(String namePrefix) {
        return new GrowingStaticCluster(namePrefix, "the-shared-secret-of-this-cluster", java.util.Map.of());
    }

    @Override
    public ReplicationConfig.Builder nodeOptions(String name, ReplicationConfig.Builder options) {
        ReplicationConfig.Builder node = nextNode(options);
        return clusterKey == null ? node : node.clusterKey(clusterKey);
    }

    @Override
    public ReplicationTransport transport(ReplicationConfig config) {
        return new JGroupsTransport(config, releases.getOrDefault(config.nodeName(), ProtocolRange.SUPPORTED));
    }

    /** {@code options} for the next node. */
    private ReplicationConfig.Builder nextNode(ReplicationConfig.Builder options) {
        int port;
        try {
            port = TestNodes.freePorts(1)[0];
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<HostPort> peers = List.copyOf(started);
        started.add(new HostPort(TestNodes.LOOPBACK, port));
        return options.clusterName(clusterName).bindAddress(TestNodes.LOOPBACK).bindPort(port).peers(peers);
    }
}
