package io.sessionrep.transport.jgroups.lane;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MessageReceiver;
import io.sessionrep.core.transport.TransportException;
import io.sessionrep.core.wire.ProtocolRange;
import io.sessionrep.discovery.SealedBytes;
import org.jgroups.Address;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;

/**
 * The data lane: a TCP connection of this node's own to each member, beside the JGroups channel, for the updates
 * the core waits for (a sync request end's update and a sync-mode invalidation, one write and one read on the
 * calling thread) and for the async sender's batches. Its server ({@link LaneServer}) hands what it reads to the
 * core once the channel messages the sender sent before it were handled here, so that per sender the order of
 * channel and lane is kept; its client ({@link LaneClient}) keeps connections to the members' servers.
 *
 * <p>The transport that owns the lane tells it what it knows ({@link Host}): the view, the members' addresses, how
 * far it has sent channel messages to each member ({@link #position}) and how far it has handled each member's
 * ({@link #handled}). Everything else (frames, seals, positions, pipes, reply deadlines, silent connections) stays
 * in this package.
 */
public final class DataLane implements AutoCloseable {

    /** No channel message sent (or handled) yet. */
    public static final long NO_POSITION = ChannelPosition.NONE;
    /** The highest stream number of {@link #position}. */
    public static final int MAX_STREAM = ChannelPosition.MAX_STREAM;
    /** How long a sync exchange still waits for its reply once the caller no longer needs it. */
    public static final long NO_LONGER_NEEDED_GRACE_MILLIS = LaneClient.NO_LONGER_NEEDED_GRACE_MILLIS;

    /** What the lane asks of the transport that owns it. Called from lane threads: answers at once. */
    public interface Host {
        /** This node's channel address; null before it has one. */
        Address self();

        /** The member at {@code address} in the current view; null when it is none. */
        Member memberAt(Address address);

        /** The addresses of the current view, this node's included. */
        Collection<Address> members();

        /** The physical IP of {@code member}'s channel; null while unknown. */
        InetAddress hostOf(Address member);

        /** The port of {@code member}'s data lane, as its address states it; 0 when it has none. */
        int lanePortOf(Address member);

        /** The wire protocols {@code member}'s address states. */
        ProtocolRange protocolsOf(Address member);

        /** The {@link #position} of the channel messages this node handed over for {@code member} so far. */
        long sentTo(Address member);
    }

    /** Where the lane counts its traffic: the transport's counters. */
    public interface Counts {
        void sent(int bytes);

        void received(int bytes);

        void replySent();

        void replyReceived();

        void receiverFailed();

        void requestTimedOut();

        void requestFailed();

        void laneExchanged();

        void laneExchangeGivenUp();

        void countLaneRefused();

        void countLaneNotHandled();

        void lanePaused();
    }

    /**
     * A pipe for one-way messages to one member (the async sender's batches): frames written one after the other
     * without waiting for each answer; what a failed pipe did not deliver is handed back, to go over the channel.
     *
     * @param <T> what the owner keeps per message, handed back by {@link #settle} and {@link #abandon}
     */
    public interface OneWays<T> extends AutoCloseable {
        /**
         * Writes {@code messages} as one frame, handled there after the channel messages sent before ({@code sentBefore},
         * a {@link #position}).
         *
         * @param payloadLength {@link DataLane#oneWaysLength} of the messages, at most {@link DataLane#room()}
         * @return false when the pipe had failed or failed meanwhile: the frame was not taken
         */
        boolean write(long sentBefore, List<byte[]> messages, int payloadLength, List<T> items);

        /** Waits until the frames written are answered (at most the time-out); the items of those not delivered. */
        List<T> settle();

        /** Closes the pipe; the items of the frames not answered. */
        List<T> abandon();

        /** No frame waits for its answer. */
        boolean idle();

        /** Frames wait for their answer, or the pipe has failed with some not answered. */
        boolean needsSettling();

        /** Frames may be written. */
        boolean usable();

        @Override
        void close();
    }

    private final LaneServer server;
    private final LaneClient client;
    private final Host host;
    private final Counts counts;
    private final HandledPositions handledPositions;
    private final Map<Address, LaneClient.Endpoint> endpoints = new ConcurrentHashMap<>();

    private DataLane(LaneServer server, LaneClient client, Host host, Counts counts, HandledPositions handledPositions) {
        this.handledPositions = handledPositions;
        this.server = server;
        this.client = client;
        this.host = host;
        this.counts = counts;
    }

    /**
     * Opens the lane's server socket on {@code bind}:{@code port} (0: any free port); it accepts once {@link #start}ed.
     *
     * @param tls    the channel's TLS context: the lane's connections are TLS too, with client certificates; null: plain
     * @param sealer seals and opens every frame ({@code cluster-key}); null: none
     */
    public static DataLane open(InetAddress bind, int port, SSLContext tls, SealedBytes sealer, MessageReceiver receiver,
                                Host host, Counts counts, String localName) throws IOException {
        LaneFrames frames = new LaneFrames(sealer);
        HandledPositions handled = new HandledPositions();
        LaneServer server = new LaneServer(bind, port, tls, frames, receiver, host, remote -> hostOfAMember(host, remote),
                handled, counts, localName);
        // connections leave from the bind address, the one the members know this node by (see hostOfAMember)
        LaneClient client = new LaneClient(frames, counts, tls, bind.isAnyLocalAddress() ? null : bind);
        return new DataLane(server, client, host, counts, handled);
    }

