package io.sessionrep.transport.jgroups;

import io.sessionrep.core.MembershipContract;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;

/**
 * {@link MembershipContract} (rebalance and membership) over real JGroups channels on 127.0.0.1: static discovery, each node
 * listing the nodes started before it.
 */
class JGroupsMembershipTest extends MembershipContract {
    private final GrowingStaticCluster cluster = new GrowingStaticCluster("contract");

    @Override
    protected ReplicationConfig.Builder networkOptions(String name, ReplicationConfig.Builder options) {
        return cluster.nextNode(options);
    }

    @Override
    protected ReplicationTransport newTransport(ReplicationConfig config) {
        return new JGroupsTransport(config);
    }
}
