package io.sessionrep.core;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.placement.BackupPlacement;
import io.sessionrep.core.store.BackupStore;
import io.sessionrep.core.store.Tombstones;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.core.wire.Message;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one node knows, shared by the classes that do the work (request-end replication, take-over,
 * rebalancing, incoming messages): its configuration, the sessions it owns, the backups it holds, the
 * recently invalidated ids, and the current view.
 */
final class NodeState {
    private static final System.Logger LOG = System.getLogger(NodeState.class.getName());
    static final Duration TOMBSTONE_TTL = Duration.ofMinutes(10);
    /** How long a node remembers that another took a session over from it (refuses to re-create it). */
    static final Duration LOST_OWNERSHIP_TTL = Duration.ofMinutes(2);
    /**
     * How long a copy is kept after its owner stopped using this node as a backup (a hand-over moved the
     * session to an owner that chose other backups): long enough for them to receive the state.
     */
    static final Duration STRAY_COPY_TTL = Duration.ofMinutes(1);
    /**
     * How long a copy of a session that never expires (max inactive interval 0 or less) is kept after its
     * owner left, when no node promoted it meanwhile: such copies would otherwise stay forever.
     */
    static final Duration ORPHAN_GRACE = Duration.ofHours(1);
    /** How long a released backup ignores late one-way updates from its former owner. */
    static final Duration RELEASE_MEMORY = Duration.ofMinutes(1);

    final ReplicationConfig config;
    final Member self;
    final Clock clock;
    final ReplicationTransport transport;
    final ReplicationMetrics metrics;
    final AttributeCodec attributes;
    /** The wire protocol this node writes, agreed with the view. */
    final ClusterProtocol wire;
    final BackupPlacement placement;
    final SessionEvents events;
    final Map<String, PrimaryEntry> primaries = new ConcurrentHashMap<>();
    /** Requests here on sessions created here and not replicated yet (no entry in {@link #primaries} yet). */
    final NewSessionUses newSessionUses = new NewSessionUses(primaries);
    final BackupStore backups;
    final Tombstones tombstones;
    final Tombstones lostOwnership;
    /** Sessions a request here is acquiring from another node right now (answered BUSY to other askers). */
    final java.util.Set<String> acquiring = ConcurrentHashMap.newKeySet();
    final AsyncSender sender;
    private volatile List<Member> members;
    private volatile List<Member> others = List.of();
    private volatile boolean closed;

    NodeState(ReplicationConfig config, ReplicationTransport transport, Clock clock, ReplicationMetrics metrics,
              AttributeCodec attributes, SessionEvents events) {
        this.config = config;
        this.self = new Member(config.nodeName(), config.machineId());
        this.clock = clock;
        this.transport = transport;
        this.metrics = metrics;
        this.attributes = attributes;
        this.wire = new ClusterProtocol(config.nodeName(), transport.protocolsOf(transport.localMember()), attributes);
        this.placement = new BackupPlacement(config.writeQuota(), config.allowColocation());
        this.events = events;
        this.tombstones = new Tombstones(clock, TOMBSTONE_TTL);
        this.lostOwnership = new Tombstones(clock, LOST_OWNERSHIP_TTL);
        this.members = List.of(self);
        this.backups = new BackupStore(config.maxBackupBytes(), config.maxSessionSize());
        this.sender = new AsyncSender(transport, metrics, config.asyncQueueEntries(), config.asyncQueueBytes(),
                config.asyncBatchWindow(), config.nodeName(), this::backupOutOfDate, wire::encode);
    }

    /** A queued update to {@code backup} was dropped or failed: send it a full copy next time. */
    void backupOutOfDate(String sessionId, String backup) {
        PrimaryEntry entry = primaries.get(sessionId);
        if (entry != null) {
            synchronized (entry) {
                entry.syncedBackups.remove(backup);
            }
        }
    }


    List<Member> members() {
        return members;
    }

    /** The members of the current view except this node. */
    List<Member> others() {
        return others;
    }

    /**
     * Takes a new view, and agrees with it on the wire protocol; returns the members that read no protocol this
     * node reads ({@link ClusterProtocol}).
     */
    List<Member> setMembers(List<Member> view) {
        List<Member> strangers = wire.viewChanged(view, transport::protocolsOf);
        this.members = List.copyOf(view);
        this.others = members.stream().filter(m -> !m.name().equals(self.name())).toList();
        return strangers;
    }

    boolean acquiring(String sessionId) {
        return acquiring.contains(sessionId);
    }

    boolean closed() {
        return closed;
    }

    void markClosed() {
        closed = true;
    }

    /** Where this node, as primary, places the backups of a session under the current view. */
    List<Member> backupsOf(String sessionId) {
        return placement.backups(sessionId, self, members);
    }

    Member member(String name) {
        for (Member m : members) {
            if (m.name().equals(name)) {
                return m;
            }
        }
        return null;
    }

    boolean isMember(String name) {
        return member(name) != null;
    }

