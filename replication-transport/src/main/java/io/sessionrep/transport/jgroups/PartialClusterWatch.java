package io.sessionrep.transport.jgroups;

import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.PhysicalAddress;
import org.jgroups.protocols.Discovery;
import org.jgroups.protocols.MERGE3;
import org.jgroups.protocols.PingData;
import org.jgroups.protocols.PingHeader;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.TP;
import org.jgroups.stack.IpAddress;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.MessageBatch;
import org.jgroups.util.NameCache;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.net.ssl.SSLSocket;

/**
 * What the JGroups transport sees of its cluster outside its view, for the node's readiness
 * ({@link io.sessionrep.core.transport.ReplicationTransport#partialClusterSigns()}). Two kinds of sign, both
 * bounded in time so that a peer that is down never keeps a node unready:
 * <ol>
 *   <li><b>Nodes of the cluster answering from another view.</b> A protocol inserted just below the discovery
 *       protocol sees, from senders outside the view: discovery answers of members of another view (JGroups'
 *       {@code PingData} of a server), discovery requests that are not a joiner's first (another view's MERGE3
 *       looking for other subgroups) and MERGE3's messages (its {@code INFO} every few seconds). Each such node
 *       counts for {@link Timing#evidenceMillis} after it was last heard of, and no longer once it is in the
 *       view. A node that has just left the view is not counted for {@link Timing#departedGraceMillis} (its last
 *       messages can arrive after the view that removed it). This works in every discovery mode, but only once
 *       the other view has sent something: MERGE3 does so every 1 to 3 s.</li>
 *   <li><b>Configured peers that are up but not in the view</b> (TCPPING's initial hosts: {@code peers} with
 *       {@code discovery=static}). Checked every {@link Timing#checkMillis}; a peer whose physical address is not
 *       among the view members' is probed (at most every {@link Timing#probeMillis}) with a TCP connection to its
 *       transport port, made with the transport's socket factory (with TLS a handshake, as
 *       {@code CrashAwareVerifySuspect} does; the peer logs the early close at DEBUG). Refused or unanswered: the
 *       peer is down, no sign. Accepted: it is up and not here (starting, or in another view that MERGE3 has not
 *       reported yet), a sign, until it is in the view, or the first kind takes over, or
 *       {@link Timing#peerGiveUpMillis} pass without either: then it is taken as not part of this cluster (a hung
 *       process, a node with other credentials or another cluster name on that port), logged once, and no longer
 *       probed. This covers the seconds after a cluster started all at once, before MERGE3's first round. A peer of
 *       another cluster (another {@code cluster-name} on that port) looks the same from here: it delays this
 *       node's readiness by the give-up time, with the warning.</li>
 * </ol>
 * Nothing here sends discovery or MERGE3 traffic of its own or changes those protocols' settings.
 */
