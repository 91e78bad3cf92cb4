package io.sessionrep.core.testing;

import io.sessionrep.core.transport.ForwardingTransport;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.ReplicationTransport;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * A slow network for requests (the messages sync replication waits on): each one leaves {@code delay}
 * late. Makes "the backup holds the update when the response arrives" deterministic: without a wait for
 * the acknowledgement before the response, the response would win by the whole delay. Requests the caller
 * waits for inline take {@link #request} and its delay too ({@link ForwardingTransport#requestInline}).
 */
public final class SlowRequests extends ForwardingTransport {
    private final Executor later;

    public SlowRequests(ReplicationTransport network, Duration delay) {
        super(network);
        this.later = CompletableFuture.delayedExecutor(delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout) {
        return CompletableFuture.supplyAsync(() -> super.request(target, message, timeout), later)
                .thenCompose(reply -> reply);
    }
}
