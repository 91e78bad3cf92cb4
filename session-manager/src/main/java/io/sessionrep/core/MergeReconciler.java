package io.sessionrep.core;

import io.sessionrep.core.store.BackupStore;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.MalformedMessageException;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.Message.ClaimKind;
import io.sessionrep.core.wire.Message.ReconcileReply.Claim;
import io.sessionrep.core.wire.WireCodec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Heals the session state after a partition: when members (re)join the view (a merge, or a plain join),
 * this node asks each of them, in the rebalancer's background pass, what it holds of the sessions held
 * here ({@link Message.Reconcile}), and settles every conflict:
 * <ul>
 *   <li><b>Invalidation wins</b>: a session the other side invalidated (its tombstone) is invalidated here
 *       too, whatever its version: an invalidated session never comes back.</li>
 *   <li><b>One primary</b>: when both sides hold the session as primary, the claims are ordered, and the
 *       lower one drops its primary copy (the container is told, {@link SessionEvents#ownershipLost}):
 *       a primary that a request used (live) beats one promoted from a backup and not used since
 *       (dormant); then the higher version wins; equal versions: the node whose name sorts last wins
 *       (as for two concurrent take-overs). Every node orders the same claims the same way.</li>
 *   <li>The winner renumbers its copy above every version the other side holds and announces its
 *       ownership at that version, so the other side's copies (the loser's backups) follow it or are
 *       dropped as stale; its chosen backups then get a full copy from the rebalancer, and the backups it
 *       had during the split are released once those acknowledged.</li>
 * </ul>
 * A node answers {@link Message.Reconcile} only from a member of its own view: once the winner has heard
 * every joined member, each of them has installed a view that holds the winner, so none ignores its
 * announcement as coming from an unknown node.
 * The request path is untouched: requests keep being served while this runs, and anything that races
 * with it is settled by the version-checked ownership messages.
 */
final class MergeReconciler {
    private static final System.Logger LOG = System.getLogger(MergeReconciler.class.getName());

    /** Session ids per {@link Message.Reconcile} request. */
    static final int BATCH = 1000;
    /** How long one batch may take to be answered. */
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    /**
     * How long a joined member that refuses a batch (it has not installed the view with this node yet) is
     * asked again, every {@link #VIEW_WAIT_STEP_MILLIS}, before the pass leaves it for the next one.
     */
    static final Duration VIEW_WAIT = Duration.ofSeconds(5);
    static final long VIEW_WAIT_STEP_MILLIS = 200;

    /** Passes that may fail to reach a joined member before it is given up on (warned). */
    static final int MAX_ATTEMPTS = 3;

    private final NodeState node;
    private final Runnable forgetMisses;
    /** Members that joined the view and were not reconciled with yet, by name. */
    private final Map<String, Pending> pending = new HashMap<>();
    private Set<String> lastView = Set.of();
    private long views;

    /** A member to reconcile with: the view that added it, and the passes that failed to reach it. */
    private record Pending(long view, int failures) {
    }

    MergeReconciler(NodeState node, Runnable forgetMisses) {
        this.node = node;
        this.forgetMisses = forgetMisses;
    }

    /** A new view: members that were not in the previous one are to be reconciled with. */
    synchronized void viewChanged(List<Member> view) {
        views++;
        Set<String> names = new HashSet<>();
        boolean joined = false;
        for (Member m : view) {
            names.add(m.name());
            if (!lastView.contains(m.name()) && !m.name().equals(node.self.name())) {
                pending.put(m.name(), new Pending(views, 0));
                joined = true;
            }
        }
        pending.keySet().retainAll(names);
        lastView = names;
        if (joined) {
            forgetMisses.run(); // an id nobody knew a moment ago may be known by the members that came
        }
    }

    /**
     * Reconciles the sessions held here with the members that joined since the last call (see the class
     * comment). A member that did not answer stays pending for the next pass. Returns the number of
     * sessions whose state changed here (invalidated, dropped, or renumbered as the winner).
     */
    int reconcile() {
        Map<String, Pending> partners;
        synchronized (this) {
            if (pending.isEmpty()) {
                return 0;
            }
            partners = new HashMap<>(pending);
        }
        List<String> ids = new ArrayList<>(node.primaries.keySet());
        for (String id : node.backups.ids()) {
            if (!node.primaries.containsKey(id)) {
                ids.add(id);
            }
        }
        Map<String, List<RemoteClaim>> claims = new HashMap<>();
        Set<String> answered = new HashSet<>();
        for (Map.Entry<String, Pending> p : partners.entrySet()) {
            Member partner = node.member(p.getKey());
            if (partner == null || node.closed()) {
                answered.add(p.getKey()); // gone again: nothing to reconcile with
                continue;
            }
            String failure = ask(partner, ids, claims);
            if (failure == null) {
                answered.add(p.getKey());
            } else if (p.getValue().failures() + 1 >= MAX_ATTEMPTS) {
                answered.add(p.getKey());
                LOG.log(System.Logger.Level.WARNING, "could not reconcile the sessions held here with " + partner.name()
                        + ", which joined the view, in " + MAX_ATTEMPTS + " attempts (" + failure + "); a session held on"
                        + " both sides may keep a primary on each until a request takes it over");
            } else {
                synchronized (this) { // retried at the next pass (maintenance asks for one every 15 s)
                    pending.replace(p.getKey(), p.getValue(), new Pending(p.getValue().view(), p.getValue().failures() + 1));
                }
            }
        }
        synchronized (this) {
            for (String name : answered) {
                Pending current = pending.get(name);
                if (current != null && current.view() == partners.get(name).view()) {
                    pending.remove(name); // unless it left and joined again meanwhile
                }
            }
        }
        int changed = 0;
        for (Map.Entry<String, List<RemoteClaim>> e : claims.entrySet()) {
            if (node.closed()) {
                break;
            }
            changed += settle(e.getKey(), e.getValue()) ? 1 : 0;
        }
        if (changed > 0 || !claims.isEmpty()) {
            LOG.log(System.Logger.Level.INFO, "reconciled " + ids.size() + " sessions with joined members "
                    + answered + ": " + claims.size() + " also held there, " + changed + " settled here");
        }
        return changed;
    }

    private record RemoteClaim(String member, ClaimKind kind, long version) {
    }

    /** Asks {@code partner} about {@code ids} in batches; null if it answered every batch, else why not. */
    private String ask(Member partner, List<String> ids, Map<String, List<RemoteClaim>> into) {
        for (int from = 0; from < ids.size(); from += BATCH) {
            List<String> batch = ids.subList(from, Math.min(ids.size(), from + BATCH));
            byte[] request = node.wire.encode(new Message.Reconcile(List.copyOf(batch)));
            byte[] reply = null;
            long giveUp = System.nanoTime() + VIEW_WAIT.toNanos();
            while (reply == null) {
                try {
                    reply = node.transport.request(partner, request, TIMEOUT)
                            .get(TIMEOUT.toMillis() + 200, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return "interrupted";
                } catch (Exception e) {
                    // refused at once: typically the partner has not installed the view with this node yet
                    LOG.log(System.Logger.Level.DEBUG, "reconciliation with " + partner.name() + " failed: " + e);
                    if (System.nanoTime() > giveUp || node.closed() || node.member(partner.name()) == null
                            || !sleep(VIEW_WAIT_STEP_MILLIS)) {
                        return String.valueOf(e.getCause() != null ? e.getCause() : e);
                    }
                }
            }
            try {
                if (!(WireCodec.decode(reply) instanceof Message.ReconcileReply r)) {
                    node.metrics.rejectedMalformed.increment();
                    return "unexpected reply";
                }
                for (Claim c : r.claims()) {
                    into.computeIfAbsent(c.sessionId(), k -> new ArrayList<>())
                            .add(new RemoteClaim(partner.name(), c.kind(), c.version()));
                }
            } catch (MalformedMessageException e) {
                node.metrics.rejectedMalformed.increment();
                return "malformed reply: " + e.getMessage();
            }
        }
        return null;
    }

    private static boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Settles one session held here against what the joined members hold. True if anything changed here. */
    private boolean settle(String id, List<RemoteClaim> remote) {
        for (RemoteClaim c : remote) {
            if (c.kind() == ClaimKind.INVALIDATED) {
                return invalidate(id, c.member());
            }
        }
        PrimaryEntry mine = node.primary(id);
        if (mine == null) {
            return false; // a backup here: its primary settles it
        }
        boolean myLive;
        long myVersion;
        synchronized (mine) {
            if (mine.ownership.isGone() || mine.copy.version() == 0) {
                return false;
            }
            myLive = mine.ownership.servedLive();
            myVersion = mine.copy.version();
        }
        RemoteClaim winner = null;
        long highest = 0;
        for (RemoteClaim c : remote) {
            highest = Math.max(highest, c.version());
            if (c.kind() == ClaimKind.PRIMARY || c.kind() == ClaimKind.DORMANT_PRIMARY) {
                if (beats(c.kind() == ClaimKind.PRIMARY, c.version(), c.member(), myLive, myVersion, node.self.name())
                        && (winner == null || beats(c.kind() == ClaimKind.PRIMARY, c.version(), c.member(),
                        winner.kind() == ClaimKind.PRIMARY, winner.version(), winner.member()))) {
                    winner = c;
                }
            }
        }
        if (winner != null) {
            if (node.yieldPrimary(id)) {
                node.metrics.mergeDropped.increment();
                node.tellOwnershipLost(id);
                LOG.log(System.Logger.Level.DEBUG, "after a merge, session " + LogIds.shortForm(id) + " stays with " + winner.member()
                        + " (" + describe(winner.kind() == ClaimKind.PRIMARY, winner.version()) + "); dropped the copy here ("
                        + describe(myLive, myVersion) + ")");
                return true;
            }
            return false;
        }
        // this node keeps the session: renumber above every copy the other side holds, and announce it, so that
        // those copies follow this primary (they are older) or are dropped as stale
        synchronized (mine) {
            if (mine.ownership.isGone()) {
                return false;
            }
            long version = Math.max(mine.copy.version(), highest) + 1;
            mine.copy.setVersion(version);
            // every chosen backup gets a full copy from the rebalancer; the backups so far (which may not have the merged
            // view yet, and keep their copy when they think they are still chosen) are released once those confirmed
            for (String backup : mine.syncedBackups) {
                if (node.isMember(backup)) {
                    mine.formerBackups.add(backup);
                }
            }
            mine.syncedBackups.clear();
            mine.confirmedBackups.clear();
            node.transport.broadcast(node.wire.encode(
                    new Message.Ownership(id, version, node.self.name(), mine.ownership.servedLive())));
        }
        node.metrics.mergeKept.increment();
        return true;
    }

    /** True if claim 1 (live or dormant, version, node name) beats claim 2: live first, then version, then name. */
    static boolean beats(boolean live1, long version1, String name1, boolean live2, long version2, String name2) {
        if (live1 != live2) {
            return live1;
        }
        if (version1 != version2) {
            return version1 > version2;
        }
        return name1.compareTo(name2) > 0;
    }

    private static String describe(boolean live, long version) {
        return (live ? "live" : "dormant") + ", version " + version;
    }

    private boolean invalidate(String id, String where) {
        node.tombstones.add(id);
        boolean hadBackup = node.backups.remove(id) != null;
        boolean hadPrimary = node.dropPrimary(id);
        if (hadPrimary) {
            node.events.invalidatedElsewhere(id);
        }
        if (hadPrimary || hadBackup) {
            node.metrics.mergeInvalidated.increment();
            LOG.log(System.Logger.Level.DEBUG, "after a merge, session " + LogIds.shortForm(id) + " is invalidated: it was invalidated"
                    + " on the other side (" + where + " holds its tombstone)");
        }
        return hadPrimary || hadBackup;
    }

    /** The answer to a {@link Message.Reconcile} from {@code requester}: what this node holds of each id. */
    static byte[] answer(NodeState node, Member requester, Message.Reconcile request) {
        if (!node.isMember(requester.name())) {
            // not in this node's view yet: refuse (the requester asks again), so that once a winner has heard every
            // joined member, each of them handles its ownership announcement with a view that holds the winner
            return null;
        }
        List<Claim> claims = new ArrayList<>();
        for (String id : request.sessionIds()) {
            if (node.tombstones.contains(id)) {
                claims.add(new Claim(id, ClaimKind.INVALIDATED, 0));
                continue;
            }
            PrimaryEntry primary = node.primary(id);
            if (primary != null) {
                synchronized (primary) {
                    if (!primary.ownership.isGone() && primary.copy.version() > 0) {
                        claims.add(new Claim(id, primary.ownership.isDormant() ? ClaimKind.DORMANT_PRIMARY : ClaimKind.PRIMARY,
                                primary.copy.version()));
                        continue;
                    }
                }
            }
            BackupStore.Backup backup = node.backups.get(id);
            if (backup != null && !backup.owner.name().equals(requester.name())) {
                synchronized (backup.copy) {
                    claims.add(new Claim(id, ClaimKind.BACKUP, backup.copy.version()));
                }
            }
        }
        return node.wire.encode(new Message.ReconcileReply(claims));
    }
}
