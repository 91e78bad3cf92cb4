package io.sessionrep.transport.jgroups;

import io.sessionrep.discovery.ChannelPortRefusals;
import io.sessionrep.transport.jgroups.lane.DataLane;

import java.util.concurrent.atomic.LongAdder;

/**
 * Live counters of one {@link JGroupsTransport}, for tests and metrics. All values only grow.
 *
 * <p>"Messages" are the core's messages (one-way and requests); a broadcast counts once in
 * {@link #broadcastsSent()} and once per recipient in {@link #messagesSent()}. "Bytes" are payload
 * bytes as the core built them, without the transport's frame header or JGroups headers. Replies are
 * counted apart from messages.
 */
public final class TransportCounters {

    private final LongAdder messagesSent = new LongAdder();
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder sentByCaller = new LongAdder();
    private final LongAdder messagesReceived = new LongAdder();
    private final LongAdder bytesReceived = new LongAdder();
    private final LongAdder broadcastsSent = new LongAdder();
    private final LongAdder repliesSent = new LongAdder();
    private final LongAdder repliesReceived = new LongAdder();
    private final LongAdder sendsDropped = new LongAdder();
    private final LongAdder requestsTimedOut = new LongAdder();
    private final LongAdder requestsFailed = new LongAdder();
    private final LongAdder receiverFailures = new LongAdder();
    private final LongAdder malformedFrames = new LongAdder();
    private final LongAdder heldForView = new LongAdder();
    private final LongAdder heldInVain = new LongAdder();
    private final LongAdder heldDropped = new LongAdder();
    private final LongAdder laneExchanges = new LongAdder();
    private final LongAdder laneNotHandled = new LongAdder();
    private final LongAdder laneRefused = new LongAdder();
    private final LongAdder lanePauses = new LongAdder();
    private final LongAdder laneExchangesGivenUp = new LongAdder();
    /** The channel port's gate (the generated TCP stacks); null with UDP or a jgroups-config stack. */
    private volatile ChannelPortRefusals channelPort;

    TransportCounters() {
    }

    /** Messages handed to the network (one-way, requests, one per broadcast recipient). */
    public long messagesSent() { return messagesSent.sum(); }
    /** Payload bytes of {@link #messagesSent()}. */
    public long bytesSent() { return bytesSent.sum(); }
    /**
     * Of the messages handed to the network, those the calling thread handed to the channel itself (its
     * lane was idle and flow control had credits); the others went through a lane thread.
     */
    public long sentByCaller() { return sentByCaller.sum(); }
    /** Messages delivered to this node's receiver (one-way and requests). */
    public long messagesReceived() { return messagesReceived.sum(); }
    /** Payload bytes of {@link #messagesReceived()}. */
    public long bytesReceived() { return bytesReceived.sum(); }
    /** Calls of {@code broadcast}. */
    public long broadcastsSent() { return broadcastsSent.sum(); }
    /** Replies this node sent to requests (successful replies only). */
    public long repliesSent() { return repliesSent.sum(); }
    /** Replies this node received that completed one of its requests. */
    public long repliesReceived() { return repliesReceived.sum(); }
    /** One-way messages not sent: target not a member, outbound queue full, or transport not running. */
    public long sendsDropped() { return sendsDropped.sum(); }
    /** Requests whose timeout passed before a reply came. */
    public long requestsTimedOut() { return requestsTimedOut.sum(); }
    /** Requests that failed otherwise: no reply, receiver error, target left, transport closed. */
    public long requestsFailed() { return requestsFailed.sum(); }
    /** Exceptions thrown by this node's receiver (the transport logged them and kept running). */
    public long receiverFailures() { return receiverFailures.sum(); }
    /** Incoming frames dropped because they were truncated or of an unknown version or kind. */
    public long malformedFrames() { return malformedFrames.sum(); }
    /**
     * Messages from a node that had just joined, held until this node's view included it
     * ({@link NewcomerGate}).
     */
    public long heldForView() { return heldForView.sum(); }
    /** Of {@link #heldForView()}, those whose sender was still not in the view when the wait ended. */
    public long heldInVain() { return heldInVain.sum(); }
    /** Messages of such a node dropped because the held messages reached their bound in bytes. */
    public long heldDropped() { return heldDropped.sum(); }

