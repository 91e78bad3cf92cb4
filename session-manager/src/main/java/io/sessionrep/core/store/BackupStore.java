package io.sessionrep.core.store;

import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.Message.AckStatus;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The backup copies this node holds for other primaries, with the name of the owner of each. What they hold is
 * bounded whatever the owners send: each copy's values by {@code max-session-size}, also when deltas make it grow,
 * and all copies together by {@code max-backup-bytes}, counted as {@link SessionCopy#heldBytes} (values, ids,
 * names and a per-copy overhead). A new copy that would pass the bound is refused; an update that would make a
 * held copy pass either bound drops that copy (its owner hears {@link AckStatus#FULL}, as for a new one, and sends
 * a full copy again when this node has room): a copy that missed an update must not stay to be promoted later.
 */
public final class BackupStore {
    private final Map<String, Backup> backups = new ConcurrentHashMap<>();
    /** {@link SessionCopy#heldBytes} of the held copies. */
    private final java.util.concurrent.atomic.AtomicLong bytes = new java.util.concurrent.atomic.AtomicLong();
    private final long maxBytes;
    private final long maxCopyValueBytes;

    /** A store without a bound (tests of the core). */
    public BackupStore() {
        this(Long.MAX_VALUE, Long.MAX_VALUE);
    }

    /**
     * A store holding at most {@code maxBytes} ({@code max-backup-bytes}), each copy at most
     * {@code maxCopyValueBytes} of values ({@code max-session-size}).
     */
    public BackupStore(long maxBytes, long maxCopyValueBytes) {
        this.maxBytes = maxBytes;
        this.maxCopyValueBytes = maxCopyValueBytes;
    }

    /** What the held copies cost ({@link SessionCopy#heldBytes}). */
    public long bytes() {
        return bytes.get();
    }

    /** True when a new copy of {@code size} held bytes would exceed the bound. */
    public boolean wouldExceed(long size) {
        return bytes.get() + size > maxBytes;
    }

    /** Whether {@code update} would make the copy of its session hold more values than one copy may. */
    public boolean exceedsCopyBound(SessionUpdate update) {
        if (update.full()) {
            return update.valueBytes() > maxCopyValueBytes;
        }
        Backup held = backups.get(update.sessionId());
        if (held == null) {
            return false;
        }
        synchronized (held.copy) {
            return held.copy.sizesAfter(update)[0] > maxCopyValueBytes;
        }
    }

    private static long sizeOf(Backup b) {
        synchronized (b.copy) {
            return b.copy.heldBytes();
        }
    }
    /** Copies released recently: (owner, version) per id, so a late update cannot re-create them. */
    private final Map<String, Released> released = new ConcurrentHashMap<>();

    private record Released(String owner, long version, long at) {
    }

    /** A backup copy and the member it came from. Synchronize on {@link #copy} to read or change it. */
    public static final class Backup {
        public final SessionCopy copy;
        public volatile Member owner;
        /** When this copy was last written or re-assigned to an owner (System.currentTimeMillis). */
        public volatile long changedAt = System.currentTimeMillis();

        Backup(SessionCopy copy, Member owner) {
            this.copy = copy;
            this.owner = owner;
        }

        /** {@code owner} owns the session from now on (an ownership announcement). */
        public void follow(Member newOwner) {
            owner = newOwner;
            changedAt = System.currentTimeMillis();
        }
    }

    /**
     * Keeps {@code copy} as the backup of a session that {@code owner} now owns, replacing any held copy
     * (the previous owner keeps its last state after a hand-over, in case the new owner dies at once).
     */
    public void hold(SessionCopy copy, Member owner) {
        released.remove(copy.sessionId());
        Backup previous = backups.put(copy.sessionId(), new Backup(copy, owner));
        long size;
        synchronized (copy) {
            size = copy.heldBytes();
        }
        bytes.addAndGet(size - (previous == null ? 0 : sizeOf(previous)));
    }

    /**
     * Applies an update from {@code owner}. A full copy replaces an older copy; a delta applies only on
     * top of exactly its {@code fromVersion}, otherwise the backup needs a full copy. Anything not newer
     * than what is held is acknowledged and ignored (duplicates, reordering).
     */
    public AckStatus apply(SessionUpdate update, Member owner) {
        return apply(update, owner, false);
    }

    /**
     * As {@link #apply(SessionUpdate, Member)}; {@code acknowledged} updates (the owner waits for the answer:
     * it chose this node as a backup again) always apply, while a one-way update that was on its way when
     * this node was released is ignored.
     */
    public AckStatus apply(SessionUpdate update, Member owner, boolean acknowledged) {
        if (update.full() && update.valueBytes() > maxCopyValueBytes) {
            remove(update.sessionId());
            return AckStatus.FULL;
        }
        Released gone = released.get(update.sessionId());
        if (gone != null && gone.owner().equals(owner.name())) {
            if (acknowledged) {
                released.remove(update.sessionId(), gone);
            } else if (update.toVersion() <= gone.version()) {
                return AckStatus.APPLIED; // late message to a released backup: must not re-create a copy nobody updates
            }
        }
        Backup existing = backups.get(update.sessionId());
        if (existing == null) {
            if (!update.full()) {
                return AckStatus.NEED_FULL;
            }
            if (wouldExceed(SessionCopy.sizesOf(update)[1])) {
                return AckStatus.FULL; // the bound: new copies are refused
            }
            Backup created = new Backup(SessionCopy.of(update), owner);
            Backup raced = backups.putIfAbsent(update.sessionId(), created);
            if (raced == null) {
                bytes.addAndGet(created.copy.heldBytes());
                return AckStatus.APPLIED;
            }
            existing = raced;
        }
        boolean drop;
        synchronized (existing.copy) {
            long held = existing.copy.version();
            if (update.toVersion() <= held) {
                return AckStatus.APPLIED;
            }
            if (!update.full() && update.fromVersion() != held) {
                return AckStatus.NEED_FULL;
            }
            long before = existing.copy.heldBytes();
            long[] after = existing.copy.sizesAfter(update);
            long growth = after[1] - before;
            drop = after[0] > maxCopyValueBytes || (growth > 0 && bytes.get() + growth > maxBytes);
            if (!drop) {
                existing.copy.apply(update);
                bytes.addAndGet(existing.copy.heldBytes() - before);
                existing.owner = owner;
                existing.changedAt = System.currentTimeMillis();
                return AckStatus.APPLIED;
            }
        }
        if (backups.remove(update.sessionId(), existing)) { // it would pass a bound: a copy left behind must go
            bytes.addAndGet(-sizeOf(existing));
        }
        return AckStatus.FULL;
    }

    /** Moves the last access time of a held copy forward (a touch from its primary). */
    public void touch(String sessionId, long accessedAt, String from) {
        Backup b = backups.get(sessionId);
        if (b != null && b.owner.name().equals(from)) {
            synchronized (b.copy) {
                b.copy.touch(accessedAt);
            }
        }
    }

    /**
     * The owner no longer uses this node as a backup: drops the copy if that owner still owns it and it is
     * not newer than {@code version}, and ignores that owner's updates up to {@code version} for a while
     * (they may still be on their way). True if dropped.
     */
    public boolean release(String sessionId, String owner, long version, long now) {
        released.put(sessionId, new Released(owner, version, now));
        Backup b = backups.get(sessionId);
        if (b == null || !b.owner.name().equals(owner)) {
            return false;
        }
        synchronized (b.copy) {
            if (b.copy.version() > version) {
                return false;
            }
        }
        if (backups.remove(sessionId, b)) {
            bytes.addAndGet(-sizeOf(b));
            return true;
        }
        return false;
    }

    /** Forgets release records older than {@code before}. */
    public void purgeReleased(long before) {
        released.values().removeIf(r -> r.at() < before);
    }

    /** Every held backup (a snapshot of the keys; values may change or go). */
    public java.util.Collection<Backup> all() {
        return java.util.List.copyOf(backups.values());
    }

    public Backup get(String sessionId) {
        return backups.get(sessionId);
    }

    public Backup remove(String sessionId) {
        Backup removed = backups.remove(sessionId);
        if (removed != null) {
            bytes.addAndGet(-sizeOf(removed));
        }
        return removed;
    }

    /** A full update of the copy held, or null. */
    public SessionUpdate fullCopy(String sessionId) {
        Backup b = backups.get(sessionId);
        if (b == null) {
            return null;
        }
        synchronized (b.copy) {
            return b.copy.toFullUpdate();
        }
    }

    /** Removes the backups matching {@code expired}; returns how many. */
    public int removeIf(Predicate<Backup> expired) {
        int removed = 0;
        for (Map.Entry<String, Backup> e : backups.entrySet()) {
            if (expired.test(e.getValue()) && backups.remove(e.getKey(), e.getValue())) {
                bytes.addAndGet(-sizeOf(e.getValue()));
                removed++;
            }
        }
        return removed;
    }

    public Set<String> ids() {
        return backups.keySet();
    }

    public int size() {
        return backups.size();
    }
}
