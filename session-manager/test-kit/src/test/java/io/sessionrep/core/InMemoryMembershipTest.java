package io.sessionrep.core;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.transport.ReplicationTransport;

/** {@link MembershipContract} (rebalance and membership) over the in-memory network (fast; the JGroups runs are in replication-transport). */
class InMemoryMembershipTest extends MembershipContract {
    private final InMemoryNetwork network = new InMemoryNetwork();

    @Override
    protected ReplicationConfig.Builder networkOptions(String name, ReplicationConfig.Builder options) {
        return options;
    }

    @Override
    protected ReplicationTransport newTransport(ReplicationConfig config) {
        return network.transport(config.nodeName(), config.machineId());
    }
}
