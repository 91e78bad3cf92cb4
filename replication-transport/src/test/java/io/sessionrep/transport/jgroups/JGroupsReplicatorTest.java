package io.sessionrep.transport.jgroups;

import io.sessionrep.core.FailOverContract;
import io.sessionrep.core.HandOverContract;
import io.sessionrep.core.InvalidationExpiryContract;
import io.sessionrep.core.LimitsContract;
import io.sessionrep.core.MembershipContract;
import io.sessionrep.core.ReplicationBasicsContract;
import org.junit.jupiter.api.Nested;

/**
 * The core's replicator contracts over real JGroups channels on 127.0.0.1 (static discovery, each node
 * listing the nodes started before it). Each nested class is one contract, each test on a fresh cluster.
 */
class JGroupsReplicatorTest {
    @Nested
    class ReplicationBasics extends ReplicationBasicsContract {
        ReplicationBasics() {
            super(new GrowingStaticCluster("contract"));
        }
    }

    @Nested
    class FailOver extends FailOverContract {
        FailOver() {
            super(new GrowingStaticCluster("contract"));
        }
    }

    @Nested
    class Membership extends MembershipContract {
        Membership() {
            super(new GrowingStaticCluster("contract"));
        }
    }

    @Nested
    class InvalidationExpiry extends InvalidationExpiryContract {
        InvalidationExpiry() {
            super(new GrowingStaticCluster("contract"));
        }
    }

    @Nested
    class Limits extends LimitsContract {
        Limits() {
            super(new GrowingStaticCluster("contract"));
        }
    }

    @Nested
    class HandOver extends HandOverContract {
        HandOver() {
            super(new GrowingStaticCluster("handover"));
        }
    }
}
