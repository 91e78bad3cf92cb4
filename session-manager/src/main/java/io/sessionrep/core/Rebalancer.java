package io.sessionrep.core;

import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.store.BackupStore;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.Message;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Restores the write-quota after a membership change, in the background, without touching request
 * threads: when a backup leaves, owned sessions get a full copy on their new backup; when a node joins,
 * it receives the sessions it now backs up and the former backups are released; when a primary leaves,
 * the first surviving backup of each of its sessions promotes its copy to primary (and re-replicates it),
 * so quota is restored before the next request instead of at it. The pace follows the async queue:
 * a pass waits while the queue is more than half full, so it never causes drops of request updates.
 */
final class Rebalancer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Rebalancer.class.getName());

    /** Full copies sent by a pass and not yet acknowledged, at most. */
    static final int MAX_IN_FLIGHT = 256;

    private final NodeState node;
    private final TakeOver takeOver;
    private final AcknowledgedSend acknowledged;
    private final MergeReconciler reconciler;
    private final java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(MAX_IN_FLIGHT);
    private final AtomicBoolean viewChangedSincePass = new AtomicBoolean();
    private final ExecutorService worker;
    private final AtomicBoolean passRequested = new AtomicBoolean();
    /** View changes seen, and how many of them a completed pass had seen when it started (readiness). */
    private final java.util.concurrent.atomic.AtomicLong viewChanges = new java.util.concurrent.atomic.AtomicLong();
    private volatile long settledViewChanges;
    /** The last pass queued copies that the async sender had not handed to the transport when it ended. */
    private boolean copiesUnsent;
    /** The last pass left promotions for later: a member did not say which copy it holds (readiness). */
    private volatile boolean promotionsDeferred;
    private volatile String lastQuotaWarning = "";
    private volatile long lastPassMillis = -1;
    private volatile int lastPassCopies;

    Rebalancer(NodeState node, TakeOver takeOver, AcknowledgedSend acknowledged) {
        this.node = node;
        this.takeOver = takeOver;
        this.acknowledged = acknowledged;
        this.reconciler = new MergeReconciler(node, takeOver::forgetMisses);
        this.worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "sessionrep-rebalance-" + node.self.name());
            t.setDaemon(true);
            return t;
        });
    }

    /** The view changed: warn if the quota cannot be met, then rebalance in the background. */
    void viewChanged() {
        viewChanges.incrementAndGet();
        reconciler.viewChanged(node.members());
        warnIfQuotaUnmet();
        viewChangedSincePass.set(true);
        requestPass();
    }

    void requestPass() {
        if (node.config.writeQuota() > 0 && passRequested.compareAndSet(false, true)) {
            try {
                worker.execute(this::pass);
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                passRequested.set(false);
            }
        }
    }

    private void pass() {
        try {
            passOnce();
        } catch (Throwable e) { // the worker must survive anything; the next view change or maintenance retries
            node.metrics.failed.increment();
            LOG.log(System.Logger.Level.WARNING, "rebalancing pass failed; retried at the next pass", e);
        }
    }

    private void passOnce() {
        passRequested.set(false);
        long seenViewChanges = viewChanges.get();
        long started = System.nanoTime();
        reconciler.reconcile(); // members joined (a healed partition): settle sessions both sides hold
        if (viewChangedSincePass.getAndSet(false)) {
            dropStaleDormantSessions();
        }
        int promoted = promoteOrphans();
        int copies = 0;
        for (String id : new ArrayList<>(node.primaries.keySet())) {
            if (node.closed() || viewChangedSincePass.get()) {
                return; // a newer view arrived: the queued pass starts over
            }
            copies += restore(id);
        }
        // The copies this pass queued restore the write-quota only once they left: until the async sender has
        // handed them to the transport, the pass has not ended (readiness would let the next node stop first)
        if ((copies > 0 || promoted > 0 || copiesUnsent)
                && !node.sender.flush(node.config.ownershipTimeout().toMillis())) {
            copiesUnsent = true;
            requestPass(); // still queued: the pass is not over, the next one waits for them again
            return;
        }
        copiesUnsent = false;
        lastPassCopies = copies;
        lastPassMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        settledViewChanges = Math.max(settledViewChanges, seenViewChanges);
        if (copies > 0 || promoted > 0) {
            LOG.log(System.Logger.Level.INFO, "rebalanced after view change: " + promoted + " sessions promoted, "
                    + copies + " full copies queued to restore write-quota " + node.config.writeQuota() + " in "
                    + lastPassMillis + " ms");
        }
    }

    /**
     * After a view change (a merge, typically), sessions this node promoted while it could not see the
     * others are checked against the cluster: if another node holds a newer copy, ours is dropped.
     */
    private void dropStaleDormantSessions() {
        for (var e : List.copyOf(node.primaries.entrySet())) {
            PrimaryEntry entry = e.getValue();
            SessionUpdate mine;
            synchronized (entry) {
                if (!entry.ownership.isDormant() || entry.ownership.isGone()) {
                    continue;
                }
                mine = entry.fullCopy(node.attributes, true);
            }
            if (mine == null) {
                continue;
            }
            SessionUpdate newest = takeOver.fetchNewest(e.getKey(), mine);
            if (newest != null && newest != mine && newest.toVersion() >= mine.toVersion()) {
                node.dropPrimary(e.getKey());
                LOG.log(System.Logger.Level.INFO, "dropped promoted session " + LogIds.shortForm(e.getKey()) + " at version "
                        + mine.toVersion() + ": another node holds version " + newest.toVersion());
            }
        }
    }

    /**
     * Sessions whose primary left become ours when this node is their first surviving backup, or when it holds a
     * copy outside the placement and no node that ranks before it holds one: a copy kept by a former owner after a
     * hand-over, when the new owner died before its own backups had one, is then the only copy in the cluster, and
     * must get an owner and backups again before another node dies. Ranked: the owner's backups in placement
     * order, then the other holders by name.
     */
    private int promoteOrphans() {
        List<Member> view = node.members();
        int promoted = 0;
        boolean deferred = false;
        for (BackupStore.Backup backup : node.backups.all()) {
            if (node.closed()) {
                break;
            }
            if (node.isMember(backup.owner.name())) {
                continue;
            }
            String id = backup.copy.sessionId();
            List<Member> successors = node.placement.backups(id, backup.owner, view);
            boolean first = !successors.isEmpty() && successors.get(0).name().equals(node.self.name());
            // a later backup leaves it to the first one; a copy outside the placement (left by a hand-over) asks
            boolean leftOver = successors.stream().noneMatch(m -> m.name().equals(node.self.name()));
            if (first || leftOver) {
                // promote the newest copy in the cluster, not blindly ours: another holder may be fresher; and
                // not at all if a live node already serves it (a request took it over there meanwhile)
                TakeOver.Found found = takeOver.fetch(id, node.backups.fullCopy(id));
                if (!found.complete()) {
                    // a member did not say which copy it holds: it may hold a newer one. Not promoted now;
                    // the next pass (or a request, which waits for every member) takes it. The others would
                    // wait for the same member: this pass promotes no more.
                    LOG.log(System.Logger.Level.DEBUG, () -> "promotion of session " + LogIds.shortForm(id)
                            + " deferred: " + found.silent() + " did not answer");
                    deferred = true;
                    break;
                }
                SessionUpdate copy = found.newest();
                if (!first && outranked(successors, found.holders())) {
                    continue; // a holder that ranks before this node promotes it
                }
                if (copy != null && !found.servedElsewhere() && !node.tombstones.contains(id)
                        && node.primary(id) == null) {
                    waitForQueueRoom();
                    takeOver.becomePrimary(copy, false);
                    node.metrics.promotions.increment();
                    LOG.log(System.Logger.Level.DEBUG, () -> "promoted session " + LogIds.shortForm(id) + " from version " + copy.toVersion()
                            + " (own backup " + backup.copy.version() + ") after its primary " + backup.owner.name() + " left");
                    promoted++;
                }
            }
        }
        promotionsDeferred = deferred;
        return promoted;
    }

    /** Whether a node in {@code holders} (members holding a copy) ranks before this node for a promotion. */
    private boolean outranked(List<Member> successors, Set<String> holders) {
        String self = node.self.name();
        for (Member m : successors) {
            if (m.name().equals(self)) {
                return false;
            }
            if (holders.contains(m.name())) {
                return true;
            }
        }
        for (String holder : holders) {
            if (successors.stream().noneMatch(m -> m.name().equals(holder)) && holder.compareTo(self) < 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Brings one owned session to its current backups: a new backup (or, while former backups wait to be
     * released, an unconfirmed one) gets a full copy and must acknowledge it; once every chosen backup has,
     * the former backups are released. Returns the number of full copies sent.
     */
    private int restore(String id) {
        PrimaryEntry entry = node.primary(id);
        if (entry == null) {
            return 0;
        }
        waitForQueueRoom();
        List<Member> needCopy = new ArrayList<>();
        SessionUpdate full;
        synchronized (entry) {
            if (entry.ownership.isGone() || entry.copy.version() == 0 || entry.copy.valueBytes() > node.config.maxSessionSize()) {
                return 0;
            }
            List<Member> targets = node.backupsOf(id);
            Set<String> before = new HashSet<>(entry.syncedBackups);
            node.retarget(entry, targets);
            for (Member t : targets) {
                boolean isNew = !before.contains(t.name());
                boolean mustConfirm = !entry.formerBackups.isEmpty() && !entry.confirmedBackups.contains(t.name());
                if ((isNew || mustConfirm) && !entry.confirming.contains(t.name())) {
                    needCopy.add(t);
                }
            }
            if (needCopy.isEmpty()) {
                node.releaseFormersIfSafe(entry);
                return 0;
            }
            full = entry.fullCopyForBackup(node.attributes, false);
            if (full == null) {
                // a request uses the session right now: its request end sends them a full copy
                for (Member target : needCopy) {
                    entry.syncedBackups.remove(target.name());
                }
                return 0;
            }
            long version = full.toVersion();
            boolean rechosen = needCopy.stream().anyMatch(t -> entry.mustAcknowledge(t.name(), version));
            if (entry.formerBackups.isEmpty() && !rechosen) {
                // nothing waits for a confirmation (a backup left): the async queue is enough, and fastest.
                // Not for a node released at this version and chosen again (another backup left): it would
                // ignore a one-way copy as a late update, and the session would have no backup
                for (Member target : needCopy) {
                    BackupRefusals.ended(entry, target.name()); // a refusal of this copy marks it again
                    node.sender.enqueue(target, full);
                    node.metrics.rebalanced.increment();
                }
                return needCopy.size();
            }
            for (Member target : needCopy) {
                entry.confirming.add(target.name());
            }
        }
        for (Member target : needCopy) {
            acquireInFlight();
            node.metrics.rebalanced.increment();
            acknowledged.send(target, full, false).whenComplete((status, error) -> {
                inFlight.release();
                synchronized (entry) {
                    entry.confirming.remove(target.name()); // answered or failed: a later pass may send again
                }
                if (error == null && status == io.sessionrep.core.wire.Message.AckStatus.APPLIED) {
                    synchronized (entry) {
                        entry.copySentAcknowledged(target.name());
                        if (!entry.ownership.isGone() && entry.syncedBackups.contains(target.name())) {
                            entry.confirmedBackups.add(target.name());
                            node.releaseFormersIfSafe(entry);
                        }
                    }
                }
            });
        }
        return needCopy.size();
    }

    private void acquireInFlight() {
        try {
            while (!node.closed() && !inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                // wait: at most MAX_IN_FLIGHT full copies are on their way at once
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void waitForQueueRoom() {
        long maxEntries = node.config.asyncQueueEntries() / 2;
        long maxBytes = node.config.asyncQueueBytes() / 2;
        while (!node.closed() && (node.sender.entries() > maxEntries || node.sender.bytes() > maxBytes)) {
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Owned sessions with fewer backups than write-quota (a gauge). */
    int sessionsBelowQuota() {
        int quota = node.config.writeQuota();
        int below = 0;
        for (PrimaryEntry entry : node.primaries.values()) {
            synchronized (entry) {
                if (entry.ownership.isGone()) {
                    continue;
                }
                int backups = 0;
                for (String b : entry.syncedBackups) {
                    if (node.isMember(b) && !BackupRefusals.refusing(entry, b)) {
                        backups++;
                    }
                }
                if (backups < quota) {
                    below++;
                }
            }
        }
        return below;
    }

    private void warnIfQuotaUnmet() {
        int quota = node.config.writeQuota();
        List<String> eligible = new ArrayList<>();
        List<String> excluded = new ArrayList<>();
        for (Member m : node.members()) {
            if (m.name().equals(node.self.name())) {
                continue;
            }
            if (!node.config.allowColocation() && m.machineId().equals(node.self.machineId())) {
                excluded.add(m.name() + " (same machine-id '" + m.machineId() + "', allow-colocation=false)");
            } else {
                eligible.add(m.name());
            }
        }
        String warning = "";
        if (quota > 0 && eligible.size() < quota) {
            warning = "write-quota " + quota + " cannot be met: " + eligible.size() + " eligible backup node(s) "
                    + eligible + (excluded.isEmpty() ? "" : "; excluded: " + String.join(", ", excluded))
                    + "; sessions are replicated to the eligible nodes only (gauge "
                    + io.sessionrep.core.metrics.ReplicationMetrics.SESSIONS_BELOW_QUOTA + ")";
        }
        if (!warning.equals(lastQuotaWarning)) {
            lastQuotaWarning = warning;
            if (!warning.isEmpty()) {
                LOG.log(System.Logger.Level.WARNING, warning);
            } else if (quota > 0) {
                LOG.log(System.Logger.Level.INFO, "write-quota " + quota + " can be met again");
            }
        }
    }

    /**
     * Whether the copies of the last view change are still being restored: no pass has run to its end since
     * that change (a pass that a newer view interrupts starts over). False with write-quota 0 (no passes).
     */
    boolean settling() {
        return node.config.writeQuota() > 0 && settledViewChanges < viewChanges.get();
    }

    /**
     * Whether the last pass left sessions of a departed node unpromoted because a member did not say which copy
     * it holds; the next pass (at the latest the periodic one) tries again.
     */
    boolean promotionsDeferred() {
        return promotionsDeferred;
    }

    /** The current quota warning, empty when the quota can be met. */
    String quotaWarning() {
        return lastQuotaWarning;
    }

    /** Duration of the last completed pass in ms (-1 before the first), and the copies it queued. */
    long lastPassMillis() {
        return lastPassMillis;
    }

    int lastPassCopies() {
        return lastPassCopies;
    }

    @Override
    public void close() {
        worker.shutdownNow();
    }
}
