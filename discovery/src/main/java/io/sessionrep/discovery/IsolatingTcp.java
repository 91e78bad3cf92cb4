package io.sessionrep.discovery;

import org.jgroups.Address;
import org.jgroups.blocks.cs.Connection;
import org.jgroups.protocols.BaseBundler;
import org.jgroups.protocols.TCP;
import org.jgroups.util.SocketFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * JGroups' TCP transport, changed so that a peer that cannot be reached (a network partition: the link is
 * down, or its packets are dropped) holds up only the traffic to that peer, never the node's membership or
 * its traffic to the others. Two changes, both measured by {@code PartitionHealIT} (node JVMs in two network
 * namespaces, the link between them cut):
 * <ol>
 *   <li><b>One sender thread per destination</b> ({@code use_single_sender_thread=false} of JGroups'
 *       per-destination bundler, which is otherwise one thread for all destinations). With one thread, a
 *       send to an unreachable peer blocks every other send: discovery and MERGE3 keep contacting the
 *       peers listed in {@code peers} during the split, and each connection attempt to a peer on the other
 *       side took the thread for {@code sock_conn_timeout} (1 s); the side without the coordinator then
 *       promoted its orphaned sessions at about one per second (11 sessions in 7 to 14 s, instead of
 *       40 to 120 ms), and its requests waited behind the same thread.</li>
 *   <li><b>Connections to members that left the view are closed abruptly</b> (the socket first) instead
 *       of gracefully. A send to an unreachable peer blocks in the socket write once the kernel's send
 *       buffer is full, holding the connection's output stream. Installing the view that removes the
 *       peer closes its connection ({@code retainAll}), and JGroups 5.5.7's graceful close first writes a
 *       close marker to that same stream: it waited for the stuck writer, so the view was never installed.
 *       node-a, alone on its side, still listed the other side 60 s after the cut, while the other side had
 *       its own view after 12 s. Closing the socket first makes the stuck write fail at once; the graceful
 *       close is then skipped (the socket is closed) and the view change completes. A member that left in
 *       order loses nothing by it: the data already written is still delivered before the FIN (no
 *       SO_LINGER 0 here), only JGroups' close marker is not sent.</li>
 * </ol>
 * Its bundler starts no sender thread after it stopped ({@link StopAwareBundler}).
 * Its server socket is behind a {@link HandshakeGate}: JGroups' server reads each new connection's handshake itself,
 * one connection after the other, so that a connection which said nothing held every accept behind it for a second;
 * the gate hands it only connections whose handshake has arrived, and refuses the others (counted in
 * {@link #refusedConnections()}). It applies to every socket factory this transport is given, TLS's included.
 * JGroups' own warning on a failed accept ({@code log_accept_error}) stays on: past the gate it reads a handshake
 * already checked, so it warns only about a connection that broke in between, or a failure of its own.
 * Its server logs the failed goodbye to a peer that was killed at DEBUG, not ERROR ({@link CrashedPeerCloseLog}).
 * It also lets the bundler send frames of up to {@value #MAX_BUNDLE_SIZE} bytes instead of 64,000, so that
 * FRAG4 may cut messages into fragments of {@value UpperProtocols#TCP_FRAG_SIZE} bytes (JGroups requires fragments
 * below the bundle size). Over TCP nothing needs small fragments, and each one costs the receiver a copy.
 * <p>Nothing changes on the wire: in a channel every transport takes TP's protocol id, so nodes with this
 * transport and nodes with plain TCP (an older release, or a {@code jgroups-config} stack) talk to each
 * other.
 */
public class IsolatingTcp extends TCP {

    /** The longest frame of bundled messages, and the bound above a fragment (JGroups' default is 64,000). */
    static final int MAX_BUNDLE_SIZE = 1_000_000;

    private final ChannelPortRefusals refusedConnections = new ChannelPortRefusals(log);

    @Override
    public void init() throws Exception {
        if (getBundler() == null) {
            setBundler(new StopAwareBundler()); // JGroups' per-destination bundler, without its senders left after a close
        }
        super.init(); // initializes the bundler; it reads use_single_sender_thread when it starts
        if (getBundler() instanceof BaseBundler bundler) {
            bundler.useSingleSenderThread(false);
            // before FRAG4's init, which checks its fragments against it. The connections' 64 KiB output buffers
            // stay: a longer frame is written past the buffer, and a 1 MB buffer per connection would cost memory
            bundler.setMaxSize(MAX_BUNDLE_SIZE);
        }
    }

    @Override
    public void setSocketFactory(SocketFactory factory) {
        super.setSocketFactory(factory == null || factory instanceof GatedSocketFactory ? factory
                : new GatedSocketFactory(factory, refusedConnections, log));
    }

    /** Connections to this node's channel port refused before JGroups saw them (silent ones, bad handshakes). */
    public ChannelPortRefusals refusedConnections() {
        return refusedConnections;
    }

    @Override
    public void start() throws Exception {
        setSocketFactory(getSocketFactory()); // the default factory behind the gate; TLS's is set (so gated) in start
        super.start(); // creates the server, which logs through this protocol's log
        if (srv != null) {
            srv.log(new CrashedPeerCloseLog(log)); // a killed peer is not an ERROR on every other member
        }
    }

    /** The log the TCP server writes to (tests); null before start. */
    org.jgroups.logging.Log serverLog() {
        return srv == null ? null : srv.log();
    }

    @Override
    public void retainAll(Collection<Address> members) {
        if (srv != null) {
            List<Connection> departed = new ArrayList<>();
            srv.forAllConnections((address, connection) -> {
                if (!members.contains(address)) {
                    departed.add(connection);
                }
            });
            for (Connection connection : departed) {
                try {
                    connection.close(false); // the socket first: a write stuck on it fails now
                } catch (IOException | RuntimeException e) {
                    log.debug("%s: closing the connection to departed member %s: %s", local_addr,
                            connection.peerAddress(), e);
                }
            }
        }
        super.retainAll(members);
    }
}
