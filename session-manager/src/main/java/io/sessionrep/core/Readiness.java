package io.sessionrep.core;

import java.util.List;
import java.util.Objects;

/**
 * Whether a node is settled in its cluster, as a balancer, an orchestrator or an operator rolling the cluster
 * one node at a time needs to know: "may this node take traffic, and may the next node be stopped?". A
 * running node is ready when all of these hold ({@link ReplicationNode#readiness()}):
 * <ul>
 *   <li>it is started, not stopping, and in a cluster view;</li>
 *   <li>every session it owns has as many backups as the view allows: {@code write-quota}, or fewer when the
 *       view has fewer eligible members (best effort, so a node alone or a two-node cluster with write-quota 2 is
 *       ready); a session is counted from its first replication, and one larger than {@code max-session-size}
 *       (never replicated) is not counted;</li>
 *   <li>no rebalancing work is pending: the pass that restores copies after the last view change has ended (the
 *       copies it queued have left the node), no
 *       session waits for a new backup to confirm its copy (the former backups are kept until then), and no
 *       session of a departed node waits to be promoted here;</li>
 *   <li>its transport does not see that the node is in a partial cluster (for example a configured peer that
 *       is up but not in the view, or a node of the same cluster answering from another view:
 *       {@link io.sessionrep.core.transport.ReplicationTransport#partialClusterSigns()}).</li>
 * </ul>
 *
 * @param ready   true when every condition holds
 * @param reasons why the node is not ready, one sentence per condition that fails, in words an operator
 *                understands ("2 sessions owned here have fewer backups than the view allows (write-quota 2)");
 *                empty exactly when {@code ready}
 */
public record Readiness(boolean ready, List<String> reasons) {

    /** A node with nothing against it. */
    public static final Readiness READY = new Readiness(true, List.of());

    public Readiness {
        reasons = List.copyOf(Objects.requireNonNull(reasons, "reasons"));
        if (ready != reasons.isEmpty()) {
            throw new IllegalArgumentException(ready ? "a ready node has no reasons against it, got " + reasons
                    : "a node that is not ready needs a reason");
        }
    }

    /** Ready when {@code reasons} is empty, else not ready for those reasons. */
    public static Readiness of(List<String> reasons) {
        return reasons.isEmpty() ? READY : new Readiness(false, reasons);
    }

    /** Not ready for one reason. */
    public static Readiness notReady(String reason) {
        return new Readiness(false, List.of(reason));
    }

    /** {@code ready}, or {@code not ready: } and the reasons separated by {@code ; }. */
    @Override
    public String toString() {
        return ready ? "ready" : "not ready: " + String.join("; ", reasons);
    }
}
