package io.sessionrep.perf.node;

import io.sessionrep.core.transport.ForwardingTransport;
import io.sessionrep.core.transport.MessageReceiver;
import io.sessionrep.core.transport.TransportException;
import io.sessionrep.transport.jgroups.JGroupsTransport;
import org.jgroups.JChannel;
import org.jgroups.protocols.TCP;
import org.jgroups.stack.ProtocolStack;

import java.lang.reflect.Field;
import java.time.Duration;

/**
 * A {@link JGroupsTransport} whose channel gets a {@link ConstantDelay} protocol right above TCP once it
 * has joined: every message this node sends (replication updates, acknowledgements, JGroups' own traffic)
 * reaches the socket {@code delay} later, in order, without blocking the sender. With the delay on both
 * nodes a round trip (a sync acknowledgement) pays it twice.
 *
 * <p>Measurement only: the product has no hook for extra protocols, so the channel is reached by
 * reflection (its field {@code channel}).
 */
final class DelayedTransport extends ForwardingTransport {

    private final JGroupsTransport delegate;
    private final Duration delay;

    DelayedTransport(JGroupsTransport delegate, Duration delay) {
        super(delegate);
        this.delegate = delegate;
        this.delay = delay;
    }

    /**
     * The data lane bypasses the channel and its delay: the round trip pays it here, twice, before the request
     * (on the request thread, which waits for the acknowledgement anyway). Over the channel (no lane) it pays the
     * channel's delay on top, as it did when the core took the channel itself.
     */
    @Override
    public java.util.concurrent.CompletableFuture<byte[]> requestInline(io.sessionrep.core.transport.Member target,
            byte[] message, Duration timeout, java.util.concurrent.CompletionStage<?> noLongerNeeded) {
        roundTripDelayed();
        return delegate.requestInline(target, message, timeout, noLongerNeeded);
    }

    /** The same for a one-way message the caller waits to see handled (a sync-mode invalidation). */
    @Override
    public void sendAndAwaitHandled(io.sessionrep.core.transport.Member target, byte[] message, Duration timeout)
            throws java.util.concurrent.TimeoutException {
        roundTripDelayed();
        delegate.sendAndAwaitHandled(target, message, timeout);
    }

    /** Sleeps the round trip's delay (less when interrupted). */
    private void roundTripDelayed() {
        try {
            Thread.sleep(2 * delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void start(MessageReceiver receiver) throws TransportException {
        delegate.start(receiver);
        try {
            Field field = JGroupsTransport.class.getDeclaredField("channel");
            field.setAccessible(true);
            JChannel channel = (JChannel) field.get(delegate);
            ProtocolStack stack = channel.getProtocolStack();
            ConstantDelay protocol = new ConstantDelay(delay.toNanos());
            protocol.setProtocolStack(stack);
            protocol.init(); // starts the thread that sends delayed messages
            stack.insertProtocol(protocol, ProtocolStack.Position.ABOVE, TCP.class);
            System.err.println("ConstantDelay (" + delay.toNanos() / 1000 + " us) inserted above TCP; stack "
                    + stack.printProtocolSpec(false));
        } catch (Exception e) {
            delegate.close();
            throw new TransportException("cannot insert the delay protocol: " + e, e);
        }
    }
}
