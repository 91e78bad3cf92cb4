package io.sessionrep.transport.jgroups;

import io.sessionrep.core.ContractNetwork;
import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;

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
    private final List<HostPort> started = new ArrayList<>();

    GrowingStaticCluster(String namePrefix) {
        this(namePrefix, null);
    }

    private GrowingStaticCluster(String namePrefix, String clusterKey) {
        this.clusterName = namePrefix + "-" + UUID.randomUUID();
        this.clusterKey = clusterKey;
    }

    /** Every message sealed with {@code cluster-key}. */
    static GrowingStaticCluster sealed(String namePrefix) {
        return new GrowingStaticCluster(namePrefix, "the-shared-secret-of-this-cluster");
    }

    @Override
    public ReplicationConfig.Builder nodeOptions(String name, ReplicationConfig.Builder options) {
        ReplicationConfig.Builder node = nextNode(options);
        return clusterKey == null ? node : node.clusterKey(clusterKey);
    }

    @Override
    public ReplicationTransport transport(ReplicationConfig config) {
        return new JGroupsTransport(config);
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
