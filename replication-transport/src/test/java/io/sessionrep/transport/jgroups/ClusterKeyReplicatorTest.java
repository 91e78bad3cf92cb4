package io.sessionrep.transport.jgroups;

import io.sessionrep.core.FailOverContract;
import io.sessionrep.core.InvalidationExpiryContract;
import io.sessionrep.core.LimitsContract;
import io.sessionrep.core.MembershipContract;
import io.sessionrep.core.ReplicationBasicsContract;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/**
 * The core's replicator contracts over real JGroups channels whose every message is sealed by
 * {@code cluster-key}: sealing changes nothing the core relies on (ordering, batching, fragmentation,
 * membership, fail-over).
 */
class ClusterKeyReplicatorTest {
    @Nested
    class ReplicationBasics extends ReplicationBasicsContract {
        ReplicationBasics() {
            super(GrowingStaticCluster.sealed("sealed"));
        }
    }

    @Nested
    @Tag("extended")
    class FailOver extends FailOverContract {
        FailOver() {
            super(GrowingStaticCluster.sealed("sealed"));
        }
    }

    @Nested
    @Tag("extended")
    class Membership extends MembershipContract {
        Membership() {
            super(GrowingStaticCluster.sealed("sealed"));
        }
    }

    @Nested
    @Tag("extended")
    class InvalidationExpiry extends InvalidationExpiryContract {
        InvalidationExpiry() {
            super(GrowingStaticCluster.sealed("sealed"));
        }
    }

    @Nested
    @Tag("extended")
    class Limits extends LimitsContract {
        Limits() {
            super(GrowingStaticCluster.sealed("sealed"));
        }
    }
}
