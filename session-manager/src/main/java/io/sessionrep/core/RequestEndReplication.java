package io.sessionrep.core;

import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MemberLeftException;
import io.sessionrep.core.wire.MalformedMessageException;
import io.sessionrep.core.wire.Message;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Turns what a request did to a session into updates for its backups: the first copy to a backup is
 * full, later ones carry only attributes whose serialized bytes changed. Async mode hands them to the
 * {@link AsyncSender}; sync mode sends them and waits for the first backup's acknowledgement.
 */
final class RequestEndReplication {
    private static final System.Logger LOG = System.getLogger(RequestEndReplication.class.getName());
    /** What a request that re-sends the session changed: nothing (the session goes whole). */
    private static final ChangeTracker.Changes NO_CHANGES = new ChangeTracker.Changes(Set.of(), Set.of());

    private final NodeState node;
    private final Touches touches;
    private final AcknowledgedSend acknowledged;
    /** Asks the rebalancer for a pass (former backups wait to be released). */
    private final Runnable rebalanceSoon;
    private final ReportOnce syncMissReported = ReportOnce.standard();

    RequestEndReplication(NodeState node, Touches touches, AcknowledgedSend acknowledged, Runnable rebalanceSoon) {
        this.node = node;
        this.touches = touches;
        this.acknowledged = acknowledged;
        this.rebalanceSoon = rebalanceSoon;
    }

    /**
     * A sync update left to send once the session's monitor is released: the update to the session's first
     * backup, sent on the request thread ({@link AcknowledgedSend#sendInline}). Waiting for the round trip
     * under the monitor could wait on a backup that itself waits for this node (a request thread there holding a
     * session this node's message needs, both bounded by sync-timeout only).
     */
    private record OnCallerThread(PrimaryEntry entry, Member target, AcknowledgedSend.Encoded update) {
    }

    /**
     * What a request end sent under the session's monitor: acknowledgements to wait for, one update to send after,
     * and the backups it was meant for (the placement may have moved by the time none acknowledged: these are the
     * ones to look for in the view, and to name).
     */
    private record Dispatched(List<CompletableFuture<Message.AckStatus>> acks, OnCallerThread after, List<Member> targets) {
        static final Dispatched NOTHING = new Dispatched(List.of(), null, List.of());

        boolean isEmpty() {
            return after == null && acks.isEmpty();
        }
    }

    /**
     * Replicates; in sync mode waits for the first acknowledgement, at most sync-timeout. When no backup stored the
     * update because one that was asked left the view meanwhile (it crashed while the request waited), the session's
     * backups in the new view get a full copy and the request waits for one of them, in what is left of the same
     * sync-timeout, and so again if one of those leaves too: a sync response still means that a live backup holds
     * the update, not only the primary.
     */
    void replicate(SessionSnapshot session, ChangeTracker.Changes changes) {
        Dispatched dispatched = dispatch(session, changes, false);
        if (dispatched.isEmpty()) {
            return; // async mode, or nothing to send: no clock read
        }
        long started = System.nanoTime();
        String miss = sendAndAwait(dispatched, started, node.config.syncTimeout());
        Dispatched last = dispatched;
        // backups that die one after the other (a rack lost, seen in two views): each departure sends again to the
        // backups of the view after it; each round needs a member of the last one to have left, within sync-timeout
        while (miss != null && backupLeft(last, started)) {
            Dispatched again = dispatch(session, NO_CHANGES, true); // full copies to the backups it has now
            if (again.isEmpty()) {
                break;
            }
            Dispatched left = last;
            LOG.log(System.Logger.Level.DEBUG, () -> "session " + LogIds.shortForm(session.id()) + ": backup(s) "
                    + left.targets() + " left before acknowledging; a full copy goes to " + again.targets());
            long remaining = node.config.syncTimeout().toNanos() - (System.nanoTime() - started);
            miss = sendAndAwait(again, started, java.time.Duration.ofNanos(Math.max(1_000_000, remaining)));
            last = again;
        }
        List<Member> sentTo = last.targets();
        if (miss != null) {
            node.metrics.syncTimeouts.increment();
            reportSyncMiss(miss, sentTo);
        }
    }

