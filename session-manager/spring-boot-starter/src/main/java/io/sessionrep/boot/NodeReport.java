package io.sessionrep.boot;

import io.sessionrep.core.Readiness;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.transport.Member;

import java.util.List;

/**
 * This node's view of its cluster, as {@code /actuator/sessionrep} shows it.
 *
 * @param node               this node's name (the route suffix of its session ids)
 * @param cluster            the cluster name
 * @param members            the members of the current view, by name
 * @param sessionsOwned      sessions held here as primary
 * @param sessionsBackedUp   sessions of other nodes held here as backup copies
 * @param sessionsBelowQuota owned sessions with fewer backups than write-quota
 * @param ready              whether the node is settled in its cluster
 * @param notReadyReasons    why not (empty when ready)
 */
public record NodeReport(String node, String cluster, List<String> members, int sessionsOwned,
                         int sessionsBackedUp, int sessionsBelowQuota, boolean ready, List<String> notReadyReasons) {

    /** The report of {@code node} now. */
    public static NodeReport of(LocalNode node) {
        Readiness readiness = node.readiness();
        String name = node.settings().config().nodeName();
        String cluster = node.settings().config().clusterName();
        return node.replicator()
                .map(r -> running(r, name, cluster, readiness))
                .orElseGet(() -> new NodeReport(name, cluster, List.of(), 0, 0, 0, readiness.ready(),
                        readiness.reasons()));
    }

    private static NodeReport running(SessionReplicator replicator, String name, String cluster, Readiness readiness) {
        return new NodeReport(name, cluster, replicator.members().stream().map(Member::name).toList(),
                replicator.primaryCount(), replicator.backupCount(), replicator.sessionsBelowQuota(),
                readiness.ready(), readiness.reasons());
    }
}
