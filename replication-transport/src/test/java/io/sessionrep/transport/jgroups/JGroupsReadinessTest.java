package io.sessionrep.transport.jgroups;

import io.sessionrep.core.ReadinessContract;

/** {@link ReadinessContract} over real JGroups channels on 127.0.0.1 (static discovery). */
class JGroupsReadinessTest extends ReadinessContract {
    JGroupsReadinessTest() {
        super(new GrowingStaticCluster("readiness"));
    }
}
