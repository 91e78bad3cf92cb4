package io.sessionrep.transport.jgroups;

import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The network options of nodes that a contract test starts one after another on 127.0.0.1: static
 * discovery, a cluster name of their own, each node on a free port listing the nodes started before it.
 */
final class GrowingStaticCluster {
    private final String clusterName;
    private final List<HostPort> started = new ArrayList<>();

    GrowingStaticCluster(String namePrefix) {
        this.clusterName = namePrefix + "-" + UUID.randomUUID();
    }

    /** {@code options} for the next node. */
    ReplicationConfig.Builder nextNode(ReplicationConfig.Builder options) {
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
