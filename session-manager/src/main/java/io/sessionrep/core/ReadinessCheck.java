package io.sessionrep.core;

import io.sessionrep.core.transport.Member;

import java.util.ArrayList;
import java.util.List;

/**
 * Computes a running node's {@link Readiness} from what it knows, without asking the network: its view, the
 * sessions it owns and their backups, the rebalancer's pending work and what the transport sees outside the view.
 * Reads every owned session (under its monitor, briefly): about as costly as the
 * {@code sessionrep.sessions.below.quota} gauge, meant for probes every few seconds, not for every request.
 */
final class ReadinessCheck {
    private final NodeState node;
    private final Rebalancer rebalancer;

    ReadinessCheck(NodeState node, Rebalancer rebalancer) {
        this.node = node;
        this.rebalancer = rebalancer;
    }

    Readiness check() {
        if (node.closed()) {
            return Readiness.notReady("stopped");
        }
        List<String> reasons = new ArrayList<>();
        List<Member> view = node.members();
        if (view.stream().noneMatch(m -> m.name().equals(node.self.name()))) {
            reasons.add("not in a cluster view");
        }
        int quota = node.config.writeQuota();
        if (quota > 0) {
            sessions(reasons, quota, view);
            if (rebalancer.settling()) {
                reasons.add("restoring write-quota " + quota + " after the last view change");
            }
            if (rebalancer.promotionsDeferred()) {
                reasons.add("sessions of a departed node wait to be promoted here: a member did not answer (tried"
                        + " again within " + SessionReplicator.MAINTENANCE_INTERVAL.toSeconds() + " s)");
            }
        }
        reasons.addAll(node.transport.partialClusterSigns());
        return Readiness.of(reasons);
    }

    /**
     * Sessions with fewer backups than the view allows, and sessions whose former backups wait for a new one to
     * confirm its copy. Not counted: sessions not replicated yet (their first request has not ended) and sessions
     * larger than max-session-size (never replicated).
     */
    private void sessions(List<String> reasons, int quota, List<Member> view) {
        int below = 0;
        int confirming = 0;
        for (PrimaryEntry entry : node.primaries.values()) {
            synchronized (entry) {
                if (entry.ownership.isGone() || entry.copy.version() == 0
                        || entry.copy.valueBytes() > node.config.maxSessionSize()) {
                    continue;
                }
                List<Member> targets = node.placement.backups(entry.copy.sessionId(), node.self, view);
                int held = 0;
                for (Member target : targets) {
                    if (entry.syncedBackups.contains(target.name()) && !BackupRefusals.refusing(entry, target.name())) {
                        held++;
                    }
                }
                if (held < targets.size()) {
                    below++;
                }
                if (!entry.formerBackups.isEmpty() || !entry.confirming.isEmpty()) {
                    confirming++;
                }
            }
        }
        if (below > 0) {
            reasons.add(sessions(below) + " owned here " + (below == 1 ? "has" : "have") + " fewer backups than the"
                    + " view allows (write-quota " + quota + ")");
        }
        if (confirming > 0) {
            reasons.add(sessions(confirming) + " " + (confirming == 1 ? "waits" : "wait") + " for a new backup to"
                    + " confirm its copy (the former backups keep theirs until then)");
        }
    }

    private static String sessions(int count) {
        return count + (count == 1 ? " session" : " sessions");
    }
}