    /** Starts accepting connections (once this node has its channel address). */
    public void start() {
        server.start();
    }

    /** The port the lane listens on. */
    public int port() {
        return server.port();
    }

    /** Connections accepted since the start. */
    public int accepted() {
        return server.accepted();
    }

    /** The largest payload the lane writes at once; 0 when it is not used (socket buffers too small). */
    public int room() {
        return client.room();
    }

    /** The position after {@code count} channel messages of {@code stream} (1 to {@link #MAX_STREAM}). */
    public static long position(int stream, long count) {
        return ChannelPosition.of(stream, count);
    }

    /** A position as operators read it. */
    public static String describe(long position) {
        return ChannelPosition.toString(position);
    }

    /** The payload length of a frame of {@code messages} one-way messages of {@code bytes} in all. */
    public static int oneWaysLength(int messages, long bytes) {
        return LaneFrames.oneWaysLength(messages, bytes);
    }

    /** A channel message of {@code source} at {@code position} was handled here (delivered or refused). */
    public void handled(Address source, long position) {
        handledPositions.handled(source, position);
    }

    /** A new view: connections to members that left are closed. */
    public void retainOnly(Set<Address> members) {
        handledPositions.trim(members);
        endpoints.keySet().retainAll(members);
        client.retainOnly(members);
    }

    /** Whether {@code target} has a lane this node can use (this node knows where it listens). */
    public boolean reaches(Address target) {
        return endpointOf(target) != null;
    }

    /**
     * A request on the calling thread, handled there after the channel messages this node sent it before.
     *
     * @param noLongerNeeded null, or a stage after whose completion the exchange waits at most
     *                       {@link #NO_LONGER_NEEDED_GRACE_MILLIS} more (then it times out)
     * @return the reply; null when nothing was sent or nothing was handled there (no lane to it now, or its channel
     *         was behind): the caller sends it over the channel
     * @throws TransportException the lane failed after the write: handled there or not
     * @throws TimeoutException   no reply in time (or soon after {@code noLongerNeeded})
     */
    public byte[] request(Address target, byte[] message, Duration timeout, CompletionStage<?> noLongerNeeded)
            throws TimeoutException {
        LaneClient.Endpoint endpoint = endpointOf(target);
        if (endpoint == null) {
            return null;
        }
        byte[] reply = client.exchange(endpoint, host.self(), host.sentTo(target), message, timeout, noLongerNeeded);
        if (reply != null) {
            counts.sent(message.length);
            counts.replyReceived();
        }
        return reply;
    }

    /**
     * A one-way message on the calling thread, as {@link #request}, waiting until the target has handled it.
     *
     * @return true once handled there; false as {@link #request} returns null
     */
    public boolean deliver(Address target, byte[] message, Duration timeout) throws TimeoutException {
        LaneClient.Endpoint endpoint = endpointOf(target);
        if (endpoint == null) {
            return false;
        }
        boolean handled = client.deliver(endpoint, host.self(), host.sentTo(target), message, timeout);
        if (handled) {
            counts.sent(message.length);
        }
        return handled;
    }

    /**
     * A pipe for one-way frames to {@code target}, on a connection of its own; null when its lane is not to be used
     * now (none, resting, not reachable).
     *
     * @param timeout   how long a frame may wait for its answer before the pipe fails
     * @param onFailure told when the pipe fails with frames not answered
     */
    public <T> OneWays<T> openOneWays(Address target, Duration timeout, Runnable onFailure) {
        LaneClient.Endpoint endpoint = endpointOf(target);
        return endpoint == null ? null : client.openPipe(endpoint, host.self(), timeout, onFailure);
    }

    /** From now on connects to {@code at} for {@code member}'s lane (tests in this package: a relay on the way). */
    void routeTo(Address member, InetSocketAddress at) {
        endpoints.put(member, new LaneClient.Endpoint(member, at));
    }

    /** Stops serving as if the lane had failed (tests): connections drop, new ones are refused. */
    public void stopServing() {
        server.close();
    }

    @Override
    public void close() {
        try {
            server.close();
        } finally {
            client.close();
        }
    }

    /** Where {@code target}'s lane listens; null when it has none, or it is not known yet. */
    private LaneClient.Endpoint endpointOf(Address target) {
        LaneClient.Endpoint endpoint = endpoints.get(target);
        if (endpoint == null) {
            endpoint = endpointFromAddress(target);
            if (endpoint != null) {
                endpoints.put(target, endpoint);
            }
        }
        return endpoint == null || endpoint.socket() == null ? null : endpoint;
    }

    /**
     * Its physical IP and the port its address carries (none, or a build whose lane frames differ from this one's:
     * socket null); null while its physical address is unknown.
     */
    private LaneClient.Endpoint endpointFromAddress(Address member) {
        int port = host.lanePortOf(member);
        if (port <= 0 || host.protocolsOf(member).newest() < LaneFrames.SINCE_PROTOCOL) {
            return new LaneClient.Endpoint(member, null);
        }
        InetAddress ip = host.hostOf(member);
        return ip == null ? null : new LaneClient.Endpoint(member, new InetSocketAddress(ip, port));
    }

    /** Whether {@code remote} is the physical IP of a member of the view (where its lane connections come from). */
    private static boolean hostOfAMember(Host host, InetAddress remote) {
        for (Address member : host.members()) {
            if (remote.equals(host.hostOf(member))) {
                return true;
            }
        }
        return false;
    }
}
