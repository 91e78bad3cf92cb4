package io.sessionrep.transport.jgroups;

import io.sessionrep.transport.jgroups.lane.DataLane;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MessageReceiver;
import io.sessionrep.transport.jgroups.WireFormat.Frame;
import io.sessionrep.transport.jgroups.WireFormat.Kind;
import io.sessionrep.transport.jgroups.WireFormat.MalformedFrameException;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.View;

import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The channel's receiver: unwraps frames, hands one-way messages and requests to the core's
 * {@link MessageReceiver}, answers requests, and completes this node's requests with their replies.
 *
 * <p>Threads: JGroups delivers regular messages from one sender one at a time and in order, so the core
 * sees each sender's messages in send order; messages from different senders may be delivered at once.
 * Replies travel out-of-band (OOB, no flow control): they complete a future at once instead of waiting
 * behind the requester's other traffic. Whatever the core's receiver throws is logged and counted and
 * never reaches JGroups; for a request it becomes a failure reply, as does a {@code null} return. The
 * messages of a node that has just joined and is not in this node's view yet are held until it is
 * ({@link NewcomerGate}), then handed over in order on a pool thread.
 */
final class InboundDispatcher implements Receiver {

    private static final System.Logger LOG = System.getLogger(InboundDispatcher.class.getName());

    private final JChannel channel;
    private final MessageReceiver receiver;
    private final PendingRequests pending;
    private final TransportCounters counters;
    private final Supplier<Membership> membership;
    private final NewcomerGate newcomers;
    private final Consumer<View> viewListener;
    /** Null when this node has no data lane: nobody waits for the counts then. */
    private final DataLane lane;

    InboundDispatcher(JChannel channel, MessageReceiver receiver, PendingRequests pending, TransportCounters counters,
                      Supplier<Membership> membership, NewcomerGate newcomers, Consumer<View> viewListener,
                      DataLane lane) {
        this.channel = channel;
        this.receiver = receiver;
        this.pending = pending;
        this.counters = counters;
        this.membership = membership;
        this.newcomers = newcomers;
        this.viewListener = viewListener;
        this.lane = lane;
    }

    @Override
    public void viewAccepted(View view) {
        viewListener.accept(view);
    }

    @Override
    public void receive(Message message) {
        Address source = message.getSrc();
        Frame frame;
        try {
            frame = WireFormat.read(message);
        } catch (MalformedFrameException e) {
            counters.malformedFrame();
            if (malformedWarning.due()) {
                LOG.log(System.Logger.Level.WARNING, "dropped a message from {0}: {1} (logged at most once a minute;"
                        + " each one counted in sessionrep.transport.refused'{'reason=malformed-frame'}')", source, e.getMessage());
            }
            return;
        }
        switch (frame.kind()) {
            // one-way messages, requests and barriers are what the sender's OutboundQueues count: each one's position
            // is taken as handled once the core is done with it (or it was dropped), for the data lane ({@link DataLane#handled})
            case ONE_WAY -> newcomers.deliver(source, frame.payload().length, () -> {
                deliver(senderOf(source), frame);
                handled(source, frame);
            }, () -> handled(source, frame));
            case REQUEST -> newcomers.deliver(source, frame.payload().length, () -> {
                answer(source, frame);
                handled(source, frame);
            }, () -> handled(source, frame));
            case REPLY -> pending.complete(frame.correlationId(), source, frame.payload());
            case FAILURE -> pending.fail(frame.correlationId(), source, frame.payloadAsText());
            case BARRIER -> {
                passBarrier(source, frame);
                handled(source, frame);
            }
        }
    }

    private void handled(Address source, Frame frame) {
        if (lane != null) {
            lane.handled(source, frame.position());
        }
    }

    /**
     * Answers a barrier without the core: JGroups delivers one sender's regular messages one at a time and in
     * order, so when this runs, everything that sender sent before the barrier has been handled here.
     */
    private void passBarrier(Address source, Frame frame) {
        try {
            channel.send(WireFormat.message(source, Kind.REPLY, frame.correlationId(), new byte[0])
                    .setFlag(Message.Flag.OOB, Message.Flag.NO_FC));
        } catch (Exception e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "could not answer a barrier of " + source, e);
        }
    }

    private void deliver(Member sender, Frame frame) {
        counters.received(frame.payload().length);
        try {
            receiver.onMessage(sender, frame.payload());
        } catch (RuntimeException e) {
            receiverFailed(sender, e);
        }
    }

    private void answer(Address source, Frame frame) {
        Member sender = senderOf(source);
        counters.received(frame.payload().length);
        byte[] reply;
        String failure = null;
        try {
            reply = receiver.onMessage(sender, frame.payload());
            if (reply == null) {
                failure = "its receiver returned no reply";
            }
        } catch (RuntimeException e) {
            receiverFailed(sender, e);
            reply = null;
            failure = "its receiver failed: " + e;
        }
        Message out = failure == null
                ? WireFormat.message(source, Kind.REPLY, frame.correlationId(), reply)
                : WireFormat.failure(source, frame.correlationId(), failure);
        try {
            channel.send(out.setFlag(Message.Flag.OOB, Message.Flag.NO_FC));
            if (failure == null) {
                counters.replySent();
            }
        } catch (Exception e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "could not reply to " + sender, e);
        }
    }

    private Member senderOf(Address source) {
        Member member = membership.get().memberAt(source);
        return member != null ? member : NodeIdentity.memberOf(source);
    }

    private void receiverFailed(Member sender, RuntimeException e) {
        counters.receiverFailed();
        if (failureWarning.due()) {
            LOG.log(System.Logger.Level.WARNING, "the receiver failed on a message from " + sender
                    + "; the transport keeps running (logged at most once a minute, each one counted)", e);
        }
    }

    private final io.sessionrep.core.WarningInterval malformedWarning =
            new io.sessionrep.core.WarningInterval(java.time.Duration.ofMinutes(1));
    private final io.sessionrep.core.WarningInterval failureWarning =
            new io.sessionrep.core.WarningInterval(java.time.Duration.ofMinutes(1));
}
