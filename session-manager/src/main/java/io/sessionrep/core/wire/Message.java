package io.sessionrep.core.wire;

import io.sessionrep.core.delta.SessionUpdate;

/** The replication protocol's messages, as {@link WireCodec} reads and writes them. */
public sealed interface Message {

    /** Primary to backup: apply this update. {@code ackRequested}: the sender waits for an {@link Ack}. */
    record Update(SessionUpdate update, boolean ackRequested) implements Message {
    }

    /** Backup's answer to an update that asked for one. */
    record Ack(AckStatus status, long version) implements Message {
    }

    /** The session was invalidated or expired: drop every copy and remember it is dead. */
    record Invalidate(String sessionId) implements Message {
    }

    /**
     * {@code owner} is now the primary of the session, at {@code version}. {@code serving}: the owner took it
     * over for a request (false: it promoted a backup proactively after the primary left, and serves
     * nothing yet). At equal versions a serving owner outranks a promoted one.
     */
    record Ownership(String sessionId, long version, String owner, boolean serving) implements Message {
    }

    /** Request: send me your copy of the session (reply: {@link FetchReply}). */
    record Fetch(String sessionId) implements Message {
    }

    /**
     * Reply to {@link Fetch}; {@code copy} is null when the node holds none; {@code primary}: the replying
     * node owns the session (it may be serving it right now).
     */
    record FetchReply(SessionUpdate copy, boolean primary) implements Message {
        public FetchReply(SessionUpdate copy) {
            this(copy, false);
        }
    }

    /** Backup to primary: I missed an update, send me a full copy. */
    record Resync(String sessionId) implements Message {
    }

    /** Primary to backup: the last access time of sessions used read-only (batched). */
    record Touch(java.util.List<Entry> entries) implements Message {
        public record Entry(String sessionId, long lastAccessedTime) {
        }
    }

    /** Primary to a former backup: you are no longer a backup of this session, drop your copy. */
    record Release(String sessionId, long version) implements Message {
    }

    /**
     * After a merge (members joined the view), to each joined member: what do you hold of these sessions?
     * Reply: {@link ReconcileReply}.
     */
    record Reconcile(java.util.List<String> sessionIds) implements Message {
    }

    /**
     * Reply to {@link Reconcile}: the replier's claim on each listed session it knows. Omitted: ids it
     * knows nothing of, and backups it holds for the requester itself (no conflict).
     */
    record ReconcileReply(java.util.List<Claim> claims) implements Message {
        public record Claim(String sessionId, ClaimKind kind, long version) {
        }
    }

    /** What a node holds of a session, in {@link ReconcileReply}. */
    enum ClaimKind {
        /** Invalidated here recently (a tombstone): the session must not come back. */
        INVALIDATED,
        /** A backup copy (of another owner than the requester). */
        BACKUP,
        /** Primary, promoted from a backup and not used by a request since (the container does not hold it). */
        DORMANT_PRIMARY,
        /** Primary, held live by this node's container. */
        PRIMARY
    }

    enum AckStatus {
        /** Stored (or already held a newer version). */
        APPLIED,
        /** Version gap: the backup needs a full copy. */
        NEED_FULL,
        /** The session is invalidated here; the update was discarded. */
        INVALIDATED
    }
}
