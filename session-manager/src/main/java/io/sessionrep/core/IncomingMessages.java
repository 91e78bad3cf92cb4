package io.sessionrep.core;

import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.serial.ValueFormat;
import io.sessionrep.core.store.BackupStore;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MessageReceiver;
import io.sessionrep.core.wire.MalformedMessageException;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Handles what other nodes send: updates for the backups held here, touches, releases, invalidations,
 * ownership changes, fetch requests and resync requests. Anything undecodable is counted and dropped;
 * no input can make this class throw into the transport.
 */
final class IncomingMessages implements MessageReceiver {
    private static final System.Logger LOG = System.getLogger(IncomingMessages.class.getName());

    private final NodeState node;
    private final Rebalancer rebalancer;
    private final HandOver handOver;
    private final Acquisition acquisition;
    private final BackupRefusals refusals;
    private final LocalSessionIndex sessionIndex;
    private final ReportOnce refusedSenders = ReportOnce.standard();
    /** Malformed messages and failures while handling one: warned at most once a minute, each counted. */
    private final WarningInterval malformedWarning = new WarningInterval(java.time.Duration.ofMinutes(1));
    private final WarningInterval failureWarning = new WarningInterval(java.time.Duration.ofMinutes(1));

    IncomingMessages(NodeState node, Rebalancer rebalancer, HandOver handOver, Acquisition acquisition,
                     BackupRefusals refusals, LocalSessionIndex sessionIndex) {
        this.sessionIndex = sessionIndex;
        this.node = node;
        this.rebalancer = rebalancer;
        this.handOver = handOver;
        this.acquisition = acquisition;
        this.refusals = refusals;
    }

    @Override
    public byte[] onMessage(Member sender, byte[] bytes) {
        node.metrics.bytesReceived.increment(bytes.length);
        Message message;
        try {
            message = WireCodec.decode(bytes, node.wire.ours().newest());
        } catch (MalformedMessageException e) {
            node.metrics.rejectedMalformed.increment();
            if (malformedWarning.due()) {
                LOG.log(System.Logger.Level.WARNING, "rejected malformed message from " + sender.name() + ": " + e.getMessage()
                        + " (logged at most once a minute; every one is counted in " + io.sessionrep.core.metrics.ReplicationMetrics.REJECTED
                        + "{reason=" + io.sessionrep.core.metrics.ReplicationMetrics.REASON_MALFORMED + "})");
            }
            return null;
        }
        if (!node.inTransportView(sender.name())) {
            // only members of the current view replicate, fetch, invalidate or announce ownership here
            node.metrics.rejectedNotMember.increment();
            if (refusedSenders.firstTime(sender.name())) {
                LOG.log(System.Logger.Level.WARNING, "rejected a message from " + sender.name() + ", which is not a"
                        + " member of the current view (logged once per sender, counted)");
            }
            return null;
        }
        try {
            if (message instanceof Message.Update m) {
                return onUpdate(sender, m);
            } else if (message instanceof Message.Touch m) {
                for (Message.Touch.Entry e : m.entries()) {
                    node.backups.touch(e.sessionId(), e.lastAccessedTime(), sender.name());
                }
            } else if (message instanceof Message.Release m) {
                boolean dropped = node.backups.release(m.sessionId(), sender.name(), m.version(), node.clock.millis());
                LOG.log(System.Logger.Level.DEBUG, () -> "release of session " + LogIds.shortForm(m.sessionId()) + " at version " + m.version()
                        + " from " + sender.name() + (dropped ? ": copy dropped" : ": copy kept"));
            } else if (message instanceof Message.Invalidate m) {
                onInvalidate(m.sessionId());
            } else if (message instanceof Message.Ownership m) {
                if (!m.owner().equals(sender.name())) {
                    node.metrics.rejectedNotOwner.increment(); // a node announces only its own ownership
                    return null;
                }
                onOwnership(m);
            } else if (message instanceof Message.Fetch m) {
                SessionUpdate copy = copyOf(m.sessionId());
                PrimaryEntry owned = node.primary(m.sessionId()); // after the copy: an owner since then is told
                boolean serving = owned != null && owned.ownership.servedLive();
                return node.wire.encode(new Message.FetchReply(copy, serving));
            } else if (message instanceof Message.Reconcile m) {
                return MergeReconciler.answer(node, sender, m);
            } else if (message instanceof Message.Acquire m) {
                handOver.onAcquire(sender, m);
            } else if (message instanceof Message.AcquireReply m) {
                acquisition.onReply(sender, m);
            } else if (message instanceof Message.AcquireCancel m) {
                handOver.onCancel(sender, m);
            } else if (message instanceof Message.Resync m) {
                node.enqueueFullCopy(m.sessionId(), sender);
            } else if (message instanceof Message.Refused m) {
                refusals.refused(m.sessionId(), sender);
            } else if (message instanceof Message.AdminQuery m) {
                Message.AdminReply reply = sessionIndex.answer(m);
                if (reply == null) {
                    node.metrics.rejectedMalformed.increment();
                    return null;
                }
                return WireCodec.encode(reply, WireCodec.ADMIN_SINCE);
            } else {
                node.metrics.rejectedMalformed.increment(); // replies never arrive here unsolicited
            }
        } catch (Throwable e) { // no input may escape into the transport's thread
            node.metrics.rejectedMalformed.increment();
            if (failureWarning.due()) {
                LOG.log(System.Logger.Level.WARNING, "could not handle message from " + sender.name()
                        + " (logged at most once a minute; every one is counted as malformed)", e);
            }
        }
        return null;
    }

