package io.sessionrep.core.testing;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MessageReceiver;
import io.sessionrep.core.transport.ReplicationTransport;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiPredicate;

/**
 * Wraps any transport (in-memory or JGroups) and silently drops the outgoing messages a test chooses:
 * simulated loss on top of a real channel.
 */
public final class DroppingTransport implements ReplicationTransport {
    private final ReplicationTransport delegate;
    private volatile BiPredicate<Member, byte[]> drop = (target, bytes) -> false;

    public DroppingTransport(ReplicationTransport delegate) {
        this.delegate = delegate;
    }

    public void dropWhen(BiPredicate<Member, byte[]> filter) {
        this.drop = filter;
    }

    public ReplicationTransport delegate() {
        return delegate;
    }

    @Override
    public void start(MessageReceiver receiver) {
        delegate.start(receiver);
    }

    @Override
    public Member localMember() {
        return delegate.localMember();
    }

    @Override
    public List<Member> members() {
        return delegate.members();
    }

    @Override
    public void send(Member target, byte[] message) {
        if (!drop.test(target, message)) {
            delegate.send(target, message);
        }
    }

    @Override
    public CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout) {
        if (drop.test(target, message)) {
            return new CompletableFuture<byte[]>().orTimeout(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        return delegate.request(target, message, timeout);
    }

    @Override
    public void broadcast(byte[] message) {
        for (Member m : delegate.members()) {
            if (!m.name().equals(delegate.localMember().name()) && drop.test(m, message)) {
                return; // a test that drops broadcasts drops them whole
            }
        }
        delegate.broadcast(message);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
