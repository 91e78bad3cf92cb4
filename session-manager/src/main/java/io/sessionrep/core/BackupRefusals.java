package io.sessionrep.core;

import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.Message;

import java.time.Duration;
import java.util.Set;

/**
 * The primary's side of a backup that refused to start a copy of one of its sessions (the backup holds its
 * {@code max-backup-bytes}: it keeps updating the copies it holds and refuses new ones). The backup says so
 * in a {@link Message.Refused} (async) or an acknowledgement {@link Message.AckStatus#FULL} (sync, and the
 * rebalancer's confirmed copies). The primary then no longer counts that backup as holding the session:
 * {@code sessionrep.sessions.below.quota} includes it, {@code sessionrep.replication.refused} counts it, and a
 * warning names the backup (at most once a minute).
 *
 * <p>Nothing else changes: updates keep going to that backup, and once it has room again the first one it
 * cannot apply makes it ask for a full copy ({@link Message.Resync}), or, in sync mode, answers that it
 * needs one. Sending that copy, or the backup's acknowledgement that it applied an update, ends the refusal.
 */
final class BackupRefusals {
    private static final System.Logger LOG = System.getLogger(BackupRefusals.class.getName());

    private final NodeState node;
    private final WarningInterval warning = new WarningInterval(Duration.ofMinutes(1));
    /** Set at the first refusal: until then an acknowledgement has no refusal to end (no monitor taken). */
    private volatile boolean anyRefusal;

    BackupRefusals(NodeState node) {
        this.node = node;
    }

    /** The backup answered an acknowledged update of the session with {@code status}. */
    void answered(String sessionId, Member backup, Message.AckStatus status) {
        if (status == Message.AckStatus.FULL) {
            refused(sessionId, backup);
        } else if (status == Message.AckStatus.APPLIED && anyRefusal) {
            PrimaryEntry entry = node.primaries.get(sessionId);
            if (entry != null) {
                synchronized (entry) {
                    ended(entry, backup.name());
                }
            }
        }
    }

    /**
     * {@code backup} refused to start a copy of the session. Ignored unless this node owns the session and
     * places its copies there (the answer may come before the request end records its backups: in-memory,
     * on the sending thread).
     */
    void refused(String sessionId, Member backup) {
        PrimaryEntry entry = node.primaries.get(sessionId);
        if (entry == null || node.backupsOf(sessionId).stream().noneMatch(m -> m.name().equals(backup.name()))) {
            return;
        }
        synchronized (entry) {
            if (entry.ownership.isGone()) {
                return;
            }
            if (entry.refusingBackups == null) {
                entry.refusingBackups = new MemberNames();
            }
            if (!entry.refusingBackups.add(backup.name())) {
                return; // known already
            }
            anyRefusal = true;
            entry.confirmedBackups.remove(backup.name());
        }
        node.metrics.copiesRefused.increment();
        if (warning.due()) {
            LOG.log(System.Logger.Level.WARNING, "backup " + backup.name() + " refused a copy of session "
                    + LogIds.shortForm(sessionId) + ": it holds its max-backup-bytes of backups; such sessions have fewer"
                    + " copies than write-quota until it has room (gauge " + ReplicationMetrics.SESSIONS_BELOW_QUOTA
                    + ", counted in " + ReplicationMetrics.COPIES_REFUSED + ", logged at most once a minute)");
        }
    }

    /**
     * {@code backup} holds the session again, or is being sent a full copy it asked for. Caller holds the
     * entry's monitor.
     */
    static void ended(PrimaryEntry entry, String backup) {
        if (entry.refusingBackups != null && entry.refusingBackups.remove(backup) && entry.refusingBackups.isEmpty()) {
            entry.refusingBackups = null;
        }
    }

    /** Only chosen backups can be refusing. Caller holds the entry's monitor. */
    static void retain(PrimaryEntry entry, Set<String> chosen) {
        if (entry.refusingBackups != null) {
            entry.refusingBackups.retainAll(chosen);
            if (entry.refusingBackups.isEmpty()) {
                entry.refusingBackups = null;
            }
        }
    }

    /** Whether {@code backup} refused the session and holds no copy of it. Caller holds the entry's monitor. */
    static boolean refusing(PrimaryEntry entry, String backup) {
        return entry.refusingBackups != null && entry.refusingBackups.contains(backup);
    }
}