    /**
     * Sends the update left for after the monitor (its exchange given at most {@code exchangeTimeout}: what is left of
     * sync-timeout, for a re-send), then waits; null when a backup stored it, else why not. With other backups asked
     * already, the first backup's exchange is given up soon after one of them stored the update: a first backup that
     * hangs (a long GC pause) then does not hold the request for sync-timeout.
     */
    private String sendAndAwait(Dispatched dispatched, long started, java.time.Duration exchangeTimeout) {
        List<CompletableFuture<Message.AckStatus>> acks = dispatched.acks();
        OnCallerThread after = dispatched.after();
        if (after != null) { // the update to the first backup, the others' (if any) already on their way
            CompletableFuture<Boolean> noLongerDecides = acks.isEmpty() ? null : appliedOrDeparted(acks);
            acks.add(confirmOnAck(after.entry(), after.target(),
                    acknowledged.sendInline(after.target(), after.update(), exchangeTimeout, noLongerDecides)));
        }
        return awaitFirstAck(acks, started);
    }

    /**
     * Whether the backups failed to acknowledge because one left the view: if the transport failed an
     * acknowledgement because its backup left ({@link MemberLeftException}; not when a backup answered "not stored",
     * stayed silent or failed otherwise), waits within what is left of sync-timeout until that backup is no longer
     * a member of the core's view too (the transport fails the request just before the view reaches the core).
     */
    private boolean backupLeft(Dispatched dispatched, long started) {
        if (dispatched.acks().stream().noneMatch(RequestEndReplication::failedByDeparture)) {
            return false;
        }
        long deadline = started + node.config.syncTimeout().toNanos();
        while (true) {
            for (Member m : dispatched.targets()) {
                if (!node.isMember(m.name())) {
                    return true;
                }
            }
            if (System.nanoTime() >= deadline || node.closed()) {
                return false;
            }
            try {
                Thread.sleep(1); // the view is a moment away; this path is taken only when a backup failed
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    private static boolean failedByDeparture(CompletableFuture<Message.AckStatus> ack) {
        return ack.isCompletedExceptionally() && isDeparture(ack.handle((status, error) -> error).join());
    }

    private static boolean isDeparture(Throwable failure) {
        while (failure instanceof CompletionException || failure instanceof ExecutionException) {
            failure = failure.getCause();
        }
        return failure instanceof MemberLeftException;
    }

    /**
     * {@code fullAgain}: every backup gets a full copy to acknowledge, even one that counts as holding the session
     * (the rebalancer may have queued it one after the view change, which this request cannot wait for).
     */
    private Dispatched dispatch(SessionSnapshot session, ChangeTracker.Changes changes, boolean fullAgain) {
        String id = session.id();
        if (node.config.writeQuota() == 0 || node.closed()) {
            return Dispatched.NOTHING;
        }
        // An invalidation tombstones the id and then marks its entry removed (under the entry's monitor, checked
        // below), so a session with an entry needs no tombstone lookup: a random read into a table of up to a
        // million ids, on every request end of a workload that invalidates sessions.
        PrimaryEntry entry = node.primaries.get(id);
        if (entry == null) {
            if (node.tombstones.contains(id)) {
                return Dispatched.NOTHING;
            }
            if (node.lostOwnership.contains(id)) {
                // another node took this session over while this request ran here: its version wins
                node.metrics.ownershipConflicts.increment();
                LOG.log(System.Logger.Level.INFO, "session " + LogIds.shortForm(id) + " was taken over by another node during a request"
                        + " here; this request's changes are not replicated (the newer owner's state wins)");
                // tell the container again: the first notice may have come while it was still loading the
                // session (nothing to evict then), and a live copy left here would serve unreplicated changes
                node.tellOwnershipLost(id);
                return Dispatched.NOTHING;
            }
            entry = node.newSessionUses.createEntry(id); // counts the requests that entered it before
        }
        List<Member> targets = node.backupsOf(id);
        synchronized (entry) {
            if (entry.ownership.isGone()) {
                return Dispatched.NOTHING;
            }
            entry.live = session; // full copies are serialized from it from now on
            if (fullAgain) {
                for (Member target : targets) {
                    entry.syncedBackups.remove(target.name());
                }
            }
            try {
                return sendUpdates(session, changes, entry, targets);
            } finally {
                entry.copy.releaseValues(); // the live session holds the values: keep only their digests
            }
        }
    }

    /** Caller holds the entry's monitor. */
    private Dispatched sendUpdates(SessionSnapshot session, ChangeTracker.Changes changes, PrimaryEntry entry,
                                   List<Member> targets) {
        String id = session.id();
        SessionUpdate delta = buildDelta(session, changes, entry);
        boolean newBackup = false;
        for (Member t : targets) {
            newBackup |= !entry.syncedBackups.contains(t.name());
        }
        if (delta == null && !newBackup) {
            if (session.lastAccessedTime() > entry.copy.lastAccessedTime() && entry.copy.version() > 0) {
                entry.copy.touch(session.lastAccessedTime());
                touches.record(id, session.lastAccessedTime());
            }
            return Dispatched.NOTHING; // read-only request: no attribute data, at most a batched touch
        }
        if (delta != null) {
            entry.copy.apply(delta);
        }
        if (entry.copy.valueBytes() > node.config.maxSessionSize()) {
            reportTooLarge(entry);
            return Dispatched.NOTHING;
        }
        entry.oversizeWarned = false;
        SessionUpdate full = null;
        AcknowledgedSend.Encoded encodedDelta = null; // sync: encoded once for every backup it goes to
        AcknowledgedSend.Encoded encodedFull = null;
        List<CompletableFuture<Message.AckStatus>> acks = new ArrayList<>(targets.size() + 1);
        OnCallerThread after = null;
        for (Member target : targets) {
            boolean synced = entry.syncedBackups.contains(target.name());
            SessionUpdate update;
            if (synced && delta != null) {
                update = delta;
            } else if (synced) {
                continue; // nothing new for this backup
            } else {
                if (full == null) { // read from this request's own session, which counts as in use
                    full = entry.fullCopyForBackup(node.attributes, true);
                }
                update = full;
                BackupRefusals.ended(entry, target.name()); // a refusal of this copy marks it again
            }
            if (node.config.replicationMode() == ReplicationMode.SYNC) {
                if (update == delta && encodedDelta == null) {
                    encodedDelta = acknowledged.encode(delta);
                } else if (update == full && encodedFull == null) {
                    encodedFull = acknowledged.encode(full);
                }
                AcknowledgedSend.Encoded encoded = update == delta ? encodedDelta : encodedFull;
                if (after == null) {
                    after = new OnCallerThread(entry, target, encoded); // the first backup: sent once the monitor is released
                } else {
                    acks.add(confirmOnAck(entry, target, acknowledged.send(target, encoded, true)));
                }
            } else if (update == full && entry.mustAcknowledge(target.name(), full.toVersion())) {
                // released at this version and chosen again: a one-way copy would be ignored there as late
                acknowledged.send(target, full, true).thenAccept(status -> {
                    if (status == Message.AckStatus.APPLIED) {
                        synchronized (entry) {
                            entry.copySentAcknowledged(target.name());
                        }
                    }
                });
            } else {
                node.sender.enqueue(target, update);
            }
        }
        boolean placementMoved = newBackup || entry.syncedBackups.size() != targets.size();
        if (delta != null && (placementMoved || !entry.formerBackups.isEmpty())) {
            updateFormerBackups(entry, targets, delta, encodedDelta, acks);
        }
        if (placementMoved) {
            if (node.retarget(entry, targets)) { // the placement of this session changed (rare): not per request
                rebalanceSoon.run(); // former backups are released once the new ones confirmed
            }
        }
        return new Dispatched(acks, after, targets);
    }

    /**
     * Make before break: while the placement of a session moves (a backup joined or came back), the backups
     * it had keep receiving every change until the new ones have confirmed a copy and the old ones are
     * released. A new backup that does not answer yet (just merged back, still catching up) then costs
     * nothing: the former one holds the whole chain, and in sync mode its acknowledgement counts. Only
     * deltas go to them; one that cannot apply it is left as it is, and a released one drops its copy.
     * Caller holds the entry's monitor; {@code encodedDelta} may be null (async mode, or not encoded yet).
     */
    private void updateFormerBackups(PrimaryEntry entry, List<Member> targets, SessionUpdate delta,
                                     AcknowledgedSend.Encoded encodedDelta, List<CompletableFuture<Message.AckStatus>> acks) {
        Set<String> chosen = new HashSet<>();
        for (Member t : targets) {
            chosen.add(t.name());
        }
        Set<String> holders = new HashSet<>(entry.formerBackups);
        holders.addAll(entry.syncedBackups); // those not chosen any more become former backups below
        AcknowledgedSend.Encoded encoded = encodedDelta;
        for (String name : holders) {
            Member former = chosen.contains(name) ? null : node.member(name);
            if (former == null) {
                continue; // chosen again, or left the view
            }
            if (node.config.replicationMode() == ReplicationMode.SYNC) {
                if (encoded == null) {
                    encoded = acknowledged.encode(delta);
                }
                acks.add(acknowledged.sendWithoutResync(former, encoded));
            } else {
                node.sender.enqueue(former, delta);
            }
        }
    }

    /** The delta from the entry's version, or null when the request changed nothing replicable. */
    private SessionUpdate buildDelta(SessionSnapshot session, ChangeTracker.Changes changes, PrimaryEntry entry) {
        boolean first = entry.copy.version() == 0;
        Map<String, byte[]> changed = new HashMap<>();
        Set<String> removed = new HashSet<>();
        Iterable<String> written = first ? session.attributeNames() : changes.written();
        for (String name : written) {
            Object value = session.attribute(name);
            if (value == null) {
                if (entry.copy.hasAttribute(name)) {
                    removed.add(name);
                }
                continue;
            }
            byte[] bytes = node.attributes.write(session.id(), name, value);
            if (bytes == null || entry.copy.sameValue(name, bytes)) {
                continue; // not serializable (reported), or read but not modified
            }
            changed.put(name, bytes);
        }
        for (String name : changes.removed()) {
            if (entry.copy.hasAttribute(name) && session.attribute(name) == null) {
                removed.add(name);
            }
        }
        boolean metadata = first || session.maxInactiveSeconds() != entry.copy.maxInactiveSeconds();
        if (changed.isEmpty() && removed.isEmpty() && !metadata) {
            return null;
        }
        long to = entry.copy.version() + 1;
        long from = entry.deltaBase >= 0 ? entry.deltaBase : entry.copy.version(); // after a hand-over: see PrimaryEntry
        entry.deltaBase = -1;
        return new SessionUpdate(session.id(), from, to, false, session.creationTime(),
                session.lastAccessedTime(), session.maxInactiveSeconds(), changed, removed);
    }

    private void reportTooLarge(PrimaryEntry entry) {
        node.metrics.tooLarge.increment();
        entry.syncedBackups.clear(); // backups get a full copy once the session is small enough again
        if (!entry.oversizeWarned) {
            entry.oversizeWarned = true;
            LOG.log(System.Logger.Level.WARNING, "session " + LogIds.shortForm(entry.copy.sessionId()) + " is " + entry.copy.valueBytes()
                    + " bytes, over max-session-size " + node.config.maxSessionSize()
                    + ": not replicated until it shrinks (warned once per session)");
        }
    }

    /** When the backup acknowledges, it counts as holding the chain (former backups may then be released). */
    private CompletableFuture<Message.AckStatus> confirmOnAck(PrimaryEntry entry, Member target,
                                                              CompletableFuture<Message.AckStatus> ack) {
        return ack.whenComplete((status, error) -> {
            if (error == null && status == Message.AckStatus.APPLIED) {
                synchronized (entry) {
                    if (!entry.ownership.isGone() && entry.syncedBackups.contains(target.name())) {
                        entry.confirmedBackups.add(target.name());
                        node.releaseFormersIfSafe(entry);
                    }
                }
            }
        });
    }

    /**
     * Sync mode: waits until one backup stored the update, at most sync-timeout. With one backup (write-quota 1)
     * it waits on that acknowledgement itself; with more, on the first that says applied. No exception is built for
     * an acknowledgement that arrives in time (one built on every reply, to be dropped, was 1.3 % of a sync node's
     * CPU samples at 1x1 KiB: profile-20261127-sync-floor).
     */
    private String awaitFirstAck(List<CompletableFuture<Message.AckStatus>> acks, long started) {
        long timeout = Math.max(0, node.config.syncTimeout().toNanos() - (System.nanoTime() - started));
        try {
            boolean applied = acks.size() == 1
                    ? acks.get(0).get(timeout, TimeUnit.NANOSECONDS) == Message.AckStatus.APPLIED
                    : firstApplied(acks).get(timeout, TimeUnit.NANOSECONDS);
            if (applied) {
                node.metrics.syncAck.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                return null;
            }
            return "no backup stored it";
        } catch (TimeoutException e) {
            return "no acknowledgement within sync-timeout " + node.config.syncTimeout().toMillis() + "ms";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null; // the container is stopping this request: not a miss of the backup's
        } catch (ExecutionException e) {
            return "no backup stored it (" + e.getCause() + ")";
        }
    }

    /**
     * True as soon as one of {@code acks} says applied; false once all have answered and none did, or as soon as
     * one failed because its backup left (the others may stay silent: the request then re-sends to the backups of
     * the next view rather than wait out sync-timeout for them).
     */
    private static CompletableFuture<Boolean> firstApplied(List<CompletableFuture<Message.AckStatus>> acks) {
        for (CompletableFuture<Message.AckStatus> ack : acks) {
            if (ack.isDone() && !ack.isCompletedExceptionally() && ack.join() == Message.AckStatus.APPLIED) {
                return CompletableFuture.completedFuture(true); // stored already: a departure seen first is no miss
            }
        }
        CompletableFuture<Boolean> first = appliedOrDeparted(acks);
        CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> first.complete(false));
        return first;
    }

    /**
     * True once one of {@code acks} says applied, false once one failed because its backup left the view; never
     * completes otherwise. Given the other backups' acknowledgements, it also tells when the first backup's reply no
     * longer decides the request (the update is stored, or the request re-sends to the next view's backups): a first
     * backup that hangs must not hold the request until sync-timeout then.
     */
    private static CompletableFuture<Boolean> appliedOrDeparted(List<CompletableFuture<Message.AckStatus>> acks) {
        CompletableFuture<Boolean> outcome = new CompletableFuture<>();
        for (CompletableFuture<Message.AckStatus> ack : acks) {
            ack.whenComplete((status, error) -> {
                if (error == null && status == Message.AckStatus.APPLIED) {
                    outcome.complete(true);
                } else if (error != null && isDeparture(error)) {
                    outcome.complete(false);
                }
            });
        }
        return outcome;
    }

    private void reportSyncMiss(String why, List<Member> sentTo) {
        String peers = String.valueOf(sentTo);
        if (syncMissReported.firstTime(peers)) {
            LOG.log(System.Logger.Level.WARNING, "sync replication to " + peers + " not acknowledged: " + why
                    + "; the request proceeded (logged once per backup set, counted in "
                    + ReplicationMetrics.SYNC_TIMEOUTS + ")");
        }
    }
}
