package io.sessionrep.core.wire;

import io.sessionrep.core.delta.SessionUpdate;

/** The replication protocol's messages, as {@link WireCodec} reads and writes them. */
public sealed interface Message {

    /** Primary to backup: apply this update. {@code ackRequested}: the sender waits for an {@link Ack}. */
    record Update(SessionUpdate update, boolean ackRequested) implements Message {
    }

    /**
     * Backup's answer to an update that asked for one: the session and the version ({@code toVersion}) of the update
     * it answers. {@code sessionId} is null in protocols before 4, which do not carry it.
     */
    record Ack(AckStatus status, long version, String sessionId) implements Message {
        public Ack(AckStatus status, long version) {
            this(status, version, null);
        }
    }

    /** The session was invalidated or expired: drop every copy and remember it is dead. */
    record Invalidate(String sessionId) implements Message {
    }

    /**
     * {@code owner} is now the primary of the session, at {@code version}. {@code serving}: the owner took it
     * over for a request (false: it promoted a backup proactively after the primary left, and serves
     * nothing yet). At equal versions a serving owner outranks a promoted one. {@code handedOver}: the
     * owner has just taken the session (its previous owner handed it over, or it took it over or promoted it
     * from a copy): holders keep their copies for a while even when the new owner does not use them as
     * backups, since its own backups may not hold the state yet.
     */
    record Ownership(String sessionId, long version, String owner, boolean serving, boolean handedOver)
            implements Message {
        public Ownership(String sessionId, long version, String owner, boolean serving) {
            this(sessionId, version, owner, serving, false);
        }
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

    /**
     * Backup to primary, for an update that asked for no acknowledgement: this node holds max-backup-bytes of
     * backups and refused to start a copy of the session (a sync primary reads {@link AckStatus#FULL} in the
     * acknowledgement instead). Until the backup asks for a full copy ({@link Resync}), the session has one
     * copy fewer than write-quota there.
     */
    record Refused(String sessionId) implements Message {
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

    /**
     * Hand-over, requester to the member it believes owns the session (or to every member when it does not
     * know): give me the session before my request runs. {@code requestId} correlates the answer;
     * {@code heldVersion} is the version of the copy the requester already holds (-1: none).
     * Answer: {@link AcquireReply}, one-way, possibly after the owner's running requests finished.
     */
    record Acquire(String sessionId, long requestId, long heldVersion) implements Message {
    }

    /**
     * Answer to {@link Acquire}. {@code GRANTED}: {@code state} is the owner's newest state and the
     * requester owns the session from now on; {@code holders} are the members that hold (or are being
     * sent) that state as backups. Otherwise {@code state} is null and {@code ownerHint} names the member
     * the replier believes owns the session (null: none known).
     */
    record AcquireReply(String sessionId, long requestId, AcquireOutcome outcome, SessionUpdate state,
                        String ownerHint, java.util.List<String> holders) implements Message {
    }

    /** The requester gave up waiting (ownership-timeout): forget its pending {@link Acquire}. */
    record AcquireCancel(String sessionId, long requestId) implements Message {
    }

    enum AcquireOutcome {
        /** The session now belongs to the requester; the state travels with this answer. */
        GRANTED,
        /** The replier does not own the session; see the owner hint. */
        NOT_OWNER,
        /** The replier is itself acquiring the session right now: ask again shortly. */
        BUSY,
        /** The session was invalidated. */
        INVALIDATED
    }

    enum AckStatus {
        /** Stored (or already held a newer version). */
        APPLIED,
        /** Version gap: the backup needs a full copy. */
        NEED_FULL,
        /** The session is invalidated here; the update was discarded. */
        INVALIDATED,
        /** This node holds max-backup-bytes of backups already: a new copy was refused. */
        FULL
    }

    /**
     * Operator query (protocol 4 and later), to one member: which sessions it owns (and which copies whose owner
     * left it holds) that match. Only members reading protocol 4 are asked. Reply: {@link AdminReply}, at most
     * {@code limit} rows from the {@code offset}-th match on, in the replier's order (newest access first).
     */
    record AdminQuery(AdminKind kind, String argument, int offset, int limit) implements Message {
        /** The most rows one query asks for, and one reply carries. */
        public static final int MAX_ROWS = 1000;
    }

    /** What an {@link AdminQuery} asks. */
    enum AdminKind {
        /** How many sessions the member owns; no rows. */
        COUNT,
        /** Every session, as rows ({@code argument} empty). */
        LIST,
        /** The sessions of the principal {@code argument}, as rows. */
        PRINCIPAL,
        /** The session whose short form is {@code argument}, its whole id in the row (for an invalidation). */
        RESOLVE_SHORT_ID,
        /** The sessions of the principal {@code argument}, their whole ids in the rows (for an invalidation). */
        RESOLVE_PRINCIPAL
    }

    /**
     * Reply to {@link AdminQuery}: {@code total} matches held by the replier, of which {@code rows} (at most
     * {@link AdminQuery#MAX_ROWS}).
     */
    record AdminReply(int total, java.util.List<AdminRow> rows) implements Message {
    }

    /**
     * One session in an {@link AdminReply}. {@code session}: the id's short form ({@code LogIds.shortForm}), the whole
     * id only in answer to a RESOLVE query. {@code owner}: the member that owns it, empty when its owner left and no
     * member took it over yet (the row then comes from a copy). {@code principal}: empty when not known.
     */
    record AdminRow(String session, String owner, java.util.List<String> backups, long sizeBytes,
                    long lastAccessedTime, String principal) {
    }
}
