package io.sessionrep.core;

import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.store.BackupStore;
import io.sessionrep.core.store.SessionCopy;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.MalformedMessageException;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Fail-over: a request needs a session that no live node owns (its owner died), or one this node owns but
 * the container does not hold (promoted from a backup). The newest copy is found (the cluster is asked:
 * a local backup may be older than another), this node becomes primary at the next version, announces it,
 * and sends full copies to its backups at once. A session whose owner is alive is never taken here: it is
 * handed over ({@link Acquisition}, {@link HandOver}).
 */
final class TakeOver {
    private static final System.Logger LOG = System.getLogger(TakeOver.class.getName());

    /** How long an id that no node knew is answered "unknown" without asking the cluster again. */
    static final java.time.Duration MISS_TTL = java.time.Duration.ofSeconds(5);

    private final NodeState node;
    private final OwnershipTimeouts timeouts;
    /** Ids recently asked for that no node knew (stale cookies): answered locally for a short while. */
    private final io.sessionrep.core.store.Tombstones recentMisses;

    TakeOver(NodeState node, OwnershipTimeouts timeouts) {
        this.node = node;
        this.timeouts = timeouts;
        this.recentMisses = new io.sessionrep.core.store.Tombstones(node.clock, MISS_TTL);
    }

    /** Forgets misses older than {@link #MISS_TTL}. */
    void purgeMisses() {
        recentMisses.purgeExpired();
    }

    /** True when nobody knew this id a moment ago (and this node holds nothing of it). */
    boolean recentlyMissed(String sessionId) {
        return node.backups.get(sessionId) == null && recentMisses.contains(sessionId);
    }

    /** Forgets every miss: members joined, and may know ids that nobody knew a moment ago. */
    void forgetMisses() {
        recentMisses.clear();
    }

    /**
     * {@code enter}: the caller is a request, counted as using the session (it calls exit when done).
     * Null (not empty) when a live node serves the session: it must be acquired from that node.
     */
    Optional<RestoredSession> takeOver(String sessionId, boolean enter) {
        return takeOver(sessionId, enter, true);
    }

    /** {@code mayResume}: an entry that appears here while the cluster is asked is resumed (once). */
    private Optional<RestoredSession> takeOver(String sessionId, boolean enter, boolean mayResume) {
        if (node.closed() || node.tombstones.contains(sessionId)) {
            return Optional.empty();
        }
        // The backup is read before the entry: a promotion ({@link Rebalancer}) or a grant puts the entry
        // before it removes the backup, so a session moving from one to the other meanwhile is seen in one.
        SessionUpdate held = node.backups.fullCopy(sessionId);
        PrimaryEntry owned = node.primary(sessionId);
        if (owned == null && held == null && recentMisses.contains(sessionId)) {
            node.metrics.takeoverMisses.increment();
            return Optional.empty(); // asked a moment ago, nobody had it: do not ask everyone again
        }
        SessionUpdate local;
        boolean liveElsewhere = false;
        if (owned != null) {
            synchronized (owned) {
                local = owned.ownership.isGone() || owned.copy.version() == 0 ? null
                        : owned.fullCopy(node.attributes, true);
                liveElsewhere = owned.ownership.isDormant();
                if (local != null && !liveElsewhere) {
                    owned.ownership.resumedByTakeOver(enter);
                }
            }
            if (local != null && !liveElsewhere) {
                return Optional.of(restore(sessionId, local, owned)); // the container dropped its live copy
            }
        } else {
            local = held;
        }
        // Always compare with the cluster: a local backup may be older than a copy elsewhere (a node that
        // was hung or restarted), and the old primary may still be alive with the newest state.
        Found found = fetch(sessionId, local, System.nanoTime() + node.config.ownershipTimeout().toNanos());
        if (found.servedElsewhere()) {
            if (owned != null) {
                node.dropPrimary(sessionId); // our promoted copy yields to the node serving it
            }
            return null; // a live node owns it: it must be handed over, not taken (its state is the newest)
        }
        if (!found.complete()) {
            // a member of the view may hold a newer copy than any answer: serving without it could lose updates
            throw timeouts.refuse(sessionId, "could not be taken over by " + node.self.name(),
                    "member(s) " + found.silent() + " did not say which copy they hold");
        }
        SessionUpdate source = found.newest();
        if (owned == null && mayResume && node.primary(sessionId) != null) {
            // this node became its owner while the cluster was asked (a promotion or a late grant): resume
            // that entry, compared with the cluster again, rather than report the session missing
            return takeOver(sessionId, enter, false);
        }
        if (source == null || node.tombstones.contains(sessionId)) {
            node.metrics.takeoverMisses.increment();
            recentMisses.add(sessionId);
            return Optional.empty();
        }
        node.lostOwnership.remove(sessionId);
        SessionUpdate localCopy = local;
        LOG.log(System.Logger.Level.DEBUG, () -> "taking session " + LogIds.shortForm(sessionId) + " over from version " + source.toVersion()
                + (source == localCopy ? " (own copy)" : " (cluster; own copy " + (localCopy == null ? "none" : localCopy.toVersion()) + ")"));
        PrimaryEntry entry;
        if (owned != null && source == local) {
            boolean resumed;
            synchronized (owned) {
                resumed = !owned.ownership.isGone();
                if (resumed) {
                    owned.ownership.resumedByTakeOver(enter); // the container holds it live from now on
                }
            }
            if (!resumed) {
                // removed while the cluster was asked (invalidated, or owned elsewhere now): serving this entry
                // would make a second owner; look again, once (then: a live node serves it)
                return mayResume ? takeOver(sessionId, enter, false) : null;
            }
            entry = owned;
        } else {
            if (owned != null) {
                node.dropPrimary(sessionId); // our promoted copy is older than one elsewhere
            }
            boolean fromLocalBackup = source == local;
            entry = becomePrimary(source, true, enter);
            (fromLocalBackup ? node.metrics.takeoversLocal : node.metrics.takeoversCluster).increment();
            SessionUpdate entryCopy;
            synchronized (entry) {
                // what the entry holds: source, unless another thread here made it a moment before (the Rebalancer)
                entryCopy = entry.fullCopy(node.attributes, true);
            }
            return Optional.of(restore(sessionId, entryCopy != null ? entryCopy : source, entry));
        }
        return Optional.of(restore(sessionId, source, entry));
    }

