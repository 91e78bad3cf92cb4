package io.sessionrep.transport.jgroups;

import io.sessionrep.core.HandOverContract;
import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The ownership protocol (see {@link HandOverContract}) over real JGroups channels on
 * 127.0.0.1: static discovery, each node listing the nodes started before it.
 */
class JGroupsHandOverTest extends HandOverContract {
    private final String clusterName = "contract-" + UUID.randomUUID();
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
        return options.clusterName(clusterName).bindAddress(TestNodes.LOOPBACK).bindPort(port).peers(peers);
    }

    @Override
    protected ReplicationTransport newTransport(ReplicationConfig config) {
        return new JGroupsTransport(config);
    }
}
