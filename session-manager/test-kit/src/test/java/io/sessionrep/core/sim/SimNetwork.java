package io.sessionrep.core.sim;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MemberLeftException;
import io.sessionrep.core.transport.MessageReceiver;
import io.sessionrep.core.transport.ReplicationTransport;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The simulation's network: every message waits in the queue of its link (sender to receiver) until one
 * dispatcher thread delivers it, picking the next link with the seeded random source. Messages of one link stay in
 * send order (replies included, as JGroups carries them on the same connection); links overtake each other, and a
 * link picked as slow waits while others have something to deliver. One message is handled at a time, so the order
 * in which the nodes see messages follows from the seed and from what the nodes' threads have sent when the
 * dispatcher picks. Views change at once for every member (kills, partitions, heals); a request whose target
 * leaves its sender's view fails with {@link MemberLeftException}, as with JGroups.
 */
final class SimNetwork implements AutoCloseable {
    private final Random random;
    private final Object lock = new Object();
    /** Members up, by name. */
    private final Map<String, Endpoint> up = new TreeMap<>();
    /** Node name to its side of a partition; empty: none. */
    private Map<String, Integer> sides = Map.of();
    /** Queued messages per link "from>to", in a stable order. */
    private final Map<String, ArrayDeque<Envelope>> links = new TreeMap<>();
    /** Requests sent and not answered yet. */
    private final List<Envelope> unanswered = new ArrayList<>();
    private final Thread dispatcher;
    private String slowLink;
    /** Links whose messages wait until they are let go or a side of them crashes. */
    private final java.util.Set<String> held = new java.util.HashSet<>();
    private boolean paused;
    private boolean handling;
    private boolean closed;
    private long delivered;

    private record Envelope(Endpoint from, Endpoint to, byte[] bytes, CompletableFuture<byte[]> reply,
                            boolean isReply) {
    }

    SimNetwork(long seed) {
        this.random = new Random(seed);
        this.dispatcher = new Thread(this::dispatch, "sim-dispatcher");
        this.dispatcher.setDaemon(true);
        this.dispatcher.start();
    }

    Endpoint endpoint(String name) {
        return new Endpoint(new Member(name, name));
    }

    /** Messages from {@code from} to {@code to} are delivered only when no other link has any (null: none slow). */
    void slowLink(String from, String to) {
        synchronized (lock) {
            slowLink = from == null ? null : from + ">" + to;
        }
    }

    /** Messages from {@code from} to {@code to} wait from now on (for scripted scenarios), until {@link #letGo}. */
    void hold(String from, String to) {
        synchronized (lock) {
            held.add(from + ">" + to);
        }
    }

    void letGo(String from, String to) {
        synchronized (lock) {
            held.remove(from + ">" + to);
            lock.notifyAll();
        }
    }

    /** Splits the members into sides; a member not listed is a side of its own. */
    void partition(List<? extends java.util.Collection<String>> groups) {
        Map<String, Integer> split = new java.util.HashMap<>();
        for (int i = 0; i < groups.size(); i++) {
            for (String name : groups.get(i)) {
                split.put(name, i);
            }
        }
        changeViews(() -> sides = Map.copyOf(split));
    }

    void heal() {
        changeViews(() -> sides = Map.of());
    }

    /** The member stops at once: nothing it queued is delivered, nothing more reaches it. */
    void crash(Endpoint endpoint) {
        changeViews(() -> {
            up.remove(endpoint.self.name(), endpoint);
            String name = endpoint.self.name();
            held.removeIf(link -> link.startsWith(name + ">") || link.endsWith(">" + name));
        });
    }

    boolean connected(String a, String b) {
        synchronized (lock) {
            return up.containsKey(a) && up.containsKey(b) && sameSide(a, b);
        }
    }

    /** True when no message waits (except on held links) and none is being handled. */
    boolean idle() {
        synchronized (lock) {
            return !handling && links.entrySet().stream()
                    .allMatch(link -> link.getValue().isEmpty() || held.contains(link.getKey()));
        }
    }

    long delivered() {
        synchronized (lock) {
            return delivered;
        }
    }

    private boolean sameSide(String a, String b) {
        Map<String, Integer> split = sides;
        return split.isEmpty() || java.util.Objects.equals(side(split, a), side(split, b));
    }

    private static Object side(Map<String, Integer> split, String name) {
        Integer side = split.get(name);
        return side != null ? side : name;
    }

    private List<Member> viewOf(String name) {
        List<Member> view = new ArrayList<>();
        for (Endpoint e : up.values()) {
            if (sameSide(name, e.self.name())) {
                view.add(e.self);
            }
        }
        return view;
    }

    /**
     * Applies a change of membership between two deliveries: every member up gets its new view, then requests to
     * members outside their sender's view fail.
     */
    private void changeViews(Runnable change) {
        List<Endpoint> members;
        List<Envelope> failed = new ArrayList<>();
        synchronized (lock) {
            paused = true;
            while (handling) {
                waitOn(lock);
            }
            change.run();
            members = new ArrayList<>(up.values());
            unanswered.removeIf(e -> {
                if (!deliverable(e.from, e.to)) {
                    failed.add(e);
                    return true;
                }
                return false;
            });
        }
        try {
            for (Endpoint e : members) {
                List<Member> view;
                synchronized (lock) {
                    view = viewOf(e.self.name());
                }
                e.receiver.onMembershipChange(view);
            }
            for (Envelope e : failed) {
                e.reply.completeExceptionally(new MemberLeftException(e.to.self.name() + " left the view"));
            }
        } finally {
            synchronized (lock) {
                paused = false;
                lock.notifyAll();
            }
        }
    }