    private byte[] onUpdate(Member sender, Message.Update m) {
        SessionUpdate update = m.update();
        String id = update.sessionId();
        if (update.valueBytes() > node.config.maxSessionSize()) {
            node.metrics.rejectedTooLarge.increment(); // the sender should not have sent it: refused, no answer
            return null;
        }
        if (node.backups.exceedsCopyBound(update)) {
            // a delta that would grow the copy past max-session-size: the store drops the copy (answered FULL)
            node.metrics.rejectedTooLarge.increment();
        }
        Message.AckStatus status;
        long version = update.toVersion();
        // An invalidation tombstones the id and then drops the copy held here, so while a copy is held the
        // tombstone lookup (a random read into a table of up to a million ids) is skipped: an update racing the
        // invalidation applies to the copy that is about to go, as if it had come just before it
        if (node.backups.get(id) == null && node.tombstones.contains(id)) {
            status = Message.AckStatus.INVALIDATED;
        } else {
            PrimaryEntry mine = node.primary(id);
            if (mine != null) {
                long myVersion;
                synchronized (mine) {
                    myVersion = mine.copy.version();
                }
                // a newer copy exists elsewhere: step down. At the same version only a promoted (dormant)
                // entry yields: the sender may be a promoted node itself, and a serving owner must not
                // give way to it (its announcement settles who owns the session)
                if (version > myVersion || (version == myVersion && mine.ownership.isDormant())) {
                    loseOwnership(id);
                } else {
                    // this node owns a copy at least as new: nothing to hold as a backup
                    return m.ackRequested() ? node.wire.encode(new Message.Ack(Message.AckStatus.APPLIED, version, id)) : null;
                }
            }
            BackupStore.Backup held = node.backups.get(id);
            if (held != null && !update.full() && !held.owner.name().equals(sender.name())
                    && node.isMember(held.owner.name())) {
                // a delta from a node that does not own this copy: refused; a full copy from the real owner
                // (which it then asks for) replaces it
                node.metrics.rejectedNotOwner.increment();
                status = Message.AckStatus.NEED_FULL;
                if (!m.ackRequested()) {
                    node.transport.send(sender, node.wire.encode(new Message.Resync(id)));
                }
                return m.ackRequested() ? node.wire.encode(new Message.Ack(status, version, id)) : null;
            }
            status = node.backups.apply(acceptedValues(update, sender), sender, m.ackRequested());
            if (status != Message.AckStatus.APPLIED) {
                Message.AckStatus logged = status;
                LOG.log(System.Logger.Level.DEBUG, () -> "update of session " + LogIds.shortForm(id) + " " + update.fromVersion() + "->"
                        + update.toVersion() + (update.full() ? " (full)" : "") + " from " + sender.name() + ": " + logged);
            }
            if (status == Message.AckStatus.FULL) {
                reportBackupsFull();
                if (!m.ackRequested()) { // a sync primary reads it in the acknowledgement
                    node.transport.send(sender, node.wire.encode(new Message.Refused(id)));
                }
            }
            if (status == Message.AckStatus.NEED_FULL && !m.ackRequested() && !node.backups.wouldExceed(1)) {
                node.transport.send(sender, node.wire.encode(new Message.Resync(id)));
            }
        }
        return m.ackRequested() ? node.wire.encode(new Message.Ack(status, version, id)) : null;
    }

