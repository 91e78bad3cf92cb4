package io.sessionrep.core;

import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.store.SessionCopy;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * What the primary knows about one session it owns: the version its backups hold, a digest of each
 * attribute (to tell what a request changed) and which backups hold it. While the container holds the
 * session live, the live session is the only copy of the values here: full copies are serialized from
 * it ({@link #fullCopy}). Guarded by its own monitor: updates of one session are built and handed to the
 * network in version order.
 */
final class PrimaryEntry {
    final SessionCopy copy;
    /**
     * The container's live session, as the last request end saw it; null until a request ended here (a
     * session promoted from a backup or granted by a hand-over: {@link #copy} then holds the values).
     */
    SessionSnapshot live;
    // The sets below hold a few member names each, usually one or none, and are kept for every owned
    // session: compact sets (MemberNames) rather than HashSets.
    /** The chosen backups: they hold {@code copy.version()} (or will, once queued updates arrive). */
    final Set<String> syncedBackups = new MemberNames();
    /** Chosen backups that acknowledged holding the chain (a full copy or a sync update). */
    final Set<String> confirmedBackups = new MemberNames();
    /** Chosen backups sent a full copy for confirmation whose answer has not come yet (not sent twice). */
    final Set<String> confirming = new MemberNames();
    /**
     * Backups no longer chosen (membership changed) that still hold a copy. They are released only once
     * every chosen backup has acknowledged a copy: until then they may be the only up-to-date holders.
     */
    final Set<String> formerBackups = new MemberNames();
    /**
     * Chosen backups that refused to start a copy of this session (their max-backup-bytes reached) and were
     * not sent a full copy since: they hold nothing of it ({@link BackupRefusals}). Null while none, which
     * is nearly always.
     */
    Set<String> refusingBackups;
    /**
     * Former backups this node released, and at which version (null while none, which is nearly always). A
     * released node ignores one-way updates from this node up to that version for a while (a late one must not
     * re-create the copy it dropped), so when it is chosen again before the session changed, its full copy must
     * go acknowledged ({@link #mustAcknowledge}), which always applies.
     */
    Map<String, Long> released;
    /**
     * Whether the container holds it live, the requests here that use it, a promise to another node, whether
     * this node still owns it ({@link SessionOwnership}).
     */
    final SessionOwnership ownership;
    /** max-session-size warning already logged for this session. */
    boolean oversizeWarned;
    /**
     * After a hand-over this copy is renumbered (version + 1) without changing its content; the backups
     * hold the content at the version the previous owner had. The first delta starts from that version
     * ({@code deltaBase}) so that they can apply it; -1 once used, or when there was no hand-over.
     */
    long deltaBase = -1;

    /** A session replicated here for the first time. */
    PrimaryEntry(SessionCopy copy) {
        this(copy, SessionOwnership.firstReplicated());
    }

    PrimaryEntry(SessionCopy copy, SessionOwnership ownership) {
        this.copy = copy;
        this.ownership = ownership;
    }

    /**
     * The session in full at the current version: the values {@link #copy} holds, else serialized from the
     * live session. Null when the values are only in the live session and a request here uses it, unless
     * {@code whileInUse}: a copy read while a request changes the objects could mix two states; that
     * request's end sends a full copy to every backup that lacks one. Caller holds the monitor.
     */
    SessionUpdate fullCopy(AttributeCodec codec, boolean whileInUse) {
        if (copy.holdsValues()) {
            return copy.toFullUpdate();
        }
        if (live == null || (ownership.inUse() && !whileInUse)) {
            return null;
        }
        Map<String, byte[]> values = new HashMap<>();
        for (String name : live.attributeNames()) {
            Object value = live.attribute(name);
            byte[] bytes = value == null ? null : codec.write(copy.sessionId(), name, value);
            if (bytes != null) {
                values.put(name, bytes);
            }
        }
        return copy.toFullUpdate(values);
    }

    /** Records that {@code backup} was told to drop its copy at the current version. Caller holds the monitor. */
    void releasedBackup(String backup) {
        if (released == null) {
            released = new HashMap<>(2);
        }
        released.put(backup, copy.version());
    }

    /**
     * Whether a full copy at {@code version} for {@code backup} would be ignored there as a late update (it was
     * released at that version or later) and must therefore be sent acknowledged. Caller holds the monitor.
     */
    boolean mustAcknowledge(String backup, long version) {
        Long at = released == null ? null : released.get(backup);
        return at != null && at >= version;
    }

    /** {@code backup} was sent an acknowledged full copy: it holds one again. Caller holds the monitor. */
    void copySentAcknowledged(String backup) {
        if (released != null && released.remove(backup) != null && released.isEmpty()) {
            released = null;
        }
    }

    /**
     * A full copy at the current version, for a backup (null: see {@link #fullCopy}). From then on that
     * backup holds the current version, so later deltas start from it: the hand-over's {@link #deltaBase}
     * no longer applies. Caller holds the monitor.
     */
    SessionUpdate fullCopyForBackup(AttributeCodec codec, boolean whileInUse) {
        SessionUpdate full = fullCopy(codec, whileInUse);
        if (full != null) {
            deltaBase = -1;
        }
        return full;
    }
}
