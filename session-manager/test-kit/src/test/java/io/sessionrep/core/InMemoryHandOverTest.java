package io.sessionrep.core;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.transport.ReplicationTransport;

/** The ownership protocol over the in-memory network (the JGroups run is in replication-transport). */
class InMemoryHandOverTest extends HandOverContract {
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
