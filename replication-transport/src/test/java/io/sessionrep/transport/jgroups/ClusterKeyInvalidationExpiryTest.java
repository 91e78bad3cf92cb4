package io.sessionrep.transport.jgroups;

import io.sessionrep.core.InvalidationExpiryContract;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;

/**
 * {@link InvalidationExpiryContract} (invalidation and expiry) over real JGroups channels whose every message is sealed by
 * {@code cluster-key}: sealing changes nothing the core relies on (ordering, batching, fragmentation,
 * membership, fail-over).
 */
class ClusterKeyInvalidationExpiryTest extends InvalidationExpiryContract {
    private final GrowingStaticCluster cluster = new GrowingStaticCluster("sealed");

    @Override
    protected ReplicationConfig.Builder networkOptions(String name, ReplicationConfig.Builder options) {
        return cluster.nextNode(options).clusterKey("the-shared-secret-of-this-cluster");
    }

    @Override
    protected ReplicationTransport newTransport(ReplicationConfig config) {
        return new JGroupsTransport(config);
    }
}
