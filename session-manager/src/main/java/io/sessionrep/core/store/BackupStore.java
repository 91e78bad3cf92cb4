package io.sessionrep.core.store;

import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.Message.AckStatus;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/** The backup copies this node holds for other primaries, with the name of the owner of each. */
public final class BackupStore {
    private final Map<String, Backup> backups = new ConcurrentHashMap<>();
    /** Attribute bytes of the held copies. */
    private final java.util.concurrent.atomic.AtomicLong bytes = new java.util.concurrent.atomic.AtomicLong();
    private final long maxBytes;

    /** A store without a bound (tests of the core). */
    public BackupStore() {
        this(Long.MAX_VALUE);
    }

    /** A store holding at most {@code maxBytes} attribute bytes; new copies beyond it are refused. */
    public BackupStore(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** Attribute bytes held. */
    public long bytes() {
        return bytes.get();
    }

    /** True when a new copy of {@code size} bytes would exceed the bound. */
    public boolean wouldExceed(long size) {
        return bytes.get() + size > maxBytes;
    }

    private static long sizeOf(Backup b) {
        synchronized (b.copy) {
            return b.copy.valueBytes();
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
        bytes.addAndGet(copy.valueBytes() - (previous == null ? 0 : sizeOf(previous)));
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
            if (wouldExceed(update.valueBytes())) {
                return AckStatus.FULL; // the bound: copies held keep being updated, new ones are refused
            }
            Backup created = new Backup(SessionCopy.of(update), owner);
            Backup raced = backups.putIfAbsent(update.sessionId(), created);
            if (raced == null) {
                bytes.addAndGet(created.copy.valueBytes());
                return AckStatus.APPLIED;
            }
            existing = raced;
        }
        synchronized (existing.copy) {
            long held = existing.copy.version();
            if (update.toVersion() <= held) {
                return AckStatus.APPLIED;
            }
            if (!update.full() && update.fromVersion() != held) {
                return AckStatus.NEED_FULL;
            }
            long before = existing.copy.valueBytes();
            existing.copy.apply(update);
            bytes.addAndGet(existing.copy.valueBytes() - before);
            existing.owner = owner;
            existing.changedAt = System.currentTimeMillis();
            return AckStatus.APPLIED;
        }
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
