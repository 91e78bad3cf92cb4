package io.sessionrep.core.testing;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MessageReceiver;
import io.sessionrep.core.transport.ReplicationTransport;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * A slow network for requests (the messages sync replication waits on): each one leaves {@code delay}
 * late. Makes "the backup holds the update when the response arrives" deterministic: without a wait for
 * the acknowledgement before the response, the response would win by the whole delay.
 */
public final class SlowRequests implements ReplicationTransport {
    private final ReplicationTransport network;
    private final Executor later;

    public SlowRequests(ReplicationTransport network, Duration delay) {
        this.network = network;
        this.later = CompletableFuture.delayedExecutor(delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout) {
        return CompletableFuture.supplyAsync(() -> network.request(target, message, timeout), later)
                .thenCompose(reply -> reply);
    }

    @Override
    public void start(MessageReceiver receiver) {
        network.start(receiver);
    }

    @Override
    public Member localMember() {
        return network.localMember();
    }

    @Override
    public List<Member> members() {
        return network.members();
    }

    @Override
    public void send(Member target, byte[] message) {
        network.send(target, message);
    }

    @Override
    public void broadcast(byte[] message) {
        network.broadcast(message);
    }

    @Override
    public void close() {
        network.close();
    }
}
