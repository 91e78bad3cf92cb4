package io.sessionrep.core;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.placement.BackupPlacement;
import io.sessionrep.core.store.BackupStore;
import io.sessionrep.core.store.Tombstones;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.ReplicationTransport;

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
    static final Duration TOMBSTONE_TTL = Duration.ofMinutes(10);
    /** How long a node remembers that another took a session over from it (refuses to re-create it). */
    static final Duration LOST_OWNERSHIP_TTL = Duration.ofMinutes(2);

    final ReplicationConfig config;
    final Member self;
    final Clock clock;
    final ReplicationTransport transport;
    final ReplicationMetrics metrics;
    final AttributeCodec attributes;
    final BackupPlacement placement;
    final SessionEvents events;
    final Map<String, PrimaryEntry> primaries = new ConcurrentHashMap<>();
    final BackupStore backups = new BackupStore();
    final Tombstones tombstones;
    final Tombstones lostOwnership;
    AsyncSender sender;
    private volatile List<Member> members;
    private volatile boolean closed;

    NodeState(ReplicationConfig config, ReplicationTransport transport, Clock clock, ReplicationMetrics metrics,
              AttributeCodec attributes, SessionEvents events) {
        this.config = config;
        this.self = new Member(config.nodeName(), config.machineId());
        this.clock = clock;
        this.transport = transport;
        this.metrics = metrics;
        this.attributes = attributes;
        this.placement = new BackupPlacement(config.writeQuota(), config.allowColocation());
        this.events = events;
        this.tombstones = new Tombstones(clock, TOMBSTONE_TTL);
        this.lostOwnership = new Tombstones(clock, LOST_OWNERSHIP_TTL);
        this.members = List.of(self);
    }

    List<Member> members() {
        return members;
    }

    void setMembers(List<Member> view) {
        this.members = List.copyOf(view);
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

    PrimaryEntry primary(String sessionId) {
        return primaries.get(sessionId);
    }

    /** Removes the primary entry (invalidated, or taken over elsewhere); true if there was one. */
    boolean dropPrimary(String sessionId) {
        PrimaryEntry entry = primaries.remove(sessionId);
        if (entry == null) {
            return false;
        }
        synchronized (entry) {
            entry.removed = true;
        }
        sender.discard(sessionId);
        return true;
    }

    /** Queues a full copy of an owned session for one backup and counts that backup as in sync. */
    void enqueueFullCopy(String sessionId, Member target) {
        PrimaryEntry entry = primaries.get(sessionId);
        if (entry == null) {
            return;
        }
        synchronized (entry) {
            if (!entry.removed && entry.copy.version() > 0) {
                sender.enqueue(target, entry.copy.toFullUpdate());
                entry.syncedBackups.add(target.name());
            }
        }
    }
}
