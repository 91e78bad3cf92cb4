package io.sessionrep.core;

import org.junit.jupiter.api.Nested;

/**
 * The core's replicator contracts over the in-memory network (fast; the JGroups runs are in
 * replication-transport). Each nested class is one contract, each test on a fresh network.
 */
class InMemoryReplicatorTest {
    @Nested
    class ReplicationBasics extends ReplicationBasicsContract {
        ReplicationBasics() {
            super(ContractNetwork.inMemory());
        }
    }

    @Nested
    class FailOver extends FailOverContract {
        FailOver() {
            super(ContractNetwork.inMemory());
        }
    }

    @Nested
    class Membership extends MembershipContract {
        Membership() {
            super(ContractNetwork.inMemory());
        }
    }

    @Nested
    class InvalidationExpiry extends InvalidationExpiryContract {
        InvalidationExpiry() {
            super(ContractNetwork.inMemory());
        }
    }

    @Nested
    class Limits extends LimitsContract {
        Limits() {
            super(ContractNetwork.inMemory());
        }
    }

    @Nested
    class HandOver extends HandOverContract {
        HandOver() {
            super(ContractNetwork.inMemory());
        }
    }
}
