package io.sessionrep.core;

import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.store.BackupStore;
import io.sessionrep.core.store.SessionCopy;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.Message.AcquireOutcome;

import java.util.ArrayList;
import java.util.List;

/**
 * Hand-over, the owner's side. Another live node got a request for a session this node owns and asks for
 * it ({@link Message.Acquire}). The owner promises the session to the first asker and then:
 * <ol>
 *   <li>lets the requests running on the session here finish (they replicate as usual); requests that
 *       arrive meanwhile are not let in ({@link #enter} answers {@link SessionAccess#PROMISED}): they will
 *       acquire the session back after the asker's request;</li>
 *   <li>sends its newest state, a full copy, with the names of the members that hold it as backups;</li>
 *   <li>drops its live copy (the container is told: {@link SessionEvents#ownershipLost}) and keeps the
 *       state as a backup held for the new owner, in case the new owner dies before its backups hold it.</li>
 * </ol>
 * Nothing here blocks a transport thread: a promise made while requests run is carried out by the last of
 * them to {@link #exit}. Other askers meanwhile are told who the session is promised to. Requests on a session
 * created here and not replicated yet count too ({@link NewSessionUses}): an asker is told this node owns it
 * and asks again after its first replication.
 */
final class HandOver {
    private static final System.Logger LOG = System.getLogger(HandOver.class.getName());

    /** A promise: the session goes to {@code requester} once no request here uses it. */
    record Pending(Member requester, long requestId) {
    }

    /** A grant decided under the entry's monitor, completed outside it: container told first, then sent. */
    private record Grant(String sessionId, Member to, byte[] reply) {
    }

    private final NodeState node;

    HandOver(NodeState node) {
        this.node = node;
    }

    // ------------------------------------------------------------------ request threads

    /** A request here wants to use the session that the container holds live. Never blocks. */
    SessionAccess enter(String id) {
        return access(id, true);
    }

    /** What {@link #enter} would answer now, without counting a request. */
    SessionAccess probe(String id) {
        return access(id, false);
    }

    private SessionAccess access(String id, boolean count) {
        PrimaryEntry entry = node.primary(id);
        if (entry == null) {
            // not replicated yet (a new session, or replication off), unless it was handed away from here
            if (handedAway(id)) {
                return SessionAccess.MOVED;
            }
            if (!count) {
                return SessionAccess.OWNED;
            }
            entry = node.newSessionUses.enter(id);
            if (entry == null) {
                return SessionAccess.OWNED; // counted until its first replication moves the count into the entry
            }
            // the first replication made the entry meanwhile: enter that
        }
        synchronized (entry) {
            SessionOwnership ownership = entry.ownership;
            if (ownership.isGone()) {
                return SessionAccess.MOVED;
            }
            ownership.dropPromiseToDeparted(node::isMember); // the node it was promised to has left
            if (ownership.pendingPromise() != null) {
                return SessionAccess.PROMISED; // requests here still use it: wait for it to come back, behind the asker
            }
            if (count) {
                ownership.enterRequest();
            }
            return SessionAccess.OWNED;
        }
    }

    /**
     * Whether a live copy the container holds under the id is out of date: another node owns the session
     * ({@link SessionAccess#MOVED}), or this node owns it only as a copy promoted or granted without a request
     * (dormant: the container holds nothing live for it). A copy of a session this node serves, or has promised
     * but still serves, is not.
     */
    boolean liveCopyStale(String id) {
        PrimaryEntry entry = node.primary(id);
        if (entry == null) {
            return handedAway(id);
        }
        synchronized (entry) {
            return entry.ownership.isGone() || entry.ownership.isDormant();
        }
    }

    /** No entry here, but this node lost the session or holds it as another node's backup. */
    private boolean handedAway(String id) {
        return node.lostOwnership.contains(id) || node.backups.get(id) != null;
    }

    /** A request that entered (or acquired) the session is over; carries out a pending hand-over. */
    void exit(String id) {
        PrimaryEntry entry = node.primary(id);
        if (entry == null) {
            if (node.newSessionUses.exit(id)) {
                return; // entered before the session's first replication, which has not happened yet
            }
            entry = node.primary(id); // the first replication moved the count into the entry meanwhile
            if (entry == null) {
                return;
            }
        }
        Grant granted = null;
        synchronized (entry) {
            Pending due = entry.ownership.exitRequest();
            if (due != null) {
                granted = grant(entry, due);
            }
        }
        complete(granted);
    }

    // ------------------------------------------------------------------ transport threads

