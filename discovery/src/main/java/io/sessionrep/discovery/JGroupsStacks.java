package io.sessionrep.discovery;

import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.ReplicationConfig;
import org.jgroups.protocols.MPING;
import org.jgroups.protocols.PING;
import org.jgroups.protocols.TCP;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.UDP;
import org.jgroups.stack.Protocol;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the JGroups protocol stack for a {@link ReplicationConfig}, programmatically (no XML), one
 * stack per {@code discovery} mode (SPEC section 4). The result is ordered bottom (transport) to top, as
 * {@code new JChannel(List<Protocol>)} expects; every call returns new protocol instances.
 *
 * <ul>
 *   <li>{@code static}: TCP bound to {@code bind-address}:{@code bind-port} + TCPPING with {@code peers}
 *       as initial hosts and {@code return_entire_cache=true}, so a ring (each node knows only its
 *       predecessor) forms one cluster: a joiner learns every member its peer knows.</li>
 *   <li>{@code multicast}: UDP (IP multicast to {@code multicast-address}:{@code multicast-port},
 *       unicasts bound to {@code bind-address}) + PING.</li>
 *   <li>{@code dynamic}: TCP as for static + MPING, multicast discovery on
 *       {@code multicast-address}:{@code multicast-port}; replication traffic stays on TCP.</li>
 * </ul>
 * Above discovery all modes share {@link UpperProtocols} (failure detection, reliability, membership,
 * flow control, fragmentation); its javadoc lists the values chosen.
 *
 * <p>{@code bind-port} 0 means auto: the TCP transport takes the first free port from
 * {@value #AUTO_PORT_START} to {@value #AUTO_PORT_START} + {@value #AUTO_PORT_COUNT} - 1. An explicit
 * port is used as given or start-up fails (never silently another port); {@link StartFailures} turns
 * that failure into a message naming {@code bind-port}. For UDP, 0 lets the system pick the unicast port.
 *
 * <p>Bad host names fail here, before any socket is opened, with a
 * {@link io.sessionrep.core.config.ConfigException} naming the option ({@code bind-address},
 * {@code peers}, {@code multicast-address}) and the host.
 */
public final class JGroupsStacks {

    /** First port tried when {@code bind-port} is 0 (auto). */
    public static final int AUTO_PORT_START = 7800;
    /** How many ports auto binding tries, from {@link #AUTO_PORT_START}. */
    public static final int AUTO_PORT_COUNT = 50;
    /** TCP connect timeout: how long discovery waits on a peer host that does not answer. */
    static final int SOCKET_CONNECT_TIMEOUT_MS = 1_000;

    private JGroupsStacks() {
    }

    /** The protocol list for {@code config.discovery()}, transport first. */
    public static List<Protocol> build(ReplicationConfig config) {
        DiscoveryMode mode = config.discovery();
        if (mode == null) {
            throw new ConfigException("discovery", "no mode given; expected multicast, static or dynamic");
        }
        return switch (mode) {
            case STATIC -> staticStack(config);
            case MULTICAST -> multicastStack(config);
            case DYNAMIC -> dynamicStack(config);
        };
    }

    private static List<Protocol> staticStack(ReplicationConfig config) {
        InetAddress bindAddress = NetworkOptions.bindAddress(config);
        TCPPING discovery = new TCPPING()
                .setInitialHosts(NetworkOptions.peers(config))
                .setPortRange(0)
                .returnEntireCache(true);
        return assemble(tcp(bindAddress, NetworkOptions.bindPort(config)), discovery, bindAddress, false);
    }

    private static List<Protocol> multicastStack(ReplicationConfig config) {
        InetAddress bindAddress = NetworkOptions.bindAddress(config);
        UDP udp = new UDP()
                .setMulticastAddress(NetworkOptions.multicastAddress(config))
                .setMulticastPort(NetworkOptions.multicastPort(config));
        udp.setBindAddress(bindAddress);
        udp.setBindPort(NetworkOptions.bindPort(config));
        udp.setPortRange(0);
        return assemble(udp, new PING(), bindAddress, true);
    }

    private static List<Protocol> dynamicStack(ReplicationConfig config) {
        InetAddress bindAddress = NetworkOptions.bindAddress(config);
        MPING discovery = new MPING()
                .setBindAddr(bindAddress)
                .setMcastAddr(NetworkOptions.multicastAddress(config))
                .setMcastPort(NetworkOptions.multicastPort(config));
        return assemble(tcp(bindAddress, NetworkOptions.bindPort(config)), discovery, bindAddress, false);
    }

    private static TCP tcp(InetAddress bindAddress, int bindPort) {
        TCP tcp = new TCP();
        tcp.setBindAddress(bindAddress);
        if (bindPort == 0) {
            tcp.setBindPort(AUTO_PORT_START);
            tcp.setPortRange(AUTO_PORT_COUNT - 1);
        } else {
            tcp.setBindPort(bindPort);
            tcp.setPortRange(0);
        }
        tcp.setSockConnTimeout(SOCKET_CONNECT_TIMEOUT_MS);
        tcp.tcpNodelay(true); // sync replication waits for small acknowledgements: no Nagle delay
        return tcp;
    }

    private static List<Protocol> assemble(Protocol transport, Protocol discovery, InetAddress bindAddress,
                                           boolean multicasting) {
        List<Protocol> stack = new ArrayList<>();
        stack.add(transport);
        stack.add(discovery);
        stack.addAll(UpperProtocols.create(bindAddress, multicasting));
        return stack;
    }
}