    /** The copy as live objects for the container, at the entry's version. */
    RestoredSession restore(String sessionId, SessionUpdate source, PrimaryEntry entry) {
        Map<String, Object> values = new HashMap<>();
        for (Map.Entry<String, byte[]> a : source.changed().entrySet()) {
            Object value = node.attributes.read(sessionId, a.getKey(), a.getValue(), "take-over");
            if (value != null) {
                values.put(a.getKey(), value);
            }
        }
        long version;
        synchronized (entry) {
            version = entry.copy.version();
        }
        return new RestoredSession(sessionId, source.creationTime(), source.lastAccessedTime(),
                source.maxInactiveSeconds(), values, version);
    }

    /**
     * Makes this node primary of a session from a full copy, at the copy's version + 1, and announces it.
     * {@code serving}: for a request here; false when the {@link Rebalancer} promotes an orphaned backup
     * proactively (the entry is dormant, and yields to a serving owner at the same version).
     */
    PrimaryEntry becomePrimary(SessionUpdate source, boolean serving) {
        return becomePrimary(source, serving, false);
    }

    /** As above; {@code enter}: a request here uses the session from now on (counted). */
    PrimaryEntry becomePrimary(SessionUpdate source, boolean serving, boolean enter) {
        if (enter && !serving) {
            throw new IllegalArgumentException("a request here serves the session");
        }
        String id = source.sessionId();
        SessionCopy copy = SessionCopy.of(source);
        copy.setVersion(source.toVersion() + 1);
        PrimaryEntry fresh = new PrimaryEntry(copy,
                serving ? SessionOwnership.serving(enter) : SessionOwnership.dormant());
        PrimaryEntry entry = node.primaries.putIfAbsent(id, fresh);
        if (entry != null) {
            // another thread here made it primary first: a request, or the Rebalancer's promotion (dormant)
            if (serving) {
                synchronized (entry) {
                    entry.ownership.resumedByTakeOver(enter); // the container holds it live from now on
                }
            }
            return entry;
        }
        node.backups.remove(id);
        // announced as just taken (the hand-over flag): holders outside this node's placement keep their copy
        // until its backups hold one, since they may be the only ones left if it dies at once
        node.transport.broadcast(node.wire.encode(new Message.Ownership(id, copy.version(), node.self.name(), serving, true)));
        if (node.config.writeQuota() > 0) {
            synchronized (fresh) {
                SessionUpdate full = fresh.copy.toFullUpdate();
                List<Member> targets = node.backupsOf(id);
                for (Member target : targets) {
                    node.sender.enqueue(target, full); // restore the quota at once, whatever the mode
                }
                fresh.syncedBackups.clear();
                for (Member target : targets) {
                    fresh.syncedBackups.add(target.name());
                }
            }
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "became primary of session " + LogIds.shortForm(id) + " at version " + copy.version());
        return fresh;
    }

