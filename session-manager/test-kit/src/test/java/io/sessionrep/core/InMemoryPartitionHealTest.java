package io.sessionrep.core;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.transport.ReplicationTransport;

import java.util.List;
import java.util.Set;

/** Partition and heal over the in-memory network: views split and merge at once (the JGroups run is in replication-transport). */
class InMemoryPartitionHealTest extends PartitionHealContract {
    private final InMemoryNetwork network = new InMemoryNetwork();

    @Override
    protected ReplicationConfig.Builder networkOptions(String name, ReplicationConfig.Builder options) {
        return options;
    }

    @Override
    protected ReplicationTransport newTransport(ReplicationConfig config) {
        return network.transport(config.nodeName(), config.machineId());
    }

    @Override
    protected void split(List<Set<String>> sides) {
        network.partition(sides);
    }

    @Override
    protected void heal() {
        network.heal();
    }
}
