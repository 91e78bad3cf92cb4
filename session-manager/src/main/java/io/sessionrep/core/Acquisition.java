package io.sessionrep.core;

import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.store.BackupStore;
import io.sessionrep.core.store.SessionCopy;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.Message.AcquireOutcome;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Hand-over, the requester's side: a request here needs a session this node does not hold live. Before the
 * request runs, the session is brought here with its newest state:
 * <ul>
 *   <li>this node owns it already (the container dropped its live copy, or a late grant): resumed locally;</li>
 *   <li>its owner is alive: asked for it ({@link Message.Acquire}: to the owner this node knows of, else to
 *       every member). The owner grants it once its own requests on the session are done
 *       ({@link HandOver}); this node then owns it and the request runs. Askers that come meanwhile are
 *       told who has it, or that it is in transit ({@code BUSY}), and ask again: requests of one session on
 *       several nodes run one node at a time, in turn;</li>
 *   <li>nobody owns it (its owner died): fail-over, the newest copy in the cluster is promoted
 *       ({@link TakeOver}); when several nodes want it at once, the one whose name sorts first does it and
 *       the others then ask it.</li>
 * </ul>
 * The whole wait is bounded by {@code ownership-timeout}; then the request is refused with
 * {@link OwnershipTimeoutException} (counted, logged once per session), its pending ask cancelled. A grant
 * that still arrives later is kept: this node then owns the session without a request (like a promoted
 * copy), and the next request for it anywhere acquires it from here.
 */
final class Acquisition {
    private static final System.Logger LOG = System.getLogger(Acquisition.class.getName());
    /** Owner hints followed in a row before asking every member. */
    private static final int MAX_HINT_HOPS = 4;
    private static final long MAX_BACKOFF_MILLIS = 40;

    private final NodeState node;
    private final TakeOver failOver;
    private final AtomicLong requestIds = new AtomicLong(ThreadLocalRandom.current().nextLong(1L << 40));
    private final Map<Long, Round> rounds = new ConcurrentHashMap<>();
    private final ReentrantLock[] stripes = new ReentrantLock[64];
    private final OwnershipTimeouts timeouts;