    /** Asks every other member for its copy and returns the newest (or {@code local}, if newer). */
    SessionUpdate fetchNewest(String sessionId, SessionUpdate local) {
        return fetch(sessionId, local).newest();
    }

    /**
     * The newest copy in the cluster (or {@code local}), whether a live node serves it as primary, the members
     * of the view that did not answer (empty: the answer is complete), and the members that answered with a copy.
     */
    record Found(SessionUpdate newest, boolean servedElsewhere, Set<String> silent, Set<String> holders) {
        boolean complete() {
            return silent.isEmpty();
        }
    }

    /** One round of asking: for the rebalancer, which leaves a session with a silent member to a later pass. */
    Found fetch(String sessionId, SessionUpdate local) {
        return fetch(sessionId, local, System.nanoTime() + fetchTimeout().toNanos());
    }

    /**
     * Asks every other member for its copy, and asks again those that did not answer, until every member
     * of the view has answered or {@code deadline} ({@link System#nanoTime}) has passed. A member that leaves
     * the view meanwhile is not waited for. A malformed answer counts as answered (and is counted): a
     * member cannot hold take-overs back by garbling its replies.
     */
    Found fetch(String sessionId, SessionUpdate local, long deadline) {
        return fetch(sessionId, local, deadline, null);
    }

    /** As above, asking only the members named {@code only} (null: every other member). */
    Found fetch(String sessionId, SessionUpdate local, long deadline, Set<String> only) {
        Set<String> pending = new HashSet<>();
        for (Member m : node.members()) {
            if (!m.name().equals(node.self.name()) && (only == null || only.contains(m.name()))) {
                pending.add(m.name());
            }
        }
        byte[] fetch = node.wire.encode(new Message.Fetch(sessionId));
        SessionUpdate newest = local;
        boolean served = false;
        Set<String> holders = new HashSet<>();
        while (!pending.isEmpty()) {
            List<Member> asked = node.members().stream().filter(m -> pending.contains(m.name())).toList();
            pending.retainAll(asked.stream().map(Member::name).toList()); // those that left the view are not waited for
            if (asked.isEmpty()) {
                break;
            }
            long roundStarted = System.nanoTime();
            long left = Math.max(deadline - roundStarted, TimeUnit.MILLISECONDS.toNanos(100));
            Duration timeout = Duration.ofNanos(Math.min(fetchTimeout().toNanos(), left));
            List<CompletableFuture<byte[]>> replies = new ArrayList<>();
            for (Member m : asked) {
                replies.add(node.transport.request(m, fetch, timeout));
            }
            try {
                CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
                        .get(timeout.toMillis() + 200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // some members did not answer in time: asked again below, until the deadline
            }
            for (int i = 0; i < asked.size(); i++) {
                CompletableFuture<byte[]> reply = replies.get(i);
                if (!reply.isDone() || reply.isCompletedExceptionally()) {
                    continue;
                }
                pending.remove(asked.get(i).name());
                try {
                    if (WireCodec.decode(reply.join()) instanceof Message.FetchReply r && r.copy() != null
                            && r.copy().sessionId().equals(sessionId)) {
                        served |= r.primary();
                        holders.add(asked.get(i).name());
                        if (newest == null || r.copy().toVersion() > newest.toVersion()) {
                            newest = r.copy();
                        }
                    }
                } catch (MalformedMessageException e) {
                    node.metrics.rejectedMalformed.increment();
                }
            }
            if (pending.isEmpty() || System.nanoTime() >= deadline || node.closed()
                    || Thread.currentThread().isInterrupted()) {
                break;
            }
            pauseBeforeAskingAgain(roundStarted);
        }
        return new Found(newest, served, Set.copyOf(pending), Set.copyOf(holders));
    }

    /** A round that failed at once (a member being removed) is not repeated in a busy loop. */
    private static void pauseBeforeAskingAgain(long roundStarted) {
        long spent = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - roundStarted);
        if (spent < 50) {
            try {
                Thread.sleep(50 - spent);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Duration fetchTimeout() {
        Duration twice = node.config.syncTimeout().multipliedBy(2);
        return twice.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : twice;
    }
}
