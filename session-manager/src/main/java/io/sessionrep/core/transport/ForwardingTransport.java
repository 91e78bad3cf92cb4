package io.sessionrep.core.transport;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A transport that passes every call on to another one. Subclasses override the calls they change: to
 * count or trace traffic, or (in tests and benchmarks) to put a lossy, slow or delayed network on top of a
 * real transport (in-memory or JGroups).
 */
public class ForwardingTransport implements ReplicationTransport {
    private final ReplicationTransport delegate;

    public ForwardingTransport(ReplicationTransport delegate) {
        this.delegate = delegate;
    }

    /** The transport the calls go to. */
    public ReplicationTransport delegate() {
        return delegate;
    }

    @Override
    public void start(MessageReceiver receiver) throws TransportException {
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
    public io.sessionrep.core.wire.ProtocolRange protocolsOf(Member member) {
        return delegate.protocolsOf(member);
    }

    @Override
    public void send(Member target, byte[] message) {
        delegate.send(target, message);
    }

    /**
     * Each message through {@link #send}, so that a subclass that changes {@code send} sees every one; one that
     * keeps the delegate's own batching overrides this.
     */
    @Override
    public void sendAll(List<Outbound> messages) {
        ReplicationTransport.super.sendAll(messages);
    }

    @Override
    public CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout) {
        return delegate.request(target, message, timeout);
    }

    /**
     * Through {@link #request}, so that a subclass that changes {@code request} sees it; one that keeps the
     * delegate's own way of carrying it overrides this.
     */
    @Override
    public CompletableFuture<byte[]> requestInline(Member target, byte[] message, Duration timeout,
                                                   java.util.concurrent.CompletionStage<?> noLongerNeeded) {
        return ReplicationTransport.super.requestInline(target, message, timeout, noLongerNeeded);
    }

    /**
     * Through {@link #send}, so that a subclass that changes {@code send} sees it; one that keeps the delegate's own
     * way of carrying it overrides this.
     */
    @Override
    public void sendAndAwaitHandled(Member target, byte[] message, Duration timeout)
            throws java.util.concurrent.TimeoutException {
        ReplicationTransport.super.sendAndAwaitHandled(target, message, timeout);
    }

    @Override
    public List<String> partialClusterSigns() {
        return delegate.partialClusterSigns();
    }

    @Override
    public List<TransportCount> counts() {
        return delegate.counts();
    }

    @Override
    public void broadcast(byte[] message) {
        delegate.broadcast(message);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