    /**
     * Whether {@code name} is in the transport's current view. Messages arrive from a member that just
     * joined before this node's own view (which follows the transport's) includes it; they are accepted.
     */
    boolean inTransportView(String name) {
        if (isMember(name)) {
            return true;
        }
        for (Member m : transport.members()) {
            if (m.name().equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** See {@link io.sessionrep.core.metrics.ReplicationMetrics#PRIMARY_HELD_BYTES}. */
    long primaryHeldBytes() {
        long held = 0;
        for (PrimaryEntry entry : primaries.values()) {
            synchronized (entry) {
                if (!entry.ownership.isGone() && entry.copy.holdsValues()) {
                    held += entry.copy.valueBytes();
                }
            }
        }
        return held;
    }

    PrimaryEntry primary(String sessionId) {
        return primaries.get(sessionId);
    }

    /**
     * Removes the primary entry (invalidated, or taken over elsewhere); true if there was one. The entry is
     * marked removed before it leaves the map: a request entering meanwhile finds it and reads
     * {@link SessionAccess#MOVED}, never an empty slot that looks like a session not replicated yet.
     */
    boolean dropPrimary(String sessionId) {
        PrimaryEntry entry = primaries.get(sessionId);
        if (entry == null) {
            return false;
        }
        HandOver.Pending unanswered;
        synchronized (entry) {
            unanswered = entry.ownership.remove();
        }
        boolean dropped = primaries.remove(sessionId, entry);
        sender.discard(sessionId);
        answerDroppedPromise(sessionId, unanswered, null);
        return dropped;
    }

    /**
     * A node was promised the session and is waiting for it, but the entry was removed before the hand-over
     * (invalidated, or owned elsewhere now): it is told so at once, instead of waiting out ownership-timeout and
     * answering its request 503. An invalidated session is answered as such; otherwise the asker looks for the
     * owner again ({@code ownerHint}, or null: it asks the cluster).
     */
    void answerDroppedPromise(String sessionId, HandOver.Pending promise, String ownerHint) {
        if (promise == null || closed()) {
            return;
        }
        Message.AcquireOutcome outcome = tombstones.contains(sessionId)
                ? Message.AcquireOutcome.INVALIDATED : Message.AcquireOutcome.NOT_OWNER;
        transport.send(promise.requester(), wire.encode(new Message.AcquireReply(sessionId, promise.requestId(),
                outcome, null, outcome == Message.AcquireOutcome.INVALIDATED ? null : ownerHint, List.of())));
    }

    /**
     * Tells the container that another node owns the session now, unless this node owns it again by then
     * (a request here took it back meanwhile: the live copy under the id is the new one, in use here).
     */
    void tellOwnershipLost(String sessionId) {
        PrimaryEntry entry = primaries.get(sessionId);
        if (entry != null) {
            synchronized (entry) {
                if (!entry.ownership.isGone()) {
                    return;
                }
            }
        }
        events.ownershipLost(sessionId);
    }

    /**
     * Another node owns the session now: remembered in {@link #lostOwnership} first, then the entry is
     * dropped, so that at no moment does this node look like it never replicated the session (a request
     * entering then would be let in uncounted, and its end would start a second owner here). True if this
     * node was its primary.
     */
    boolean yieldPrimary(String sessionId) {
        if (primaries.get(sessionId) == null) {
            return false;
        }
        lostOwnership.add(sessionId);
        return dropPrimary(sessionId);
    }

    /**
     * A backup asked for a full copy (it missed an update). Sent only to a chosen backup; a node that is
     * no longer one is told again that it is released.
     */
    void enqueueFullCopy(String sessionId, Member target) {
        PrimaryEntry entry = primaries.get(sessionId);
        if (entry == null) {
            return;
        }
        synchronized (entry) {
            if (entry.ownership.isGone() || entry.copy.version() == 0) {
                return;
            }
            if (entry.syncedBackups.contains(target.name())) {
                io.sessionrep.core.delta.SessionUpdate full = entry.fullCopyForBackup(attributes, false);
                if (full == null) {
                    entry.syncedBackups.remove(target.name()); // in use: the running request's end sends it
                    return;
                }
                BackupRefusals.ended(entry, target.name()); // it asks: it has room again
                sender.enqueue(target, full);
            } else if (!entry.formerBackups.contains(target.name())) {
                transport.send(target, wire.encode(new io.sessionrep.core.wire.Message.Release(sessionId, entry.copy.version())));
            }
        }
    }

    /**
     * The chosen backups of {@code entry} become {@code targets}; the others become former backups, kept
     * until every chosen backup has acknowledged a copy. Caller holds the entry's monitor. True when former
     * backups now wait to be released (the rebalancer confirms the new ones and releases them).
     */
    boolean retarget(PrimaryEntry entry, java.util.Collection<Member> targets) {
        java.util.Set<String> chosen = new java.util.HashSet<>();
        for (Member t : targets) {
            chosen.add(t.name());
        }
        for (String old : entry.syncedBackups) {
            if (!chosen.contains(old) && isMember(old)) {
                entry.formerBackups.add(old); // a departed member holds nothing to release
            }
        }
        entry.formerBackups.removeAll(chosen);
        entry.syncedBackups.clear();
        entry.syncedBackups.addAll(chosen);
        entry.confirmedBackups.retainAll(chosen);
        BackupRefusals.retain(entry, chosen);
        return !entry.formerBackups.isEmpty();
    }

    /**
     * Tells the former backups of {@code entry} to drop their copy, once every chosen backup confirmed
     * one. Caller holds the entry's monitor.
     */
    void releaseFormersIfSafe(PrimaryEntry entry) {
        if (entry.formerBackups.isEmpty() || !entry.confirmedBackups.containsAll(entry.syncedBackups)) {
            return;
        }
        byte[] release = wire.encode(new io.sessionrep.core.wire.Message.Release(entry.copy.sessionId(), entry.copy.version()));
        for (String former : entry.formerBackups) {
            sender.discard(entry.copy.sessionId(), former);
            entry.releasedBackup(former);
            Member m = member(former);
            if (m != null) {
                transport.send(m, release);
            }
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "released former backups " + entry.formerBackups + " of session "
                + LogIds.shortForm(entry.copy.sessionId()) + " at version " + entry.copy.version() + "; confirmed " + entry.confirmedBackups);
        entry.formerBackups.clear();
    }
}
