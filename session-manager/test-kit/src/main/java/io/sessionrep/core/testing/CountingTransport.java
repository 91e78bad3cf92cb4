package io.sessionrep.core.testing;

import io.sessionrep.core.transport.ForwardingTransport;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MessageReceiver;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wraps any transport (in-memory or JGroups) and counts the cluster messages its node sends: one-way messages,
 * requests, the replies its node answers requests with, and a broadcast once per other member. Summed over the
 * nodes of a cluster, that is every message the cluster exchanged. Counted by kind too (the message's class, as
 * {@link WireCodec} reads it), to say which messages a scenario cost.
 */
public final class CountingTransport extends ForwardingTransport {
    private final AtomicLong total = new AtomicLong();
    private final Map<String, AtomicLong> byKind = new ConcurrentHashMap<>();

    public CountingTransport(ReplicationTransport delegate) {
        super(delegate);
    }

    /** Every message this node sent so far. */
    public long total() {
        return total.get();
    }

    /** Those messages by kind ({@code Acquire}, {@code Fetch}, ...), sorted by kind. */
    public Map<String, Long> byKind() {
        Map<String, Long> kinds = new TreeMap<>();
        byKind.forEach((kind, count) -> kinds.put(kind, count.get()));
        return kinds;
    }

    /** The sum of {@link #total()} over {@code transports}. */
    public static long total(List<CountingTransport> transports) {
        return transports.stream().mapToLong(CountingTransport::total).sum();
    }

    /** The sum of {@link #byKind()} over {@code transports}. */
    public static Map<String, Long> byKind(List<CountingTransport> transports) {
        Map<String, Long> kinds = new TreeMap<>();
        for (CountingTransport t : transports) {
            t.byKind().forEach((kind, count) -> kinds.merge(kind, count, Long::sum));
        }
        return kinds;
    }

    @Override
    public void start(MessageReceiver receiver) {
        super.start(new MessageReceiver() {
            @Override
            public byte[] onMessage(Member sender, byte[] message) {
                byte[] reply = receiver.onMessage(sender, message);
                if (reply != null) {
                    count(reply, 1); // what a request gets back is a message too
                }
                return reply;
            }

            @Override
            public void onMembershipChange(List<Member> members) {
                receiver.onMembershipChange(members);
            }
        });
    }

    @Override
    public void send(Member target, byte[] message) {
        count(message, 1);
        super.send(target, message);
    }

    @Override
    public CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout) {
        count(message, 1);
        return super.request(target, message, timeout);
    }

    /** Counted as a request; carried as the delegate carries it. */
    @Override
    public CompletableFuture<byte[]> requestInline(Member target, byte[] message, Duration timeout,
                                                   java.util.concurrent.CompletionStage<?> noLongerNeeded) {
        count(message, 1);
        return delegate().requestInline(target, message, timeout, noLongerNeeded);
    }

    /** Counted as a one-way message; carried as the delegate carries it. */
    @Override
    public void sendAndAwaitHandled(Member target, byte[] message, Duration timeout)
            throws java.util.concurrent.TimeoutException {
        count(message, 1);
        delegate().sendAndAwaitHandled(target, message, timeout);
    }

    @Override
    public void broadcast(byte[] message) {
        count(message, Math.max(0, members().size() - 1));
        super.broadcast(message);
    }

    private void count(byte[] message, int copies) {
        if (copies == 0) {
            return;
        }
        total.addAndGet(copies);
        byKind.computeIfAbsent(kindOf(message), k -> new AtomicLong()).addAndGet(copies);
    }

    private static String kindOf(byte[] message) {
        try {
            Message decoded = WireCodec.decode(message);
            return decoded.getClass().getSimpleName();
        } catch (RuntimeException | io.sessionrep.core.wire.MalformedMessageException e) {
            return "undecodable";
        }
    }
}
