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

    /**
     * How long a request inline still waits for a reply on its way once it is no longer needed: the JGroups lane's
     * grace (50 ms), and more, so that an in-memory reply on a loaded machine is in.
     */
    static final Duration NO_LONGER_NEEDED_GRACE = Duration.ofMillis(250);

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
     * A dropped one is lost on the first try, as a lost exchange on the JGroups transport's data lane: the caller
     * waits {@code timeout} for it (or until {@code noLongerNeeded} completes, as that transport gives up an exchange
     * then), and then it goes again through {@link #request}, as that transport sends it again over its channel (the
     * filter sees that try too: a link that loses everything loses it as well). A kept one is carried as the
     * delegate carries it, and the caller waits for its reply here (at most {@code timeout}, and at most
     * {@link #NO_LONGER_NEEDED_GRACE} more once {@code noLongerNeeded} completes), as it does on the JGroups
     * transport's lane: over a delegate that has no such path (in memory) the reply is then in when the caller looks,
     * as it is there.
     */
    @Override
    public CompletableFuture<byte[]> requestInline(Member target, byte[] message, Duration timeout,
                                                   java.util.concurrent.CompletionStage<?> noLongerNeeded) {
        CompletableFuture<?> givenUp = noLongerNeeded == null ? new CompletableFuture<>() : noLongerNeeded.toCompletableFuture();
        if (drop.test(target, message)) {
            waitFor(givenUp, timeout);
            return request(target, message, timeout);
        }
        CompletableFuture<byte[]> reply = delegate().requestInline(target, message, timeout, noLongerNeeded);
        waitFor(CompletableFuture.anyOf(reply, givenUp), timeout);
        waitFor(reply, NO_LONGER_NEEDED_GRACE); // a reply on its way still comes in
        return reply;
    }

    /** Waits until {@code done} completes, at most {@code timeout}. */
    private static void waitFor(CompletableFuture<?> done, Duration timeout) {
        try {
            done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // failed, or the whole time-out waited: the future tells
        }
    }

    /**
     * The filter sees each message once: a dropped one is lost as {@link #send} loses it (its sender learns nothing
     * of it); a kept one is carried as the delegate carries it.
     */
    @Override
    public void sendAndAwaitHandled(Member target, byte[] message, Duration timeout)
            throws java.util.concurrent.TimeoutException {
        if (!drop.test(target, message)) {
            delegate().sendAndAwaitHandled(target, message, timeout);
        }
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