final class PartialClusterWatch implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(PartialClusterWatch.class.getName());
    static final int PROBE_TIMEOUT_MILLIS = 500;
    /** Past this many nodes heard of from other views, those heard of too long ago are forgotten at once. */
    static final int MAX_OUTSIDERS = 256;

    /** The time bounds of the watch. */
    record Timing(long evidenceMillis, long departedGraceMillis, long checkMillis, long probeMillis,
                  long peerGiveUpMillis) {
        /**
         * Evidence lasts 20 s: MERGE3 sends its INFO every 1 to 3 s (min 1 s, max 2 s: {@code UpperProtocols}),
         * so a split still in place is heard of again before it expires. A configured peer that accepts
         * connections but neither joins nor answers from another view is given up after 20 s: this node's MERGE3
         * asks it every 1 to 3 s, and a member of another view of this cluster answers (evidence then takes
         * over), so one that has not after 20 s is of another cluster, hung, or not JGroups at all.
         */
        static final Timing DEFAULT = new Timing(20_000, 5_000, 1_000, 2_000, 20_000);
    }

    private final String localName;
    private final JChannel channel;
    private final Supplier<Membership> membership;
    private final Timing timing;
    private final LongSupplier clock;
    private final short discoveryId;
    private final short mergeId;
    /** Configured peers (TCPPING's initial hosts), this node's own address left out at start. */
    private final List<Peer> peers = new ArrayList<>();
    /** Nodes of this cluster heard of from outside the view: address, last heard (clock millis). */
    private final Map<Address, Long> outsiders = new ConcurrentHashMap<>();
    /** Members that left the view: address, when (clock millis). */
    private final Map<Address, Long> departed = new ConcurrentHashMap<>();
    private volatile List<String> peerSigns = List.of();
    private ScheduledExecutorService checker;

    /** One configured peer and what the checks learnt about it; touched by the checker thread only. */
    private static final class Peer {
        final IpAddress address;
        /** When it was last probed (clock millis); never yet: {@code probed} false. */
        long lastProbe;
        boolean probed;
        boolean accepts;
        /** Since when it accepts connections without being in the view or heard of from another view; -1: not. */
        long upOutsideSince = -1;
        boolean givenUp;

        Peer(IpAddress address) {
            this.address = address;
        }
    }

    private PartialClusterWatch(String localName, JChannel channel, Supplier<Membership> membership, Timing timing,
                                LongSupplier clock, short discoveryId) {
        this.localName = localName;
        this.channel = channel;
        this.membership = membership;
        this.timing = timing;
        this.clock = clock;
        this.discoveryId = discoveryId;
        this.mergeId = org.jgroups.conf.ClassConfigurator.getProtocolId(MERGE3.class);
    }

    /**
     * Puts the watch into {@code channel}'s stack (not connected yet): below its top-most discovery protocol, so
     * above the protocols that decrypt (cluster-key) and below the one that consumes discovery messages. A stack
     * without a discovery protocol (a hand-written {@code jgroups-config}) gets the peer checks only.
     */
    static PartialClusterWatch install(String localName, JChannel channel, Supplier<Membership> membership,
                                       Timing timing) throws Exception {
        ProtocolStack stack = channel.getProtocolStack();
        Discovery discovery = null;
        for (Protocol p = stack.getTopProtocol(); p != null; p = p.getDownProtocol()) {
            if (p instanceof Discovery d) {
                discovery = d;
                break;
            }
        }
        PartialClusterWatch watch = new PartialClusterWatch(localName, channel, membership, timing,
                () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime()), discovery == null ? -1 : discovery.getId());
        if (discovery != null) {
            stack.insertProtocolInStack(watch.new PartialClusterListener(), discovery, ProtocolStack.Position.BELOW);
        }
        TCPPING tcpping = stack.findProtocol(TCPPING.class);
        if (tcpping != null && tcpping.getInitialHosts() != null) {
            for (PhysicalAddress host : tcpping.getInitialHosts()) {
                if (host instanceof IpAddress ip) {
                    watch.peers.add(new Peer(ip));
                }
            }
        }
        return watch;
    }

    /** Starts the periodic peer checks (after the channel connected). */
    synchronized void start() {
        Object self = channel.down(new Event(Event.GET_PHYSICAL_ADDRESS, channel.getAddress()));
        peers.removeIf(p -> p.address.equals(self)); // a node may list itself
        if (peers.isEmpty() || checker != null) {
            return;
        }
        checker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sessionrep-partial-watch-" + localName);
            t.setDaemon(true);
            return t;
        });
        checker.scheduleWithFixedDelay(this::checkPeersSafely, 0, timing.checkMillis(), TimeUnit.MILLISECONDS);
    }

    /** A view was installed; {@code left} are the addresses it no longer holds. */
    void viewChanged(Collection<Address> left) {
        long now = clock.getAsLong();
        for (Address address : left) {
            departed.put(address, now);
        }
        departed.values().removeIf(at -> now - at > timing.departedGraceMillis());
    }

    /** The signs of a partial cluster now, in words; empty when there are none. Never waits. */
    List<String> signs() {
        List<String> signs = new ArrayList<>(peerSigns);
        Map<String, String> others = new TreeMap<>();
        for (Address outsider : outsiders(clock.getAsLong())) {
            others.put(name(outsider), String.valueOf(physical(outsider)));
        }
        if (!others.isEmpty()) {
            StringBuilder sign = new StringBuilder();
            others.forEach((name, at) -> sign.append(sign.length() == 0 ? "" : ", ").append(name)
                    .append(" (").append(at).append(')'));
            signs.add((others.size() == 1 ? "1 node of this cluster answers" : others.size()
                    + " nodes of this cluster answer") + " from another view: " + sign
                    + " (a partial cluster: the views merge within seconds unless the network is split)");
        }
        return signs;
    }

    /**
     * The nodes heard of from another view that count now: heard within the evidence time, not in the view, not
     * just departed. Forgets those heard of too long ago or now in the view.
     */
    private List<Address> outsiders(long now) {
        Membership view = membership.get();
        List<Address> counted = new ArrayList<>();
        for (Map.Entry<Address, Long> outsider : outsiders.entrySet()) {
            Address address = outsider.getKey();
            if (now - outsider.getValue() > timing.evidenceMillis() || view.contains(address)) {
                outsiders.remove(address, outsider.getValue());
            } else if (!recentlyDeparted(address, now)) {
                counted.add(address);
            }
        }
        return counted;
    }

    private boolean recentlyDeparted(Address address, long now) {
        Long left = departed.get(address);
        return left != null && now - left <= timing.departedGraceMillis();
    }

    private void heardOf(Address address) {
        if (address == null || address.equals(channel.getAddress()) || membership.get().contains(address)) {
            return;
        }
        long now = clock.getAsLong();
        if (outsiders.put(address, now) == null && outsiders.size() > MAX_OUTSIDERS) {
            outsiders.values().removeIf(heard -> now - heard > timing.evidenceMillis()); // nobody read them lately
        }
    }

    private static String name(Address address) {
        String name = NameCache.get(address);
        return name != null ? name : address.toString();
    }

    private Object physical(Address address) {
        Object physical = channel.down(new Event(Event.GET_PHYSICAL_ADDRESS, address));
        return physical != null ? physical : "address unknown";
    }

    // ------------------------------------------------------------------ configured peers

    private void checkPeersSafely() {
        try {
            checkPeers();
        } catch (RuntimeException e) { // the thread must survive; the next check tries again
            LOG.log(System.Logger.Level.DEBUG, "{0}: checking configured peers failed: {1}", localName, e);
        }
    }

    private void checkPeers() {
        long now = clock.getAsLong();
        Membership view = membership.get();
        Set<Object> inView = new HashSet<>();
        for (Address member : view.addresses()) {
            Object physical = channel.down(new Event(Event.GET_PHYSICAL_ADDRESS, member));
            if (physical != null) {
                inView.add(physical);
            }
        }
        Set<Object> heardOf = new HashSet<>();
        for (Address outsider : outsiders(now)) {
            Object physical = channel.down(new Event(Event.GET_PHYSICAL_ADDRESS, outsider));
            if (physical != null) {
                heardOf.add(physical);
            }
        }
        Map<String, String> signs = new LinkedHashMap<>();
        for (Peer peer : peers) {
            if (inView.contains(peer.address) || heardOf.contains(peer.address)) {
                // here, or reported by the outsiders' sign: start over if it leaves again
                peer.upOutsideSince = -1;
                peer.givenUp = false;
                peer.accepts = false;
                continue;
            }
            if (peer.givenUp) {
                continue;
            }
            if (!peer.probed || now - peer.lastProbe >= timing.probeMillis()) {
                peer.probed = true;
                peer.lastProbe = now;
                peer.accepts = accepts(peer.address);
            }
            if (!peer.accepts) {
                peer.upOutsideSince = -1;
                continue;
            }
            if (peer.upOutsideSince < 0) {
                peer.upOutsideSince = now;
            }
            if (now - peer.upOutsideSince > timing.peerGiveUpMillis()) {
                peer.givenUp = true;
                LOG.log(System.Logger.Level.WARNING, "{0}: configured peer {1} has accepted connections for {2} s"
                        + " without joining this node''s view or answering from another one; it no longer counts"
                        + " against readiness (a hung process, or a node of another cluster or with other credentials"
                        + " on that port)", localName, peer.address, timing.peerGiveUpMillis() / 1000);
                continue;
            }
            signs.put(peer.address.toString(), "configured peer " + peer.address + " is up (accepts connections) but"
                    + " not in this node's view");
        }
        peerSigns = List.copyOf(signs.values());
    }

    /** Whether {@code peer}'s transport port accepts a connection within {@link #PROBE_TIMEOUT_MILLIS}. */
    private boolean accepts(IpAddress peer) {
        TP transport = channel.getProtocolStack().getTransport();
        try (Socket socket = transport.getSocketFactory().createSocket("sessionrep.readiness-probe")) {
            socket.connect(new InetSocketAddress(peer.getIpAddress(), peer.getPort()), PROBE_TIMEOUT_MILLIS);
            if (socket instanceof SSLSocket tls) {
                tls.setSoTimeout(PROBE_TIMEOUT_MILLIS);
                tls.startHandshake();
            }
            return true;
        } catch (ConnectException e) {
            String message = e.getMessage();
            if (message == null || !message.toLowerCase(Locale.ROOT).contains("refused")) {
                LOG.log(System.Logger.Level.DEBUG, "{0}: configured peer {1} could not be probed: {2}", localName, peer, e);
            }
            return false;
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "{0}: configured peer {1} could not be probed: {2}", localName, peer, e);
            return false;
        }
    }

    @Override
    public synchronized void close() {
        if (checker != null) {
            checker.shutdownNow();
        }
        peerSigns = List.of();
        outsiders.clear();
    }

    // ------------------------------------------------------------------ the protocol in the stack

    /**
     * Sees the messages going up to the discovery protocol, and MERGE3's above it; passes everything on
     * unchanged. Looks only at senders outside the view (a map look-up per message otherwise).
     */
    private final class PartialClusterListener extends Protocol {
        @Override
        public Object up(Message msg) {
            look(msg, msg.getSrc());
            return up_prot.up(msg);
        }

        @Override
        public void up(MessageBatch batch) {
            Address sender = batch.sender();
            if (sender != null && membership.get().contains(sender)) {
                up_prot.up(batch); // a member's batch (the replication traffic): one look-up for all of it
                return;
            }
            for (Message msg : batch) {
                look(msg, msg.getSrc() != null ? msg.getSrc() : batch.sender());
            }
            up_prot.up(batch);
        }

        private void look(Message msg, Address sender) {
            if (sender == null || membership.get().contains(sender)) {
                return; // a member's: its introductions of newcomers are not signs of another view
            }
            PingHeader ping = discoveryId < 0 ? null : msg.getHeader(discoveryId);
            if (ping != null) {
                if (ping.type() == PingHeader.GET_MBRS_REQ && !ping.initialDiscovery()) {
                    heardOf(sender); // another view's MERGE3 looking for subgroups (a joiner's request is initial)
                } else if (ping.type() == PingHeader.GET_MBRS_RSP) {
                    answered(msg);
                }
            } else if (msg.getHeader(mergeId) != null) {
                heardOf(sender); // MERGE3 of another view (INFO, or its view request during a merge)
            }
        }

        /** A discovery answer from outside the view: its servers are members of another view. */
        private void answered(Message msg) {
            try {
                List<PingData> answers = Discovery.deserialize(msg.getArray(), msg.getOffset(), msg.getLength());
                if (answers != null) {
                    for (PingData answer : answers) {
                        if (answer != null && answer.isServer()) {
                            heardOf(answer.getAddress());
                        }
                    }
                }
            } catch (Exception e) { // the discovery protocol above deals with it
                LOG.log(System.Logger.Level.DEBUG, "{0}: unreadable discovery answer: {1}", localName, e);
            }
        }
    }
}