    private boolean deliverable(Endpoint from, Endpoint to) {
        return up.get(from.self.name()) == from && up.get(to.self.name()) == to
                && sameSide(from.self.name(), to.self.name());
    }

    private void enqueue(Envelope e) {
        synchronized (lock) {
            if (closed || !deliverable(e.from, e.to)) {
                if (e.reply != null && !e.isReply) {
                    e.reply.completeExceptionally(new MemberLeftException(e.to.self.name() + " is not a member"));
                }
                return;
            }
            if (e.reply != null && !e.isReply) {
                unanswered.add(e);
            }
            links.computeIfAbsent(e.from.self.name() + ">" + e.to.self.name(), k -> new ArrayDeque<>()).add(e);
            lock.notifyAll();
        }
    }

    private void dispatch() {
        while (true) {
            Envelope next;
            synchronized (lock) {
                next = null;
                while (next == null) {
                    if (closed) {
                        return;
                    }
                    next = paused ? null : pick();
                    if (next == null) {
                        waitOn(lock);
                    }
                }
                handling = true;
            }
            try {
                deliver(next);
            } finally {
                synchronized (lock) {
                    handling = false;
                    delivered++;
                    lock.notifyAll();
                }
            }
        }
    }

    /** The head of a link picked with the seeded source (a slow link only when nothing else waits). */
    private Envelope pick() {
        List<ArrayDeque<Envelope>> ready = new ArrayList<>();
        ArrayDeque<Envelope> slow = null;
        for (Map.Entry<String, ArrayDeque<Envelope>> link : links.entrySet()) {
            if (!link.getValue().isEmpty() && !held.contains(link.getKey())) {
                if (link.getKey().equals(slowLink)) {
                    slow = link.getValue();
                } else {
                    ready.add(link.getValue());
                }
            }
        }
        ArrayDeque<Envelope> chosen = !ready.isEmpty() ? ready.get(random.nextInt(ready.size())) : slow;
        return chosen == null ? null : chosen.poll();
    }

    private void deliver(Envelope e) {
        boolean reachable;
        synchronized (lock) {
            reachable = deliverable(e.from, e.to);
        }
        if (!reachable) {
            return; // a view change failed its request already, if it was one
        }
        if (e.isReply) {
            e.reply.complete(e.bytes);
            return;
        }
        byte[] answer;
        try {
            answer = e.to.receiver.onMessage(e.from.self, e.bytes);
        } catch (RuntimeException failure) {
            if (e.reply != null) {
                forget(e);
                e.reply.completeExceptionally(failure);
            }
            return;
        }
        if (e.reply != null) {
            forget(e);
            if (answer == null) {
                e.reply.completeExceptionally(new IllegalStateException("no reply"));
            } else {
                enqueue(new Envelope(e.to, e.from, answer, e.reply, true));
            }
        }
    }

    private void forget(Envelope request) {
        synchronized (lock) {
            unanswered.remove(request);
        }
    }

    private static void waitOn(Object monitor) {
        try {
            monitor.wait(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
        try {
            dispatcher.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One member's transport. */
    final class Endpoint implements ReplicationTransport {
        private final Member self;
        private volatile MessageReceiver receiver;

        private Endpoint(Member self) {
            this.self = self;
        }

        @Override
        public void start(MessageReceiver receiver) {
            this.receiver = receiver;
            changeViews(() -> up.put(self.name(), this));
        }

        @Override
        public Member localMember() {
            return self;
        }

        @Override
        public List<Member> members() {
            synchronized (lock) {
                return up.get(self.name()) == this ? viewOf(self.name()) : List.of(self);
            }
        }

        @Override
        public void send(Member target, byte[] message) {
            Endpoint to = find(target);
            if (to != null) {
                enqueue(new Envelope(this, to, message, null, false));
            }
        }

        @Override
        public CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout) {
            CompletableFuture<byte[]> reply = new CompletableFuture<>();
            Endpoint to = find(target);
            if (to == null) {
                reply.completeExceptionally(new MemberLeftException(target.name() + " is not a member"));
                return reply;
            }
            enqueue(new Envelope(this, to, message, reply, false));
            return reply.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public void broadcast(byte[] message) {
            List<Endpoint> others;
            synchronized (lock) {
                others = up.values().stream().filter(e -> e != this).toList();
            }
            for (Endpoint e : others) {
                enqueue(new Envelope(this, e, message, null, false));
            }
        }

        private Endpoint find(Member target) {
            synchronized (lock) {
                return up.get(target.name());
            }
        }

        @Override
        public void close() {
            synchronized (lock) {
                if (up.get(self.name()) != this) {
                    return;
                }
            }
            crash(this);
        }

        @Override
        public String toString() {
            return self.name();
        }
    }
}
