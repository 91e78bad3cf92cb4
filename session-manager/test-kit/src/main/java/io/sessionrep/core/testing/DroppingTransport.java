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

    /** The filter sees each message once; the kept ones go on together, over the delegate's own batch path. */
    @Override
    public void sendAll(java.util.List<Outbound> messages) {
        java.util.List<Outbound> kept = new java.util.ArrayList<>(messages.size());
        for (Outbound m : messages) {
            if (!drop.test(m.target(), m.message())) {
                kept.add(m);
            }
        }
        delegate().sendAll(kept);
    }

    @Override
    public CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout) {
        if (drop.test(target, message)) {
            return new CompletableFuture<byte[]>().orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        return super.request(target, message, timeout);
    }

    /**
     * The filter sees each message once, whichever path it takes: a dropped one is never answered (the caller
     * waits {@code timeout}, as for a dropped {@link #request}, or until {@code noLongerNeeded} completes, as the
     * JGroups transport gives up a lane exchange then); one the delegate has no direct path for is requested here
     * over {@link #request}'s path, without asking the filter again.
     */
    @Override
    public byte[] requestOnCallerThread(Member target, byte[] message, Duration timeout,
                                        java.util.concurrent.CompletionStage<?> noLongerNeeded)
            throws java.util.concurrent.TimeoutException {
        if (drop.test(target, message)) {
            CompletableFuture<?> givenUp = noLongerNeeded == null ? new CompletableFuture<>() : noLongerNeeded.toCompletableFuture();
            try {
                givenUp.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // the whole time-out waited: dropped
            }
            throw new java.util.concurrent.TimeoutException("dropped by the test");
        }
        byte[] reply = super.requestOnCallerThread(target, message, timeout, noLongerNeeded);
        if (reply != null) {
            return reply;
        }
        try {
            return super.request(target, message, timeout).get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof java.util.concurrent.TimeoutException timedOut) {
                throw timedOut;
            }
            throw new io.sessionrep.core.transport.TransportException("request failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.sessionrep.core.transport.TransportException("interrupted", e);
        }
    }

    /**
     * The filter sees each message once, whichever path it takes: a dropped one is lost as {@link #send} loses it
     * (its sender learns nothing of it: reported handled); one the delegate has no direct path for is sent here
     * over {@link #send}'s path, without asking the filter again.
     */
    @Override
    public boolean sendOnCallerThread(Member target, byte[] message, Duration timeout)
            throws java.util.concurrent.TimeoutException {
        if (!drop.test(target, message) && !super.sendOnCallerThread(target, message, timeout)) {
            super.send(target, message);
        }
        return true;
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
