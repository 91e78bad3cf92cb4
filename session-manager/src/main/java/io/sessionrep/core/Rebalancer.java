package io.sessionrep.core;

import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.store.BackupStore;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;

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
    private static final System.Logger LOG = System.getLogger(SessionReplicator.class.getName());

    private final NodeState node;
    private final TakeOver takeOver;
    private final ExecutorService worker;
    private final AtomicBoolean passRequested = new AtomicBoolean();
    private volatile String lastQuotaWarning = "";
    private volatile long lastPassMillis = -1;
    private volatile int lastPassCopies;

    Rebalancer(NodeState node, TakeOver takeOver) {
        this.node = node;
        this.takeOver = takeOver;
        this.worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "sessionrep-rebalance-" + node.self.name());
            t.setDaemon(true);
            return t;
        });
    }

    /** The view changed: warn if the quota cannot be met, then rebalance in the background. */
    void viewChanged() {
        warnIfQuotaUnmet();
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
        passRequested.set(false);
        long started = System.nanoTime();
        int promoted = promoteOrphans();
        int copies = 0;
        for (String id : new ArrayList<>(node.primaries.keySet())) {
            if (node.closed() || passRequested.get()) {
                return; // a newer view arrived: the queued pass starts over
            }
            waitForQueueRoom();
            copies += restore(id);
        }
        lastPassCopies = copies;
        lastPassMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        if (copies > 0 || promoted > 0) {
            LOG.log(System.Logger.Level.INFO, "rebalanced after view change: " + promoted + " sessions promoted, "
                    + copies + " full copies queued to restore write-quota " + node.config.writeQuota() + " in "
                    + lastPassMillis + " ms");
        }
    }

    /** Sessions whose primary left and for which this node is the first surviving backup become ours. */
    private int promoteOrphans() {
        List<Member> view = node.members();
        int promoted = 0;
        for (BackupStore.Backup backup : node.backups.all()) {
            if (node.closed()) {
                break;
            }
            if (node.isMember(backup.owner.name())) {
                continue;
            }
            String id = backup.copy.sessionId();
            List<Member> successors = node.placement.backups(id, backup.owner, view);
            if (!successors.isEmpty() && successors.get(0).name().equals(node.self.name())) {
                SessionUpdate copy = node.backups.fullCopy(id);
                if (copy != null && !node.tombstones.contains(id)) {
                    waitForQueueRoom();
                    PrimaryEntry entry = takeOver.becomePrimary(copy);
                    synchronized (entry) {
                        entry.dormant = true;
                    }
                    node.metrics.promotions.increment();
                    promoted++;
                }
            }
        }
        return promoted;
    }

    /** Brings one owned session to its current backups; returns the number of full copies queued. */
    private int restore(String id) {
        PrimaryEntry entry = node.primary(id);
        if (entry == null) {
            return 0;
        }
        int copies = 0;
        synchronized (entry) {
            if (entry.removed || entry.copy.version() == 0 || entry.copy.valueBytes() > node.config.maxSessionSize()) {
                return 0;
            }
            List<Member> targets = node.backupsOf(id);
            Set<String> chosen = new HashSet<>();
            SessionUpdate full = null;
            for (Member t : targets) {
                chosen.add(t.name());
                if (!entry.syncedBackups.contains(t.name())) {
                    node.sender.enqueue(t, full != null ? full : (full = entry.copy.toFullUpdate()));
                    node.metrics.rebalanced.increment();
                    copies++;
                }
            }
            for (String former : entry.syncedBackups) {
                Member m = chosen.contains(former) ? null : node.member(former);
                if (m != null) {
                    node.transport.send(m, WireCodec.encode(new Message.Release(id)));
                }
            }
            entry.syncedBackups.clear();
            entry.syncedBackups.addAll(chosen);
        }
        return copies;
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
                if (!entry.removed && entry.syncedBackups.size() < quota) {
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