    private final WarningInterval fullWarning = new WarningInterval(java.time.Duration.ofMinutes(1));

    private void reportBackupsFull() {
        node.metrics.backupsRefused.increment();
        if (fullWarning.due()) {
            LOG.log(System.Logger.Level.WARNING, "node " + node.self.name() + " holds " + node.backups.bytes()
                    + " bytes of backups, its max-backup-bytes " + node.config.maxBackupBytes() + ": new backup copies"
                    + " are refused (their owners stay below write-quota), copies held are still updated (counted in "
                    + io.sessionrep.core.metrics.ReplicationMetrics.BACKUPS_REFUSED + ", logged at most once a minute)");
        }
    }

    /**
     * The update without the attributes this node refuses to hold: values naming a class outside the
     * allowlist, or undecodable ones (both counted and reported). Checking here, off the request path,
     * means a backup never stores bytes it could not turn back into a session.
     */
    private SessionUpdate acceptedValues(SessionUpdate update, Member sender) {
        Map<String, byte[]> accepted = null;
        boolean namedFields = node.wire.ours().newest() >= 3;
        for (Map.Entry<String, byte[]> e : update.changed().entrySet()) {
            if ((!namedFields && ValueFormat.of(e.getValue()) == ValueFormat.NAMED_FIELDS) // a node stated to read protocol 2 only
                    || !node.attributes.readable(update.sessionId(), e.getKey(), e.getValue(), sender.name())) {
                if (accepted == null) {
                    accepted = new HashMap<>(update.changed());
                }
                accepted.remove(e.getKey());
            }
        }
        if (accepted == null) {
            return update;
        }
        return new SessionUpdate(update.sessionId(), update.fromVersion(), update.toVersion(), update.full(),
                update.creationTime(), update.lastAccessedTime(), update.maxInactiveSeconds(), accepted, update.removed());
    }

    private void onInvalidate(String id) {
        node.tombstones.add(id);
        node.backups.remove(id);
        if (node.dropPrimary(id)) {
            node.events.invalidatedElsewhere(id);
        }
    }

