package io.sessionrep.transport.jgroups;

import io.sessionrep.core.WarningInterval;
import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.MemberLeftException;
import io.sessionrep.core.transport.MessageReceiver;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.core.transport.TransportException;
import io.sessionrep.core.wire.ProtocolRange;
import io.sessionrep.discovery.ChannelPortRefusals;
import io.sessionrep.discovery.IsolatingTcp;
import io.sessionrep.discovery.JGroupsStacks;
import io.sessionrep.discovery.SealedBytes;
import io.sessionrep.discovery.StartFailures;
import io.sessionrep.transport.jgroups.OutboundQueues.Outgoing;
import io.sessionrep.transport.jgroups.WireFormat.Kind;
import io.sessionrep.transport.jgroups.lane.DataLane;
import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.View;
import org.jgroups.protocols.TCP;
import org.jgroups.stack.IpAddress;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * {@link ReplicationTransport} over a JGroups channel whose stack {@link JGroupsStacks} builds from the
 * {@link ReplicationConfig}: the channel's logical name is {@code node-name}, it joins
 * {@code cluster-name}, and its address carries the node name and {@code machine-id}, so every member
 * knows every other member's {@link Member} from the view.
 *
 * <p>How the SPI contract is kept:
 * <ul>
 *   <li><b>FIFO</b>: one-way messages and requests are regular (not OOB) unicasts, queued per destination
 *       in one lane ({@link OutboundQueues}) and delivered by UNICAST3 in order, one at a time per sender.
 *       {@link #broadcast} is one unicast per other member through the same lanes, so it is ordered with
 *       the sender's other messages too (a JGroups multicast would not be).</li>
 *   <li><b>Callers never block</b>: sends are queued; a lane thread waits for flow-control credits if a
 *       receiver falls behind. At most {@value #MAX_QUEUED_BYTES_PER_MEMBER} bytes wait per member; beyond
 *       that {@code send} drops (counted) and {@code request} fails at once.</li>
 *   <li><b>Requests</b> are correlated by an id in a small frame ({@link WireFormat}), never by Java
 *       serialization. The future completes with the reply; exceptionally with {@code TimeoutException}
 *       after the timeout, or with {@link TransportException} when the receiver returned null or threw,
 *       the target left the view, or this transport closed. Replies come back out-of-band and are handled on the
 *       thread that read them from the connection ({@link RepliesOnReceiverThread}); callbacks chained
 *       without an executor run on that thread, a JGroups pool thread or the timer thread, and must be short
 *       and never wait: while one runs, nothing more is read from that member.</li>
 *   <li><b>Requests the caller waits for</b> ({@link #requestInline}, {@link #sendAndAwaitHandled}): over the
 *       {@link DataLane} on the calling thread when this node and the target both have one, handled there after
 *       the channel messages sent before; otherwise, and again after the lane failed or timed out once written, over
 *       the channel (so the target may handle one twice: the core sends only messages it ignores the second time).</li>
 *   <li><b>Membership</b>: every view change updates {@link #members()} and is reported to
 *       {@link MessageReceiver#onMembershipChange} in view order.</li>
 *   <li><b>Partial clusters</b>: {@link #partialClusterSigns()} names nodes of the cluster heard of from another
 *       view and configured peers that are up but not in the view ({@link PartialClusterWatch}).</li>
 * </ul>
 *
 * <p>Lifecycle: {@link #start} once, then {@link #close} (idempotent; leaves the cluster so that the
 * others see the departure at once). A transport is not restartable: create a new one.
 */
public final class JGroupsTransport implements ReplicationTransport {

    /** Bytes of frames that may wait to be sent to one member before sends to it are refused. */
    public static final long MAX_QUEUED_BYTES_PER_MEMBER = 64L * 1024 * 1024;

    private static final System.Logger LOG = System.getLogger(JGroupsTransport.class.getName());
    private final ReplicationConfig config;
    private final Member local;
    private final ProtocolRange protocols;
    private final TransportCounters counters = new TransportCounters();
    private final WarningInterval refusalWarning = new WarningInterval(Duration.ofSeconds(10));

    private final Object lifecycle = new Object();
    private volatile boolean started;
    private volatile boolean running;
    private volatile boolean closed;
    private volatile Membership membership = Membership.EMPTY;

    /** How long the messages of a node that has just joined may wait for this node's view to include it. */
    static final long NEWCOMER_WAIT_MILLIS = 3_000;
    /** How many such nodes may have messages held at once; and how many bytes may be held in all. */
    static final int NEWCOMER_MAX_SENDERS = 16;
    static final long NEWCOMER_MAX_BYTES = 16L * 1024 * 1024;

    /** On close, how long queued outbound messages may take to reach the channel. */
    static final long CLOSE_DRAIN_MILLIS = 3_000;
    /**
     * On close, how long the channel may take to leave the view and stop its threads (about 0.1 to 1 s; GMS waits for
     * the coordinator's answer to the leave at most 1 s, JGroups' pools at most 1 s each); past it the close goes on
     * without it ({@link BoundedClose}).
     */
    static final long CHANNEL_CLOSE_MILLIS = 5_000;
    /**
     * How long a batch sent over the lane may wait for the member's answer that it handled it; past it the batch goes
     * over the channel and that member's lane rests a while.
     */
    static final Duration ONE_WAYS_TIMEOUT = Duration.ofSeconds(1);

    private JChannel channel;
    private MessageReceiver receiver;
    private OutboundQueues outbound;
    private PendingRequests pending;
    private NewcomerGate newcomers;
    private ExecutorService senderThreads;
    private ScheduledExecutorService timeoutThread;
    /** The data lane ({@code data-lane}; TLS when the channel is; not with jgroups-config); null without. */
    private DataLane lane;
    private final PartialClusterWatch.Timing watchTiming;
    private volatile PartialClusterWatch partialWatch;

    /** A transport for {@code config}; nothing is opened before {@link #start}. */
    public JGroupsTransport(ReplicationConfig config) {
        this(config, ProtocolRange.SUPPORTED, PartialClusterWatch.Timing.DEFAULT);
    }

    /**
     * A transport whose address states {@code protocols} as the wire protocols this node reads, instead of what this
     * build reads: to rehearse a cluster of mixed releases (a node of an older or a later release) in one build.
     */
    public JGroupsTransport(ReplicationConfig config, ProtocolRange protocols) {
        this(config, protocols, PartialClusterWatch.Timing.DEFAULT);
    }

    /** As {@link #JGroupsTransport(ReplicationConfig)}, with other time bounds of the partial-cluster watch (tests). */
    JGroupsTransport(ReplicationConfig config, PartialClusterWatch.Timing watchTiming) {
        this(config, ProtocolRange.SUPPORTED, watchTiming);
    }

    private JGroupsTransport(ReplicationConfig config, ProtocolRange protocols, PartialClusterWatch.Timing watchTiming) {
        this.config = Objects.requireNonNull(config, "config");
        this.protocols = Objects.requireNonNull(protocols, "protocols");
        this.local = new Member(requireText(config.nodeName(), "node-name"), requireText(config.machineId(), "machine-id"));
        this.watchTiming = Objects.requireNonNull(watchTiming, "watchTiming");
    }

    /**
     * Builds the stack, joins {@code cluster-name} and returns once this node is in a view (alone if no
     * peer answered within GMS's join timeout).
     *
     * @throws TransportException naming the option to fix ({@code bind-port} in use, a {@code peers}
     *                            host that does not resolve, ...)
     * @throws IllegalStateException if called twice or after {@link #close}
     */
    @Override
    public void start(MessageReceiver receiver) throws TransportException {
        Objects.requireNonNull(receiver, "receiver");
        synchronized (lifecycle) {
            if (started || closed) {
                throw new IllegalStateException("transport of " + local + " was already " + (closed ? "closed" : "started")
                        + "; create a new one");
            }
            started = true;
            JChannel created;
            try {
                WireFormat.registerHeader();
                created = JGroupsStacks.channel(config);
                RepliesOnReceiverThread.install(created.getProtocolStack().getTransport());
                if (created.getProtocolStack().getTransport() instanceof IsolatingTcp tcp) {
                    counters.watchChannelPort(tcp.refusedConnections());
                }
                partialWatch = PartialClusterWatch.install(local.name(), created, () -> membership, watchTiming);
            } catch (Exception e) {
                closed = true;
                throw startFailure(e);
            }
            this.receiver = receiver;
            timeoutThread = Executors.newSingleThreadScheduledExecutor(daemonThreads("sessionrep-timeouts-" + local.name()));
            senderThreads = Executors.newCachedThreadPool(daemonThreads("sessionrep-send-" + local.name()));
            pending = new PendingRequests(timeoutThread, counters);
            try {
                channel = created;
                openLane(receiver);
                channel.name(local.name());
                channel.addAddressGenerator(new NodeIdentity(local, lane == null ? 0 : lane.port(), protocols));
                outbound = new OutboundQueues(channel, senderThreads, MAX_QUEUED_BYTES_PER_MEMBER, counters);
                newcomers = new NewcomerGate(NEWCOMER_WAIT_MILLIS, NEWCOMER_MAX_SENDERS, NEWCOMER_MAX_BYTES,
                        () -> membership, senderThreads, timeoutThread, counters);
                channel.setReceiver(new InboundDispatcher(channel, receiver, pending, counters, () -> membership,
                        newcomers, this::viewChanged, lane));
                running = true;
                channel.connect(config.clusterName());
                if (lane != null) {
                    lane.start();
                }
                partialWatch.start();
            } catch (Exception e) {
                TransportException failure = startFailure(e);
                closed = true;
                shutDown("start-up failed");
                throw failure;
            }
            LOG.log(System.Logger.Level.INFO, "{0} joined cluster-name ''{1}'' with {2} at {3}{4}; members {5}",
                    local, config.clusterName(), JGroupsStacks.describe(config), boundAddress(),
                    lane == null ? "" : ", data lane on port " + lane.port()
                            + (config.clusterKey() != null ? " (sealed by cluster-key)" : "")
                            + (config.tlsEnabled() ? " (mutual TLS)" : ""), members());
        }
    }

    @Override
    public Member localMember() {
        return local;
    }

    /** The current view, this node included; empty before {@link #start} and after {@link #close}. */
    @Override
    public List<Member> members() {
        return membership.members();
    }

    /** What {@code member}'s address states; this node's own range for itself (also before the start). */
    @Override
    public ProtocolRange protocolsOf(Member member) {
        if (member.equals(local)) {
            return protocols;
        }
        Address address = membership.addressOf(member);
        return address == null ? ProtocolRange.UNSTATED : NodeIdentity.protocolsOf(address);
    }

    @Override
    public void send(Member target, byte[] message) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(message, "message");
        Address address = running ? membership.addressOf(target) : null;
        if (address == null) {
            counters.sendDropped();
            LOG.log(System.Logger.Level.DEBUG, "dropped a message to {0}: not a member", target);
            return;
        }
        enqueue(target, WireFormat.message(address, Kind.ONE_WAY, 0, message));
    }

    @Override
    public CompletableFuture<byte[]> request(Member target, byte[] message, Duration timeout) {
        return request(target, Kind.REQUEST, message, timeout);
    }

    private CompletableFuture<byte[]> request(Member target, Kind kind, byte[] message, Duration timeout) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        Address address = running ? membership.addressOf(target) : null;
        if (address == null) {
            counters.requestFailed();
            return CompletableFuture.failedFuture(running
                    ? new MemberLeftException("request to " + target + " not sent: not a member of the cluster")
                    : new TransportException("request to " + target + " not sent: the transport is not running"));
        }
        PendingRequests.Registration registration = pending.register(target, address, timeout);
        long id = registration.id();
        if (!running) {
            pending.fail(id, "request to " + target + " not sent: the transport is closed");
            return registration.future();
        }
        if (!membership.contains(address)) { // the view changed since the look-up
            pending.failTargetLeft(id);
            return registration.future();
        }
        String refused = outbound.offer(new Outgoing(WireFormat.message(address, kind, id, message), message.length,
                reason -> pending.fail(id, "request to " + target + " not sent: " + reason)));
        if (refused != null) {
            warnRefused(target, refused);
            pending.fail(id, "request to " + target + " not sent: " + refused);
        }
        return registration.future();
    }

    /**
     * With {@code async-lane}: each member's messages together over the lane when this node and the member both have
     * one and nothing else to that member is waiting to be sent (the async sender's batches: written on the calling
     * thread into that member's {@link DataLane.OneWays pipe}, without waiting for the member to handle them; a frame
     * not answered within {@link #ONE_WAYS_TIMEOUT} goes over the channel); otherwise, and for what the lane does not
     * take, as {@link #send} does. Order per member is kept either way ({@link OutboundQueues#sendOver}).
     */
    @Override
    public void sendAll(List<Outbound> messages) {
        DataLane oneWays = config.asyncLane() ? lane : null;
        if (oneWays == null || messages.isEmpty()) {
            ReplicationTransport.super.sendAll(messages);
            return;
        }
        Map<Member, List<byte[]>> byTarget = new LinkedHashMap<>();
        for (Outbound m : messages) {
            byTarget.computeIfAbsent(m.target(), t -> new ArrayList<>()).add(m.message());
        }
        byTarget.forEach((target, list) -> sendAll(oneWays, target, list));
    }

    private void sendAll(DataLane oneWays, Member target, List<byte[]> messages) {
        Address address = running ? membership.addressOf(target) : null;
        if (address == null || !oneWays.reaches(address)) {
            messages.forEach(m -> send(target, m));
            return;
        }
        List<Outgoing> batch = new ArrayList<>(messages.size());
        for (byte[] m : messages) {
            batch.add(new Outgoing(WireFormat.message(address, Kind.ONE_WAY, 0, m), m.length, reason -> counters.sendDropped(), m));
        }
        if (!outbound.sendOver(address, batch, oneWays.room(),
                onFailure -> oneWays.openOneWays(address, ONE_WAYS_TIMEOUT, onFailure))) {
            batch.forEach(o -> enqueue(target, o.message()));
        }
    }

    /**
     * Over the data lane on the calling thread when this node and {@code target} both have one (then the future is
     * complete on return), else over the channel as {@link #request}. An exchange that fails or times out after its
     * write (or that is given up once {@code noLongerNeeded} completed) is sent again over the channel: the target
     * may have handled it or not (one whose channel was behind does not handle it at all), and the channel delivers
     * it even after the exchange gave up.
     */
    @Override
    public CompletableFuture<byte[]> requestInline(Member target, byte[] message, Duration timeout,
                                                   java.util.concurrent.CompletionStage<?> noLongerNeeded) {
        byte[] reply;
        try {
            reply = requestOverLane(target, message, timeout, noLongerNeeded);
        } catch (TimeoutException | RuntimeException e) {
            return request(target, message, timeout);
        }
        return reply == null ? request(target, message, timeout) : CompletableFuture.completedFuture(reply);
    }

    /**
     * Over the data lane when this node and {@code target} both have one, waiting until the target has handled it;
     * else, and when the lane fails or times out after the write, over the channel as {@link #send} (so the target
     * may handle it twice).
     */
    @Override
    public void sendAndAwaitHandled(Member target, byte[] message, Duration timeout) throws TimeoutException {
        boolean handled;
        try {
            handled = deliverOverLane(target, message, timeout);
        } catch (TimeoutException e) {
            send(target, message);
            throw e;
        } catch (RuntimeException e) {
            handled = false;
        }
        if (!handled) {
            send(target, message);
        }
    }

    /**
     * The exchange over the data lane ({@link DataLane#request}); null, sending nothing, when this node or
     * {@code target} has none. The target handles it once it has handled every channel message this node handed over
     * for it before.
     *
     * @throws TransportException the lane failed after the write
     * @throws TimeoutException   no reply within {@code timeout}, or soon after {@code noLongerNeeded} completed
     */
    byte[] requestOverLane(Member target, byte[] message, Duration timeout,
                           java.util.concurrent.CompletionStage<?> noLongerNeeded) throws TimeoutException {
        DataLane l = lane;
        Address address = l != null && running ? membership.addressOf(target) : null;
        return address == null ? null : l.request(address, message, timeout, noLongerNeeded);
    }

    /** A one-way message over the data lane, as {@link #requestOverLane}: true once handled; false when there is none. */
    private boolean deliverOverLane(Member target, byte[] message, Duration timeout) throws TimeoutException {
        DataLane l = lane;
        Address address = l != null && running ? membership.addressOf(target) : null;
        return address != null && l.deliver(address, message, timeout);
    }

    /** The lane's view of this transport. */
    private DataLane.Host laneHost() {
        return new DataLane.Host() {
            @Override
            public Address self() {
                return channel.getAddress();
            }

            @Override
            public Member memberAt(Address address) {
                return membership.memberAt(address);
            }

            @Override
            public java.util.Collection<Address> members() {
                return membership.addresses();
            }

            @Override
            public InetAddress hostOf(Address member) {
                Object physical = channel.down(new Event(Event.GET_PHYSICAL_ADDRESS, member));
                return physical instanceof IpAddress ip ? ip.getIpAddress() : null;
            }

            @Override
            public int lanePortOf(Address member) {
                return NodeIdentity.lanePortOf(member);
            }

            @Override
            public ProtocolRange protocolsOf(Address member) {
                return NodeIdentity.protocolsOf(member);
            }

            @Override
            public long sentTo(Address member) {
                return outbound.offeredTo(member);
            }
        };
    }

    /** Opens the data lane's server socket when this node uses it; its port then travels in this node's address. */
    private void openLane(MessageReceiver receiver) throws IOException {
        if (!config.dataLane() || config.jgroupsConfig() != null) {
            return;
        }
        SSLContext tls = null;
        if (config.tlsEnabled()) { // a context of the channel's TLS settings: the same stores, mutual authentication
            tls = channel.getProtocolStack().getTransport() instanceof TCP tcp && tcp.tls().enabled()
                    ? tcp.tls().createContext() : null;
            if (tls == null) {
                LOG.log(System.Logger.Level.WARNING, "no data lane: the channel's TLS context is not available; updates"
                        + " take the channel");
                return;
            }
        }
        SealedBytes sealer = config.clusterKey() == null ? null
                : SealedBytes.forClusterKey(config.clusterKey(), config.clusterName());
        try {
            lane = DataLane.open(InetAddress.getByName(config.bindAddress()), config.dataLanePort(), tls, sealer, receiver,
                    laneHost(), counters.forLane(), local.name());
        } catch (IOException e) {
            throw new ConfigException("data-lane-port", config.dataLanePort() + " on bind-address " + config.bindAddress()
                    + " cannot be opened (" + e.getMessage() + "): choose a free port, 0 for any free port, or set"
                    + " data-lane=false");
        }
    }

    /** See {@link PartialClusterWatch}; none while not running. */
    @Override
    public List<String> partialClusterSigns() {
        PartialClusterWatch watch = partialWatch;
        return running && watch != null ? watch.signs() : List.of();
    }

    @Override
    public void broadcast(byte[] message) {
        Objects.requireNonNull(message, "message");
        if (!running) {
            counters.sendDropped();
            return;
        }
        counters.broadcastSent();
        Membership view = membership;
        Address self = channel.getAddress();
        for (Member member : view.members()) {
            Address address = view.addressOf(member);
            if (!address.equals(self)) {
                enqueue(member, WireFormat.message(address, Kind.ONE_WAY, 0, message));
            }
        }
    }

    @Override
    public void close() {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            if (started) {
                if (outbound != null) {
                    outbound.drain(CLOSE_DRAIN_MILLIS); // what the core handed over before leaving still goes out
                }
                awaitDelivered(CLOSE_DRAIN_MILLIS);
                shutDown("the transport was closed");
                LOG.log(System.Logger.Level.INFO, "{0} left cluster-name ''{1}''; {2}", local, config.clusterName(), counters);
            }
        }
    }

    /**
     * Waits, at most {@code millis}, until every other member has handled what this node sent it: a barrier
     * to each, which its transport answers once it has delivered everything sent before it (one sender's
     * messages are delivered in order). Leaving before that, a member can install the view without this node
     * first and then refuse the messages it still had to handle, as coming from a non-member: the sessions an
     * orderly stop hands over, or the last async updates, would be lost (seen in {@code JettyTriggerTest}).
     * A member of an older release counts a barrier as malformed and does not answer: the wait then ends at
     * {@code millis}.
     */
    private void awaitDelivered(long millis) {
        if (!running) {
            return;
        }
        Duration timeout = Duration.ofMillis(millis);
        List<CompletableFuture<byte[]>> barriers = new ArrayList<>();
        for (Member member : membership.members()) {
            if (!member.equals(local)) {
                barriers.add(request(member, Kind.BARRIER, new byte[0], timeout));
            }
        }
        try {
            CompletableFuture.allOf(barriers.toArray(CompletableFuture[]::new)).get(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.log(System.Logger.Level.DEBUG, "{0}: not every member confirmed what it was sent before this node left: {1}",
                    local, e);
        }
    }

    /** Live counters of messages, bytes and failures. */
    /** What operators see of {@link #counters()}: what was refused, given up or lost here (docs/operations.md). */
    @Override
    public List<io.sessionrep.core.transport.TransportCount> counts() {
        TransportCounters c = counters;
        return List.of(
                count("sessionrep.transport.refused", "malformed-frame",
                        "channel frames dropped: truncated, or of an unknown version or kind", c::malformedFrames),
                count("sessionrep.transport.refused", "lane-connection", "data lane connections closed as hostile or"
                        + " broken (frame too long, not authentic, malformed, too many, hello from no member)", c::laneRefused),
                count("sessionrep.transport.refused", ChannelPortRefusals.SILENT, "channel port connections closed"
                        + " before JGroups saw them: no complete handshake in time, or pushed out by newer ones while"
                        + " the port held as many waiting as it holds", c::silentConnections),
                count("sessionrep.transport.refused", ChannelPortRefusals.BAD_HANDSHAKE, "channel port connections"
                        + " closed before JGroups saw them: not a JGroups handshake of a compatible version, or a"
                        + " failed TLS handshake", c::badHandshakes),
                count("sessionrep.transport.requests.unanswered", "timed-out",
                        "requests to other members with no reply within their time-out", c::requestsTimedOut),
                count("sessionrep.transport.requests.unanswered", "failed",
                        "requests to other members that failed otherwise (member left, no reply, transport closed)",
                        c::requestsFailed),
                count("sessionrep.transport.sends.dropped", null,
                        "one-way messages not sent (target not a member, outbound queue full, transport stopped)",
                        c::sendsDropped),
                count("sessionrep.transport.held.dropped", null, "messages of a member that had just joined, dropped"
                        + " because those held until the view included it reached their bound", c::heldDropped),
                count("sessionrep.transport.receiver.failures", null,
                        "messages whose handling here failed (logged; the transport kept running)", c::receiverFailures),
                count("sessionrep.transport.lane.not.handled", null, "data lane requests answered 'not handled'"
                        + " (the sender's earlier channel messages were not handled here in time)", c::laneNotHandled),
                count("sessionrep.transport.lane.pauses", null,
                        "times this node left a member's data lane for the channel a while", c::lanePauses),
                count("sessionrep.transport.lane.given.up", null, "sync exchanges given up "
                        + DataLane.NO_LONGER_NEEDED_GRACE_MILLIS + " ms after another backup stored the update", c::laneExchangesGivenUp));
    }

    private static io.sessionrep.core.transport.TransportCount count(String name, String reason, String description,
                                                                     java.util.function.LongSupplier value) {
        return new io.sessionrep.core.transport.TransportCount(name, reason, description, value);
    }

    public TransportCounters counters() {
        return counters;
    }

    /** The channel, for tests in this package (e.g. to cut links with JGroups' DISCARD); null before start. */
    JChannel channel() {
        return channel;
    }

    /** This node's data lane, for the lane's tests; null without one. */
    DataLane lane() {
        return lane;
    }

    /** Closes this node's data lane as if it had failed (tests): its connections drop, new ones are refused. */
    void breakLane() {
        DataLane l = lane;
        if (l != null) {
            l.stopServing();
        }
    }

    /** The largest payload this node's lane client writes at once; 0 without a lane. */
    int laneRoom() {
        DataLane l = lane;
        return l == null ? 0 : l.room();
    }

    /** The port of this node's data lane; 0 when it has none (data-lane=false, jgroups-config). */
    public int dataLanePort() {
        DataLane l = lane;
        return l == null ? 0 : l.port();
    }

    /** Connections this node's lane accepted since it started; 0 without a lane (tests). */
    int laneConnectionsAccepted() {
        DataLane l = lane;
        return l == null ? 0 : l.accepted();
    }

    /** The address and port the transport listens on, or null when not running. */
    public InetSocketAddress boundAddress() {
        JChannel ch = channel;
        if (!running || ch == null) {
            return null;
        }
        Object physical = ch.down(new Event(Event.GET_PHYSICAL_ADDRESS, ch.getAddress()));
        return physical instanceof IpAddress ip ? new InetSocketAddress(ip.getIpAddress(), ip.getPort()) : null;
    }

    private void enqueue(Member target, Message message) {
        String refused = outbound.offer(new Outgoing(message, message.getLength(),
                reason -> counters.sendDropped()));
        if (refused != null) {
            counters.sendDropped();
            warnRefused(target, refused);
        }
    }

    private void viewChanged(View view) {
        Membership next = Membership.of(view);
        Set<Address> departed = new HashSet<>(membership.addresses());
        departed.removeAll(next.addresses());
        membership = next;
        PartialClusterWatch watch = partialWatch;
        if (watch != null) {
            watch.viewChanged(departed);
        }
        if (lane != null) {
            lane.retainOnly(next.addresses());
        }
        if (!next.shadowed().isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "view {0} holds two incarnations of {1}; the newer one is used "
                    + "until the older one is detected as gone", view.getViewId(), next.shadowed());
        }
        outbound.retainOnly(next.addresses());
        pending.failTargetsNotIn(next);
        LOG.log(System.Logger.Level.INFO, "{0}: view {1} of cluster-name ''{2}'': {3}", local, view.getViewId().getId(),
                config.clusterName(), next.members());
        try {
            receiver.onMembershipChange(next.members());
        } catch (RuntimeException e) {
            counters.receiverFailed();
            LOG.log(System.Logger.Level.WARNING, "the receiver failed on a membership change; the transport keeps running", e);
        } finally {
            newcomers.viewInstalled(next); // after the core: it accepts the newcomers' messages from now on
        }
    }

    /**
     * Every step runs whatever the ones before did (each failure is logged), and none waits without bound: the
     * channel's close (leaving the view, JGroups' threads stopped) is given {@link #CHANNEL_CLOSE_MILLIS}.
     */
    private void shutDown(String reason) {
        running = false;
        step("stopping the partial-cluster watch", partialWatch == null ? null : partialWatch::close);
        step("closing the data lane", lane == null ? null : lane::close);
        step("releasing held newcomer messages", newcomers == null ? null : newcomers::close);
        step("closing the channel", channel == null ? null : () -> BoundedClose.close(channel, local.name(),
                CHANNEL_CLOSE_MILLIS)); // disconnects first: the others install a view without us at once
        membership = Membership.EMPTY;
        step("failing pending requests", pending == null ? null : () -> pending.failAll(reason));
        step("closing the outbound queues", outbound == null ? null : () -> outbound.closeAll(reason));
        step("stopping the send threads", senderThreads::shutdown);
        step("stopping the time-out thread", timeoutThread::shutdownNow);
    }

    private void step(String what, Runnable action) {
        if (action == null) {
            return;
        }
        try {
            action.run();
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.WARNING, local + ": " + what + " failed; the transport closes all the same", e);
        }
    }

    /**
     * The start-up failure for the caller: its message names the option to fix; its cause is a
     * {@link io.sessionrep.core.config.ConfigException} when an option is to blame (so launchers report a
     * configuration error), else the original failure.
     */
    private TransportException startFailure(Exception e) {
        String message = StartFailures.describe(config, e);
        LOG.log(System.Logger.Level.ERROR, local + " could not start: " + message);
        Throwable problem = StartFailures.configProblem(config, e);
        return new TransportException(message, problem != null ? problem : e);
    }

    private void warnRefused(Member target, String reason) {
        if (refusalWarning.due()) {
            LOG.log(System.Logger.Level.WARNING, "not sending to {0}: {1} (counted in sendsDropped/requestsFailed; "
                    + "further refusals are not logged for 10 s)", target, reason);
        }
    }

    private static String requireText(String value, String option) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(option + ": must not be empty");
        }
        return value;
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
