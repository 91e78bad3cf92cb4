package io.sessionrep.transport.jgroups;

import io.sessionrep.core.HandOverContract;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;

/**
 * The ownership protocol (see {@link HandOverContract}) over real JGroups channels on
 * 127.0.0.1: static discovery, each node listing the nodes started before it.
 */
class JGroupsHandOverTest extends HandOverContract {
    private final GrowingStaticCluster cluster = new GrowingStaticCluster("handover");

    @Override
    protected ReplicationConfig.Builder networkOptions(String name, ReplicationConfig.Builder options) {
        return cluster.nextNode(options);
    }

    @Override
    protected ReplicationTransport newTransport(ReplicationConfig config) {
        return new JGroupsTransport(config);
    }
}