    /**
     * Requests, and one-way messages sent on the caller's thread, that the member handled over the data lane
     * ({@link DataLane}); counted also in messages sent.
     */
    public long laneExchanges() { return laneExchanges.sum(); }
    /**
     * Data lane requests this node answered "not handled": the sender's earlier channel messages had not all been
     * handled here within the wait (the sender then used the channel).
     */
    public long laneNotHandled() { return laneNotHandled.sum(); }
    /**
     * Data lane connections this node closed as hostile or broken: a frame too long, not authentic
     * ({@code cluster-key}) or malformed (logged as a warning at most once a minute), more connections than the
     * lane takes, or a hello naming no member of this node's view (also a node that has just joined, before the
     * view holds it; not logged above DEBUG).
     */
    public long laneRefused() { return laneRefused.sum(); }
    /** Times this node left a member's data lane for the channel a while (not reachable, or behind). */
    public long lanePauses() { return lanePauses.sum(); }
    /**
     * Sync exchanges over the data lane given up before their time-out: another backup had stored the update and
     * this one did not answer within {@link DataLane#NO_LONGER_NEEDED_GRACE_MILLIS} (the transport sent it again
     * over the channel). Not counted in {@link #requestsTimedOut()}.
     */
    public long laneExchangesGivenUp() { return laneExchangesGivenUp.sum(); }

    /**
     * Connections to the channel port closed before JGroups saw them because they sent no complete handshake in
     * time, or were pushed out by newer ones while the port held as many waiting as it holds (see
     * {@link ChannelPortRefusals}); 0 without the gate (UDP, {@code jgroups-config}).
     */
    public long silentConnections() {
        ChannelPortRefusals refusals = channelPort;
        return refusals == null ? 0 : refusals.silentConnections();
    }

    /**
     * Connections to the channel port closed before JGroups saw them because their first bytes are not a JGroups
     * handshake this node reads, or their TLS handshake failed; 0 without the gate.
     */
    public long badHandshakes() {
        ChannelPortRefusals refusals = channelPort;
        return refusals == null ? 0 : refusals.badHandshakes();
    }

    void watchChannelPort(ChannelPortRefusals refusals) { channelPort = refusals; }
    void sent(int bytes) { messagesSent.increment(); bytesSent.add(bytes); }
    void sentInline() { sentByCaller.increment(); }
    void received(int bytes) { messagesReceived.increment(); bytesReceived.add(bytes); }
    void broadcastSent() { broadcastsSent.increment(); }
    void replySent() { repliesSent.increment(); }
    void replyReceived() { repliesReceived.increment(); }
    void sendDropped() { sendsDropped.increment(); }
    void requestTimedOut() { requestsTimedOut.increment(); }
    void requestFailed() { requestsFailed.increment(); }
    void receiverFailed() { receiverFailures.increment(); }
    void malformedFrame() { malformedFrames.increment(); }
    void messageHeld() { heldForView.increment(); }
    void heldMessagesReleasedInVain(int messages) { heldInVain.add(messages); }
    void heldMessageDropped() { heldDropped.increment(); }
    void laneExchanged() { laneExchanges.increment(); }
    void countLaneNotHandled() { laneNotHandled.increment(); }
    void countLaneRefused() { laneRefused.increment(); }
    void lanePaused() { lanePauses.increment(); }
    void laneExchangeGivenUp() { laneExchangesGivenUp.increment(); }

    /** These counters as the data lane counts into them. */
    DataLane.Counts forLane() {
        TransportCounters c = this;
        return new DataLane.Counts() {
            @Override public void sent(int bytes) { c.sent(bytes); }
            @Override public void received(int bytes) { c.received(bytes); }
            @Override public void replySent() { c.replySent(); }
            @Override public void replyReceived() { c.replyReceived(); }
            @Override public void receiverFailed() { c.receiverFailed(); }
            @Override public void requestTimedOut() { c.requestTimedOut(); }
            @Override public void requestFailed() { c.requestFailed(); }
            @Override public void laneExchanged() { c.laneExchanged(); }
            @Override public void laneExchangeGivenUp() { c.laneExchangeGivenUp(); }
            @Override public void countLaneRefused() { c.countLaneRefused(); }
            @Override public void countLaneNotHandled() { c.countLaneNotHandled(); }
            @Override public void lanePaused() { c.lanePaused(); }
        };
    }

    @Override
    public String toString() {
        return "sent " + messagesSent() + " msgs/" + bytesSent() + " B (" + sentByCaller()
                + " by the caller), received " + messagesReceived() + " msgs/"
                + bytesReceived() + " B, broadcasts " + broadcastsSent() + ", replies sent " + repliesSent()
                + "/received " + repliesReceived() + ", dropped " + sendsDropped() + ", timed out "
                + requestsTimedOut() + ", failed " + requestsFailed() + ", receiver failures " + receiverFailures()
                + ", malformed " + malformedFrames() + ", channel port refused " + silentConnections() + " silent/"
                + badHandshakes() + " bad handshakes, held for a view " + heldForView() + " (in vain "
                + heldInVain() + ", dropped " + heldDropped() + "), data lane " + laneExchanges() + " (not handled "
                + laneNotHandled() + ", refused " + laneRefused() + ", paused " + lanePauses() + ", given up "
                + laneExchangesGivenUp() + ")";
    }
}