    /**
     * Another node announces it became primary at {@code version}. Version numbers decide: the newer state
     * wins, whoever holds it; at the same version an owner serving requests outranks one that promoted a
     * backup proactively, and between equals the greater node name wins. A primary here that outranks the
     * announcer answers with its own announcement (the other node steps down); a backup here that is newer
     * keeps its copy and sends it to the announcer (which then steps down too, so the next request takes
     * the newest copy over). Otherwise this node's live copy is dropped, and its backup either follows the
     * new owner or, if it is not one of its backups, is dropped so a stale copy can never be promoted later; unless
     * the new owner has just taken the session (a hand-over, a take-over or a promotion: its backups may not hold it
     * yet).
     */
    private void onOwnership(Message.Ownership m) {
        String id = m.sessionId();
        if (m.owner().equals(node.self.name()) || node.tombstones.contains(id)) {
            return;
        }
        Member owner = node.member(m.owner());
        PrimaryEntry mine = node.primary(id);
        if (mine != null) {
            long myVersion;
            boolean serving;
            synchronized (mine) {
                myVersion = mine.copy.version();
                serving = mine.ownership.servedLive();
            }
            boolean theyWin = outranks(m.version(), m.serving(), m.owner(), myVersion, serving, node.self.name());
            LOG.log(System.Logger.Level.DEBUG, () -> "ownership of session " + LogIds.shortForm(id) + ": " + m.owner() + " at " + m.version()
                    + (m.serving() ? " serving" : " promoted") + " vs this node at " + myVersion + (serving ? " serving" : " promoted")
                    + (theyWin ? ": yields" : ": keeps"));
            if (theyWin) {
                loseOwnership(id);
            } else {
                if (forgetBackup(mine, m.owner())) {
                    rebalancer.requestPass(); // it gets a full copy again once it has stepped down
                }
                if (owner != null) {
                    node.transport.send(owner, node.wire.encode(
                            new Message.Ownership(id, myVersion, node.self.name(), serving)));
                }
                return;
            }
        }
        BackupStore.Backup backup = node.backups.get(id);
        if (backup == null || owner == null) {
            return;
        }
        long held;
        synchronized (backup.copy) {
            held = backup.copy.version();
        }
        if (held >= m.version()) {
            SessionUpdate newer = node.backups.fullCopy(id);
            if (newer != null) {
                node.transport.send(owner, node.wire.encode(new Message.Update(newer, false)));
            }
            return;
        }
        if (m.handedOver() || node.placement.isBackup(id, owner, node.members(), node.self.name())) {
            // After a hand-over, a take-over or a promotion a copy is kept even when the new owner does not use
            // this node as a backup: its backups may not hold the state yet, and if it dies at once this copy is
            // the newest there is. It gets no more updates; maintenance drops it a while later
            // (NodeState.STRAY_COPY_TTL).
            backup.follow(owner);
        } else {
            LOG.log(System.Logger.Level.DEBUG, () -> "dropped backup of session " + LogIds.shortForm(id) + " at version "
                    + held + ": new owner " + m.owner() + " at " + m.version() + " does not use this node");
            node.backups.remove(id); // not one of the new owner's backups: a stale copy must not be promoted
        }
    }

    /**
     * A node that announces itself primary of a session dropped the backup copy it held of it (becoming primary
     * takes the copy out of its backups): if it was one of {@code mine}'s backups, it no longer holds this node's
     * version. It typically promoted a backup at the same moment as a request here took the session over, from an
     * older copy, and replaced the newer one this node had just sent it. True when it was counted as a backup.
     */
    private static boolean forgetBackup(PrimaryEntry mine, String announcer) {
        synchronized (mine) {
            mine.confirmedBackups.remove(announcer);
            return !mine.ownership.isGone() && mine.syncedBackups.remove(announcer);
        }
    }

    /** True when owner {@code a} (version, serving, name) outranks owner {@code b} of the same session. */
    static boolean outranks(long aVersion, boolean aServing, String aName, long bVersion, boolean bServing, String bName) {
        if (aVersion != bVersion) {
            return aVersion > bVersion;
        }
        if (aServing != bServing) {
            return aServing;
        }
        return aName.compareTo(bName) > 0;
    }

    private void loseOwnership(String id) {
        if (node.yieldPrimary(id)) {
            LOG.log(System.Logger.Level.DEBUG, "session " + LogIds.shortForm(id) + " is now owned by another node");
            node.tellOwnershipLost(id);
        }
    }

    private SessionUpdate copyOf(String id) {
        if (node.tombstones.contains(id)) {
            return null;
        }
        // The backup is read before the entry: a promotion here (Rebalancer) or a grant puts the entry before
        // it removes the backup, so a copy moving from one to the other meanwhile is answered, not missed.
        SessionUpdate held = node.backups.fullCopy(id);
        PrimaryEntry mine = node.primary(id);
        if (mine != null) {
            synchronized (mine) {
                if (!mine.ownership.isGone() && mine.copy.version() > 0) {
                    return mine.fullCopy(node.attributes, true); // a fetch: a live owner answers "serving"
                }
            }
        }
        return held;
    }

    @Override
    public void onMembershipChange(List<Member> members) {
        node.setMembers(members);
        LOG.log(System.Logger.Level.INFO, "cluster view of " + node.self.name() + ": " + members);
        acquisition.viewChanged();
        handOver.viewChanged();
        rebalancer.viewChanged();
    }
}
