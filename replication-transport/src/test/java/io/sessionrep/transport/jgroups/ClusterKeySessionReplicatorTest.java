package io.sessionrep.transport.jgroups;

import io.sessionrep.core.SessionReplicatorContract;
import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The core's replication contract over real JGroups channels whose every message is sealed by
 * {@code cluster-key}: sealing changes nothing the core relies on (ordering, batching, fragmentation,
 * membership, fail-over).
 */
class ClusterKeySessionReplicatorTest extends SessionReplicatorContract {
    private final String clusterName = "sealed-" + UUID.randomUUID();
    private final List<HostPort> started = new ArrayList<>();

    @Override
    protected ReplicationConfig.Builder networkOptions(String name, ReplicationConfig.Builder options) {
        int port;
        try {
            port = TestNodes.freePorts(1)[0];
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<HostPort> peers = List.copyOf(started);
        started.add(new HostPort(TestNodes.LOOPBACK, port));
        return options.clusterName(clusterName).bindAddress(TestNodes.LOOPBACK).bindPort(port).peers(peers)
                .clusterKey("the-shared-secret-of-this-cluster");
    }

    @Override
    protected ReplicationTransport newTransport(ReplicationConfig config) {
        return new JGroupsTransport(config);
    }
}
