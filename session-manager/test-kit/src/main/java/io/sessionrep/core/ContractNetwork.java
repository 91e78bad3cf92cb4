package io.sessionrep.core;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.transport.ReplicationTransport;

/**
 * Where the nodes of a contract test meet: what a node's options need to join (ports, peers, cluster
 * name) and its transport. One instance per test: the in-memory network here, real JGroups channels in
 * replication-transport's tests.
 */
public interface ContractNetwork {
    /** Adds what the transport needs for the node called {@code name}. */
    ReplicationConfig.Builder nodeOptions(String name, ReplicationConfig.Builder options);

    /** A new, unstarted transport for {@code config}. */
    ReplicationTransport transport(ReplicationConfig config);

    /** This network with {@code node}'s transport wrapped by {@code wrap} (e.g. a path that hangs or fails). */
    default ContractNetwork wrapping(String node, java.util.function.UnaryOperator<ReplicationTransport> wrap) {
        ContractNetwork inner = this;
        return new ContractNetwork() {
            @Override
            public ReplicationConfig.Builder nodeOptions(String name, ReplicationConfig.Builder options) {
                return inner.nodeOptions(name, options);
            }

            @Override
            public ReplicationTransport transport(ReplicationConfig config) {
                ReplicationTransport transport = inner.transport(config);
                return config.nodeName().equals(node) ? wrap.apply(transport) : transport;
            }
        };
    }

    /** A fresh in-memory network (fast; for the core's own runs). */
    static ContractNetwork inMemory() {
        InMemoryNetwork network = new InMemoryNetwork();
        return new ContractNetwork() {
            @Override
            public ReplicationConfig.Builder nodeOptions(String name, ReplicationConfig.Builder options) {
                return options;
            }

            @Override
            public ReplicationTransport transport(ReplicationConfig config) {
                return network.transport(config.nodeName(), config.machineId());
            }
        };
    }
}