    Acquisition(NodeState node, TakeOver failOver, OwnershipTimeouts timeouts) {
        this.node = node;
        this.failOver = failOver;
        this.timeouts = timeouts;
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    /**
     * Brings the session here for a request; on success the request counts as entered (the caller calls
     * {@link HandOver#exit} when it is over). Empty when no node knows the session or it was invalidated.
     *
     * @throws OwnershipTimeoutException when the owner did not hand it over within ownership-timeout
     */
    Optional<RestoredSession> acquire(String id, String route) {
        long deadline = System.nanoTime() + node.config.ownershipTimeout().toNanos();
        ReentrantLock lock = stripes[Math.floorMod(id.hashCode(), stripes.length)];
        try {
            if (!lock.tryLock(remaining(deadline), TimeUnit.NANOSECONDS)) {
                throw timedOut(id, "other requests here were acquiring it");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw timedOut(id, "interrupted");
        }
        node.acquiring.add(id);
        try {
            return acquireLocked(id, route, deadline);
        } finally {
            node.acquiring.remove(id);
            lock.unlock();
        }
    }

    private Optional<RestoredSession> acquireLocked(String id, String route, long deadline) {
        boolean targeted = route == null; // true once the targeted look-up ran (or there is no route to go by)
        String target = null;
        int hops = 0;
        int staleHintRounds = 0;
        long backoff = 1;
        while (true) {
            if (node.closed() || node.tombstones.contains(id)) {
                return Optional.empty();
            }
            PrimaryEntry own = node.primary(id);
            if (own != null) {
                HandOver.Pending promised;
                boolean removed;
                synchronized (own) {
                    promised = own.ownership.pendingPromise();
                    removed = own.ownership.isGone();
                }
                if (!removed && promised == null) {
                    Optional<RestoredSession> resumed = failOver.takeOver(id, true); // dormant ones compared first
                    if (resumed != null) {
                        return resumed;
                    }
                    continue; // our promoted copy yielded to a node that serves the session: ask it
                }
                if (promised != null) {
                    target = promised.requester().name(); // promised away: it comes back after that request
                }
            }
            if (target == null && hops == 0) {
                target = knownOwner(id);
                if (target == null && own == null && failOver.recentlyMissed(id)) {
                    node.metrics.takeoverMisses.increment();
                    return Optional.empty(); // asked a moment ago, nobody had it: do not ask everyone again
                }
                if (target == null && own == null && !targeted && node.backups.get(id) == null) {
                    targeted = true;
                    Targeted looked = lookUp(id, route, deadline);
                    if (looked.result() != null) {
                        return looked.result();
                    }
                    target = looked.owner(); // null: not sure; every member is asked, as without a route
                }
            }
            Round round = ask(id, target);
            if (round == null) {
                Optional<RestoredSession> alone = failOver.takeOver(id, true); // alone in the view
                return alone == null ? Optional.empty() : alone;
            }
            boolean answered = await(round, deadline);
            rounds.remove(round.requestId);
            Message.AcquireReply grant = round.grant();
            if (grant != null) {
                return Optional.of(becomeOwner(grant, round.grantedBy(), true));
            }
            if (!answered) {
                cancel(round);
                throw timedOut(id, "owner " + (target == null ? "(asked every member)" : target) + " did not hand it over");
            }
            if (round.has(AcquireOutcome.INVALIDATED)) {
                return Optional.empty();
            }
            Set<String> busy = round.busy();
            String hint = round.hint(node.self.name(), node);
            if (hint != null && (target != null || staleHintRounds++ < 2)) {
                if (hops >= MAX_HINT_HOPS) {
                    backoff = sleep(backoff, deadline, id); // hints go round: the session is moving; slow down
                    hops = 0;
                }
                target = hint; // promised to, or owned by, that node
                hops++;
                continue;
            }
            if (!busy.isEmpty() && !(target == null && firstInOrder(busy))) {
                backoff = sleep(backoff, deadline, id); // in transit to that node, or it wants the session too
                continue;
            }
            if (target == null) {
                // every member answered and none owns it: its owner died; promote the newest copy
                Optional<RestoredSession> promoted = failOver.takeOver(id, true);
                if (promoted != null) {
                    return promoted;
                }
                backoff = sleep(backoff, deadline, id); // became owned meanwhile: ask again
                continue;
            }
            target = null; // the one asked does not own it and knows no owner: ask every member
            hops++;
        }
    }

    /** What the targeted look-up found: a result to return, else the owner to ask (null: ask every member). */
    private record Targeted(Optional<RestoredSession> result, String owner) {
        static final Targeted UNSURE = new Targeted(null, null);
    }

    /**
     * A session this node knows nothing of, named with the route suffix {@code route}: asked first of the node
     * the route names (if a member), which owns it or knows its owner when it issued it, then its copies sought
     * on the nodes that placement says would hold them for that node. Found there: no other member is asked.
     * Otherwise (nothing there, a copy without an owner, a member that did not answer) every member is asked as
     * before: a live session is never given up on because its route node forgot it.
     */
    private Targeted lookUp(String id, String route, long deadline) {
        Member routed = node.member(route);
        String self = node.self.name();
        if (routed != null && !route.equals(self)) {
            Round round = ask(id, route);
            if (round == null) {
                return Targeted.UNSURE;
            }
            boolean answered = await(round, deadline);
            rounds.remove(round.requestId);
            Message.AcquireReply grant = round.grant();
            if (grant != null) {
                return new Targeted(Optional.of(becomeOwner(grant, round.grantedBy(), true)), null);
            }
            if (!answered) {
                cancel(round);
                throw timedOut(id, "owner " + route + " did not hand it over");
            }
            if (round.has(AcquireOutcome.INVALIDATED)) {
                return new Targeted(Optional.empty(), null);
            }
            String hint = round.hint(self, node);
            if (hint != null) {
                return new Targeted(null, hint);
            }
            if (!round.busy().isEmpty()) {
                return new Targeted(null, route); // it wants the session too: ask it again, backing off
            }
        }
        Member primary = routed != null ? routed : new Member(route, "");
        Set<String> holders = new HashSet<>();
        for (Member m : node.placement.backups(id, primary, node.members())) {
            if (!m.name().equals(self) && !m.name().equals(route)) {
                holders.add(m.name());
            }
        }
        if (!holders.isEmpty()) {
            TakeOver.Found found = failOver.fetch(id, null, deadline, holders);
            if (found.newest() != null || !found.complete()) {
                return Targeted.UNSURE; // copies, or a holder that did not answer: look everywhere, as before
            }
        }
        // Not found where it should be. The route node may have been restarted since it issued the id, and the
        // session moved on (a hand-over, a rebalance), so this is no proof that no node knows it: every member
        // is asked, as without a route, and a miss there is remembered for the miss window.
        return Targeted.UNSURE;
    }

    /** Sends the ask; null when there is nobody to ask. {@code target} null: every other member. */
    private Round ask(String id, String target) {
        List<Member> to = new ArrayList<>();
        for (Member m : node.members()) {
            if (!m.name().equals(node.self.name()) && (target == null || m.name().equals(target))) {
                to.add(m);
            }
        }
        if (to.isEmpty()) {
            if (target != null) {
                return ask(id, null);
            }
            return null;
        }
        long requestId = requestIds.incrementAndGet();
        Round round = new Round(requestId, id, to);
        rounds.put(requestId, round);
        // A view that removed a member asked here may have been installed after `to` was read and before the
        // round was registered, so viewChanged() did not see it: not waited for (no answer would ever come).
        round.retain(memberNames());
        BackupStore.Backup held = node.backups.get(id);
        long heldVersion = -1;
        if (held != null) {
            synchronized (held.copy) {
                heldVersion = held.copy.version();
            }
        }
        byte[] message = node.wire.encode(new Message.Acquire(id, requestId, heldVersion));
        for (Member m : to) {
            node.transport.send(m, message);
        }
        return round;
    }

    private boolean await(Round round, long deadline) {
        try {
            round.done.get(remaining(deadline), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return round.done.isDone();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            return true;
        }
    }

    private void cancel(Round round) {
        byte[] cancel = node.wire.encode(new Message.AcquireCancel(round.sessionId, round.requestId));
        for (String name : round.asked) {
            Member m = node.member(name);
            if (m != null) {
                node.transport.send(m, cancel);
            }
        }
    }

    private long sleep(long backoff, long deadline, String id) {
        long millis = Math.min(backoff, Math.max(0, TimeUnit.NANOSECONDS.toMillis(remaining(deadline))));
        if (millis <= 0) {
            throw timedOut(id, "it stayed in transit between other nodes");
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw timedOut(id, "interrupted");
        }
        return Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
    }

    /** Among nodes that all want a session nobody owns, the first by name promotes it. */
    private boolean firstInOrder(Set<String> busy) {
        for (String other : busy) {
            if (other.compareTo(node.self.name()) < 0) {
                return false;
            }
        }
        return true;
    }

    private String knownOwner(String id) {
        BackupStore.Backup backup = node.backups.get(id);
        if (backup != null && !backup.owner.name().equals(node.self.name()) && node.isMember(backup.owner.name())) {
            return backup.owner.name();
        }
        return null;
    }

    private OwnershipTimeoutException timedOut(String id, String why) {
        return timeouts.refuse(id, "was not handed over to " + node.self.name(), why);
    }

    private static long remaining(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    // ------------------------------------------------------------------ answers (transport threads)

    void onReply(Member sender, Message.AcquireReply reply) {
        Round round = rounds.get(reply.requestId());
        if (round != null && round.sessionId.equals(reply.sessionId()) && round.answer(sender.name(), reply)) {
            return; // the waiting request takes it from here
        }
        if (reply.outcome() == AcquireOutcome.GRANTED && reply.state() != null) {
            // granted after the request here gave up: the old owner dropped it, so this node keeps it
            LOG.log(System.Logger.Level.INFO, "session " + LogIds.shortForm(reply.sessionId()) + " was handed over"
                    + " by " + sender.name() + " after the request here gave up waiting; this node owns it now");
            becomeOwner(reply, sender.name(), false);
        }
    }

    /** Members left: asks waiting on them are answered "nobody" so the requester looks elsewhere. */
    void viewChanged() {
        Set<String> names = memberNames();
        for (Round round : rounds.values()) {
            round.retain(names);
        }
    }

    private Set<String> memberNames() {
        Set<String> names = new HashSet<>();
        for (Member m : node.members()) {
            names.add(m.name());
        }
        return names;
    }

    /**
     * This node owns the session from the granted state on: renumbered to the next version (content
     * unchanged; the first delta starts from the granted version, which the holders have), announced to
     * every member, and sent in full to chosen backups that do not hold it yet.
     */
    private RestoredSession becomeOwner(Message.AcquireReply grant, String from, boolean forRequest) {
        SessionUpdate granted = grant.state();
        String id = granted.sessionId();
        // A live owner's state is never older than a backup's. One promoted from an old copy (after a crash,
        // before the newer holders corrected it) can be: never trade a newer copy held here for an older one.
        SessionUpdate held = node.backups.fullCopy(id);
        SessionUpdate state = held != null && held.toVersion() > granted.toVersion() ? held : granted;
        SessionCopy copy = SessionCopy.of(state);
        copy.setVersion(state.toVersion() + 1);
        PrimaryEntry entry = new PrimaryEntry(copy,
                forRequest ? SessionOwnership.serving(true) : SessionOwnership.dormant());
        entry.deltaBase = state.toVersion();
        PrimaryEntry previous = node.primaries.put(id, entry);
        if (previous != null) {
            HandOver.Pending unanswered;
            synchronized (previous) {
                unanswered = previous.ownership.remove();
            }
            node.answerDroppedPromise(id, unanswered, node.self.name()); // ask again: this node owns it now
        }
        node.backups.remove(id);
        node.lostOwnership.remove(id);
        node.transport.broadcast(node.wire.encode(new Message.Ownership(id, copy.version(), node.self.name(), true, true)));
        if (node.config.writeQuota() > 0) {
            synchronized (entry) {
                for (Member target : node.backupsOf(id)) {
                    entry.syncedBackups.add(target.name());
                    if (!grant.holders().contains(target.name())) {
                        node.sender.enqueue(target, state); // the granted content, at the granted version
                    }
                }
            }
        }
        node.metrics.handOversAcquired.increment();
        LOG.log(System.Logger.Level.DEBUG, () -> "acquired session " + LogIds.shortForm(id) + " from " + from
                + " at version " + state.toVersion() + " (now " + copy.version() + "); holders " + grant.holders());
        return failOver.restore(id, state, entry);
    }

    /** One ask sent to some members, and their answers. */
    private static final class Round {
        final long requestId;
        final String sessionId;
        final List<String> asked = new ArrayList<>();
        private final Set<String> awaiting = new HashSet<>();
        private final List<Message.AcquireReply> answers = new ArrayList<>();
        private final List<String> answeredBy = new ArrayList<>();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        private Message.AcquireReply grant;
        private String grantedBy;

        Round(long requestId, String sessionId, List<Member> to) {
            this.requestId = requestId;
            this.sessionId = sessionId;
            for (Member m : to) {
                asked.add(m.name());
                awaiting.add(m.name());
            }
        }

        /** True when taken (the asker still waits for it). */
        synchronized boolean answer(String from, Message.AcquireReply reply) {
            if (done.isDone() || !awaiting.remove(from)) {
                return false;
            }
            answers.add(reply);
            answeredBy.add(from);
            if (reply.outcome() == AcquireOutcome.GRANTED) {
                grant = reply;
                grantedBy = from;
            }
            if (grant != null || awaiting.isEmpty()) {
                done.complete(null);
            }
            return true;
        }

        synchronized void retain(Set<String> members) {
            awaiting.retainAll(members);
            if (awaiting.isEmpty()) {
                done.complete(null);
            }
        }

        synchronized Message.AcquireReply grant() {
            return grant;
        }

        synchronized String grantedBy() {
            return grantedBy;
        }

        synchronized boolean has(AcquireOutcome outcome) {
            for (Message.AcquireReply a : answers) {
                if (a.outcome() == outcome) {
                    return true;
                }
            }
            return false;
        }

        synchronized Set<String> busy() {
            Set<String> busy = new HashSet<>();
            for (int i = 0; i < answers.size(); i++) {
                if (answers.get(i).outcome() == AcquireOutcome.BUSY) {
                    busy.add(answeredBy.get(i));
                }
            }
            return busy;
        }

        /** An owner named by an answer: a live member other than this node. */
        synchronized String hint(String self, NodeState node) {
            for (Message.AcquireReply a : answers) {
                String h = a.ownerHint();
                if (h != null && !h.equals(self) && node.isMember(h)) {
                    return h;
                }
            }
            return null;
        }
    }
}
