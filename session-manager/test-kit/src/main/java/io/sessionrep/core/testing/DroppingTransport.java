package io.sessionrep.core.testing;

import io.sessionrep.core.transport.ForwardingTransport;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.ReplicationTransport;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;

/**
 * Wraps any transport (in-memory or JGroups) and silently drops the outgoing messages a test chooses:
 * simulated loss on top of a real channel.
 */
public final class DroppingTransport extends ForwardingTransport {
    private volatile BiPredicate<Member, byte[]> drop = (target, bytes) -> false;

    public DroppingTransport(ReplicationTransport delegate) {
        super(delegate);
    }

    public void dropWhen(BiPredicate<Member, byte[]> filter) {
        this.drop = filter;
    }

    @Override
    public void send(Member target, byte[] message) {
        if (!drop.test(target, message)) {
            super.send(target, message);
        }
    }

    @Override
    public CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout) {
        if (drop.test(target, message)) {
            return new CompletableFuture<byte[]>().orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        return super.request(target, message, timeout);
    }

    @Override
    public void broadcast(byte[] message) {
        for (Member m : members()) {
            if (!m.name().equals(localMember().name()) && drop.test(m, message)) {
                return; // a test that drops broadcasts drops them whole
            }
        }
        super.broadcast(message);
    }
}