    void onAcquire(Member sender, Message.Acquire m) {
        String id = m.sessionId();
        if (node.tombstones.contains(id)) {
            reply(sender, m, AcquireOutcome.INVALIDATED, null);
            return;
        }
        PrimaryEntry entry = node.primary(id);
        if (entry == null) {
            if (node.newSessionUses.inUse(id)) {
                // created here, in use and not replicated yet: it is ours; ask again once its first replication
                // has made it an entry (the asker follows the hint, backing off)
                reply(sender, m, AcquireOutcome.NOT_OWNER, node.self.name());
                return;
            }
            reply(sender, m, node.acquiring(id) ? AcquireOutcome.BUSY : AcquireOutcome.NOT_OWNER, ownerHint(id));
            return;
        }
        Grant granted = null;
        synchronized (entry) {
            SessionOwnership ownership = entry.ownership;
            if (ownership.isGone()) {
                reply(sender, m, AcquireOutcome.NOT_OWNER, ownerHint(id));
                return;
            }
            ownership.dropPromiseToDeparted(node::isMember); // a promise to a node that left is replaced
            Pending promised = ownership.pendingPromise();
            if (promised != null && !promised.requester().name().equals(sender.name())) {
                // promised to another node first: that one serves next, then hands it on
                reply(sender, m, AcquireOutcome.NOT_OWNER, promised.requester().name());
                return;
            }
            Pending due = ownership.promise(new Pending(sender, m.requestId()));
            if (due != null) {
                granted = grant(entry, due);
            } else {
                int running = ownership.requestsInFlight();
                LOG.log(System.Logger.Level.DEBUG, () -> "session " + LogIds.shortForm(id) + " promised to "
                        + sender.name() + " once " + running + " running request(s) here finish");
            }
        }
        complete(granted);
    }

    void onCancel(Member sender, Message.AcquireCancel m) {
        PrimaryEntry entry = node.primary(m.sessionId());
        if (entry == null) {
            return;
        }
        synchronized (entry) {
            entry.ownership.withdrawPromise(sender.name(), m.requestId());
        }
    }

    /** Forgets promises made to members that left. */
    void viewChanged() {
        for (PrimaryEntry entry : node.primaries.values()) {
            synchronized (entry) {
                entry.ownership.dropPromiseToDeparted(node::isMember);
            }
        }
    }

    // ------------------------------------------------------------------ the grant

    /**
     * Gives the session to the node it was promised to ({@code promised}, taken from the entry's ownership).
     * Caller holds the entry's monitor, no request here uses the session. Returns what {@link #complete} must
     * do outside the monitor (null: not granted).
     */
    private Grant grant(PrimaryEntry entry, Pending promised) {
        if (!node.isMember(promised.requester().name())) {
            return null; // it left: keep the session
        }
        String id = entry.copy.sessionId();
        SessionUpdate state = entry.fullCopy(node.attributes, false); // no request uses it: read the live session
        if (state == null) {
            LOG.log(System.Logger.Level.WARNING, "session " + LogIds.shortForm(id) + " not handed over to "
                    + promised.requester().name() + ": neither its values nor a live session are held here");
            return null;
        }
        List<String> holders = new ArrayList<>(entry.syncedBackups);
        holders.remove(promised.requester().name());
        holders.add(node.self.name());
        // In this order: a request entering meanwhile must read MOVED whatever it finds (the entry marked
        // removed, or no entry but lostOwnership), never an empty slot that looks like a new session.
        entry.ownership.handedAway();
        node.lostOwnership.add(id);
        // Our last state stays here as a backup for the new owner: if it dies before its backups hold the
        // state, this copy is promoted. Queued async updates to our backups still go out (not discarded).
        node.backups.hold(SessionCopy.of(state), promised.requester());
        node.primaries.remove(id, entry);
        node.metrics.handOversGranted.increment();
        LOG.log(System.Logger.Level.DEBUG, () -> "handing session " + LogIds.shortForm(id) + " over to "
                + promised.requester().name() + " at version " + state.toVersion() + "; holders " + holders);
        return new Grant(id, promised.requester(), node.wire.encode(new Message.AcquireReply(id,
                promised.requestId(), AcquireOutcome.GRANTED, state, null, holders)));
    }

    /** The container drops its live copy first, then the state goes to the new owner. */
    private void complete(Grant grant) {
        if (grant == null) {
            return;
        }
        try {
            node.tellOwnershipLost(grant.sessionId());
        } finally {
            node.transport.send(grant.to(), grant.reply());
        }
    }

    private void reply(Member to, Message.Acquire m, AcquireOutcome outcome, String hint) {
        node.transport.send(to, node.wire.encode(new Message.AcquireReply(m.sessionId(), m.requestId(), outcome,
                null, hint, List.of())));
    }

    /** Who this node believes owns the session: the owner of the copy it holds, if that is a member. */
    private String ownerHint(String id) {
        BackupStore.Backup backup = node.backups.get(id);
        if (backup != null && node.isMember(backup.owner.name()) && !backup.owner.name().equals(node.self.name())) {
            return backup.owner.name();
        }
        return null;
    }
}
