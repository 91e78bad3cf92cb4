package io.sessionrep.core.testing;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MessageReceiver;
import io.sessionrep.core.transport.ReplicationTransport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;

/**
 * A loopback "network" for unit tests of the core only: members in one JVM, each receiving on its own
 * single thread (so FIFO per sender holds). Behavioural tests use real JGroups channels instead.
 */
public final class InMemoryNetwork {
    private final List<Node> nodes = new CopyOnWriteArrayList<>();
    private volatile BiPredicate<Member, byte[]> dropFilter = (target, bytes) -> false;
    /** Node name to the side of a partition it is on; empty: no partition. */
    private volatile Map<String, Integer> sides = Map.of();

    /** Drops messages for which the filter answers true (simulated loss). */
    public void dropWhen(BiPredicate<Member, byte[]> filter) {
        this.dropFilter = filter;
    }

    public Node transport(String name, String machineId) {
        return new Node(new Member(name, machineId));
    }

    /**
     * Splits the network: nodes on different sides no longer reach each other, and each side gets a view
     * of its own members (nodes not listed form a side of their own each).
     */
    public void partition(List<java.util.Set<String>> groups) {
        Map<String, Integer> split = new java.util.HashMap<>();
        for (int i = 0; i < groups.size(); i++) {
            for (String name : groups.get(i)) {
                split.put(name, i);
            }
        }
        sides = Map.copyOf(split);
        viewChanged();
    }

    /** Ends a partition: every node reaches every other again, and all get the merged view. */
    public void heal() {
        sides = Map.of();
        viewChanged();
    }

    private boolean sameSide(Member a, Member b) {
        Map<String, Integer> split = sides;
        return split.isEmpty() || java.util.Objects.equals(side(split, a.name()), side(split, b.name()));
    }

    private static Object side(Map<String, Integer> split, String name) {
        Integer side = split.get(name);
        return side != null ? side : name;
    }

    private List<Member> view(Member seenBy) {
        List<Member> view = new ArrayList<>();
        for (Node n : nodes) {
            if (sameSide(seenBy, n.self)) {
                view.add(n.self);
            }
        }
        return view;
    }

    private void viewChanged() {
        for (Node n : nodes) {
            List<Member> view = view(n.self);
            n.inbox.execute(() -> n.receiver.onMembershipChange(view));
        }
    }

    private Node find(Member m) {
        for (Node n : nodes) {
            if (n.self.name().equals(m.name())) {
                return n;
            }
        }
        return null;
    }

    /** One member's transport. */
    public final class Node implements ReplicationTransport {
        private final Member self;
        private final ExecutorService inbox;
        private volatile MessageReceiver receiver;
        public final AtomicLong bytesSent = new AtomicLong();
        public final AtomicInteger messagesSent = new AtomicInteger();

        Node(Member self) {
            this.self = self;
            this.inbox = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "inbox-" + self.name());
                t.setDaemon(true);
                return t;
            });
        }

        @Override
        public void start(MessageReceiver receiver) {
            this.receiver = receiver;
            nodes.add(this);
            viewChanged();
        }

        @Override
        public Member localMember() {
            return self;
        }

        @Override
        public List<Member> members() {
            return view(self);
        }

        @Override
        public void send(Member target, byte[] message) {
            deliver(target, message, null);
        }

        @Override
        public CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout) {
            CompletableFuture<byte[]> reply = new CompletableFuture<>();
            deliver(target, message, reply);
            return reply.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        private void deliver(Member target, byte[] message, CompletableFuture<byte[]> reply) {
            Node to = find(target);
            bytesSent.addAndGet(message.length);
            messagesSent.incrementAndGet();
            if (to == null || !sameSide(self, target) || dropFilter.test(target, message)) {
                return;
            }
            if (to.inbox.isShutdown()) {
                return;
            }
            to.inbox.execute(() -> {
                try {
                    byte[] answer = to.receiver.onMessage(self, message);
                    if (reply != null) {
                        if (answer == null) {
                            reply.completeExceptionally(new IllegalStateException("no reply"));
                        } else {
                            reply.complete(answer);
                        }
                    }
                } catch (RuntimeException e) {
                    if (reply != null) {
                        reply.completeExceptionally(e);
                    }
                }
            });
        }

        @Override
        public void broadcast(byte[] message) {
            for (Node n : nodes) {
                if (n != this && sameSide(self, n.self)) {
                    deliver(n.self, message, null);
                }
            }
        }

        /** Waits until every message already delivered to this node was processed. */
        public void drain() {
            try {
                inbox.submit(() -> { }).get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            if (nodes.remove(this)) {
                viewChanged();
                inbox.shutdown();
            }
        }
    }

    /** Helper for tests: a map-backed session snapshot. */
    public static Map<String, Object> attributes() {
        return new ConcurrentHashMap<>();
    }
}
