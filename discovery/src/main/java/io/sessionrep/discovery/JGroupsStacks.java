package io.sessionrep.discovery;

import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.ReplicationConfig;
import org.jgroups.JChannel;
import org.jgroups.protocols.Discovery;
import org.jgroups.protocols.FILE_PING;
import org.jgroups.protocols.MPING;
import org.jgroups.protocols.PING;
import org.jgroups.protocols.TCP;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.TP;
import org.jgroups.protocols.UDP;
import org.jgroups.protocols.dns.DNS_PING;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.stack.Protocol;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Builds the JGroups protocol stack for a {@link ReplicationConfig}, programmatically (no XML), one
 * stack per {@code discovery} mode (docs/discovery.md). The result is ordered bottom (transport) to top, as
 * {@code new JChannel(List<Protocol>)} expects; every call returns new protocol instances.
 *
 * <ul>
 *   <li>{@code static}: TCP bound to {@code bind-address}:{@code bind-port} + TCPPING with {@code peers}
 *       as initial hosts and {@code return_entire_cache=true}, so a ring (each node knows only its
 *       predecessor) forms one cluster: a joiner learns every member its peer knows, and the peer tells
 *       every member where the joiner listens ({@link IntroducingTcpping}).</li>
 *   <li>{@code multicast}: UDP (IP multicast to {@code multicast-address}:{@code multicast-port},
 *       unicasts bound to {@code bind-address}) + PING.</li>
 *   <li>{@code dynamic}: TCP as for static + a discovery protocol chosen by {@code dynamic-discovery}:
 *     <ul>
 *       <li>{@code multicast}: MPING, multicast discovery on {@code multicast-address}:{@code multicast-port};</li>
 *       <li>{@code file}: FILE_PING in {@code discovery-directory} (created if missing), with
 *           {@code remove_all_data_on_view_change} (the coordinator rewrites the directory on every view
 *           change, so a member killed without saying goodbye does not stay listed) and
 *           {@code write_data_on_find}; GMS gives up on a listed coordinator that does not answer after
 *           {@value #FILE_MAX_JOIN_ATTEMPTS} JOIN attempts (a whole cluster killed at once leaves its
 *           coordinator listed); after a view change the coordinator writes its file again twice within
 *           {@value #FILE_REWRITE_MS} ms each ({@code info_writer_sleep_time}; JGroups' default: up to 10 s
 *           each). Nodes started together may found two clusters, whose coordinators each delete the other's
 *           file on their view change; until a file names the other cluster, MERGE3 cannot find it. With the
 *           default the two clusters of eight nodes started together stayed apart 9 to 12 s after all were
 *           ready;</li>
 *       <li>{@code dns}: DNS_PING with {@code dns-query} and {@code dns-record-type}; with A records every
 *           address is probed on the transport's port (range), so all nodes use the same {@code bind-port}.</li>
 *     </ul>
 *     Replication traffic stays on TCP in every sub-mode.</li>
 * </ul>
 * In every mode a joining node sends its discovery request {@value #DISCOVERY_RUNS} times within GMS's join
 * timeout (JGroups' {@code num_discovery_runs}; at 0, 0.3, 0.6, 0.9 and 1.2 s of the 1.5 s) instead of once,
 * each time to every node it has heard of by then: nodes of a static ring that start together learn of each
 * other round by round ({@link IntroducingTcpping}) and elect one founder. Discovery
 * messages are not retransmitted: with a single request, one lost request or answer made the node find no
 * member, found a cluster of its own and serve requests alone until MERGE3 joined the two, 7 to 20 s later
 * (seen for nodes restarted after {@code kill -9} in {@code RepeatedKillIT}). One way to lose it, read in
 * JGroups' TCP server: a peer that already holds a connection to the restarted node's address closes the
 * newcomer's own connection, with what it carried, when the peer's address is the larger one.
 * {@code jgroups-config} replaces all of this with an expert's XML stack: see {@link #channel}.
 * Above discovery all modes share {@link UpperProtocols} (failure detection, reliability, membership,
 * flow control, fragmentation); its javadoc lists the values chosen. Every thread the transport creates is a
 * daemon ({@link DaemonThreadFactory}), in every mode and with {@code jgroups-config} too.
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
    /** dynamic-discovery=file: JOIN attempts before a node founds the cluster itself (see dynamicStack). */
    static final int FILE_MAX_JOIN_ATTEMPTS = 3;
    /** dynamic-discovery=file: the coordinator's file is written again at most this long after a view change. */
    static final long FILE_REWRITE_MS = 2_000;
    /** static with no peers: how long the node looks for a coordinator before it founds the cluster. */
    static final long LONE_FOUNDER_JOIN_TIMEOUT_MS = 50;
    /** How many times a joining node sends its discovery request within the join timeout (see the class comment). */
    static final int DISCOVERY_RUNS = 5;
    /** The part of {@code max-session-size} that counts towards the frame-length cap: 8 MiB. */
    static final long FRAME_LIMIT_SESSION_PART = 8L * 1024 * 1024;
    /** Headroom of the frame-length cap above the session part: 1 MiB. */
    static final long FRAME_LIMIT_HEADROOM = 1024L * 1024;

    private JGroupsStacks() {
    }

    /**
     * A new, unconnected channel for {@code config}: the stack of {@code jgroups-config} when it is set
     * (checked: exists, parses, has a transport and GMS), else the generated {@link #build} stack.
     *
     * @throws ConfigException naming the option when the configuration cannot give a channel
     * @throws Exception       when JGroups fails to create the channel for another reason
     */
    public static JChannel channel(ReplicationConfig config) throws Exception {
        if (config.jgroupsConfig() != null) {
            return XmlStack.channel(config.jgroupsConfig());
        }
        return new JChannel(build(config));
    }

    /** One line for the start-up log: which stack and discovery this node uses, and how it is protected. */
    public static String describe(ReplicationConfig config) {
        if (config.jgroupsConfig() != null) {
            return "the JGroups stack of jgroups-config " + config.jgroupsConfig();
        }
        String protection = config.clusterKey() != null && config.tlsEnabled() ? ", sealed by cluster-key, mutual TLS"
                : config.clusterKey() != null ? ", sealed by cluster-key"
                : config.tlsEnabled() ? ", mutual TLS" : "";
        return describeDiscovery(config) + protection;
    }

    private static String describeDiscovery(ReplicationConfig config) {
        String group = config.multicastAddress() + ":" + config.multicastPort();
        return switch (config.discovery()) {
            case STATIC -> "static discovery (TCP, TCPPING peers " + (config.peers().isEmpty() ? "(none)"
                    : config.peers().stream().map(Object::toString).collect(Collectors.joining(","))) + ")";
            case MULTICAST -> "multicast discovery (UDP, group " + group + ")";
            case DYNAMIC -> switch (config.dynamicDiscovery()) {
                case MULTICAST -> "dynamic discovery by multicast (TCP, MPING group " + group + ")";
                case FILE -> "dynamic discovery by file (TCP, FILE_PING in " + config.discoveryDirectory() + ")";
                case DNS -> "dynamic discovery by dns (TCP, DNS_PING " + config.dnsRecordType().optionValue()
                        + " " + String.join(",", config.dnsQuery()) + ")";
            };
        };
    }

    /**
     * The generated protocol list for {@code config.discovery()}, transport first.
     *
     * @throws IllegalArgumentException when {@code jgroups-config} is set: that stack comes from
     *                                  {@link #channel}
     */
    public static List<Protocol> build(ReplicationConfig config) {
        if (config.jgroupsConfig() == null) {
            ClusterSecurity.check(config, NetworkOptions.bindAddress(config));
        }
        List<Protocol> stack = buildPlain(config);
        if (config.clusterKey() != null) {
            // directly above the transport: every message of the stack is sealed, discovery, failure
            // detection and membership included (see ClusterKeyEncryption)
            stack.add(1, ClusterKeyEncryption.protocol(config.clusterKey(), config.clusterName()));
        }
        return stack;
    }

    /**
     * TCP's {@code max_length}: the longest frame a peer may announce; a longer one closes its connection
     * before anything is allocated. FRAG4 cuts messages into fragments of at most
     * {@value UpperProtocols#TCP_FRAG_SIZE} bytes and the bundler puts at most
     * {@value IsolatingTcp#MAX_BUNDLE_SIZE} bytes of messages into one frame, both below the headroom alone, so
     * real frames stay below this; only membership messages (views, digests) are not fragmented, and they grow
     * with the number of members.
     * The bound is {@code max-session-size} (at most {@value #FRAME_LIMIT_SESSION_PART} bytes of it) plus
     * {@value #FRAME_LIMIT_HEADROOM} bytes of headroom: 2 MiB with the default {@code max-session-size}.
     */
    static int maxFrameLength(ReplicationConfig config) {
        return (int) (Math.min(config.maxSessionSize(), FRAME_LIMIT_SESSION_PART) + FRAME_LIMIT_HEADROOM);
    }

    private static List<Protocol> buildPlain(ReplicationConfig config) {
        if (config.jgroupsConfig() != null) {
            throw new IllegalArgumentException("jgroups-config " + config.jgroupsConfig()
                    + " replaces the generated stack; create the channel with JGroupsStacks.channel(config)");
        }
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
        List<InetSocketAddress> peers = NetworkOptions.peers(config);
        TCPPING discovery = new IntroducingTcpping()
                .setInitialHosts(peers)
                .setPortRange(0)
                .returnEntireCache(true);
        List<Protocol> stack = assemble(tcp(config, bindAddress), discovery, bindAddress, false);
        if (peers.isEmpty()) {
            // nobody to ask: the node founds its cluster at once instead of waiting out the join timeout for
            // answers that cannot come (the others list it and find it; MERGE3 merges what formed apart)
            stack.stream().filter(GMS.class::isInstance).map(GMS.class::cast)
                    .forEach(gms -> gms.setJoinTimeout(LONE_FOUNDER_JOIN_TIMEOUT_MS));
        }
        return stack;
    }

    private static List<Protocol> multicastStack(ReplicationConfig config) {
        InetAddress bindAddress = NetworkOptions.bindAddress(config);
        if (config.tlsEnabled()) {
            throw new ConfigException("tls-keystore", "is set, but discovery=multicast sends everything by UDP,"
                    + " which TLS cannot carry; expected discovery=static or dynamic, or cluster-key instead");
        }
        UDP udp = new UDP()
                .setMulticastAddress(NetworkOptions.multicastAddress(config))
                .setMulticastPort(config.multicastPort());
        udp.setBindAddress(bindAddress);
        udp.setBindPort(config.bindPort());
        udp.setPortRange(0);
        return assemble(udp, new PING(), bindAddress, true);
    }

    private static List<Protocol> dynamicStack(ReplicationConfig config) {
        InetAddress bindAddress = NetworkOptions.bindAddress(config);
        Protocol discovery = switch (config.dynamicDiscovery()) {
            case MULTICAST -> new MPING()
                    .setBindAddr(bindAddress)
                    .setMcastAddr(NetworkOptions.multicastAddress(config))
                    .setMcastPort(config.multicastPort());
            case FILE -> new FILE_PING()
                    .setLocation(sharedDirectory(config).toString())
                    .removeAllDataOnViewChange(true)
                    .writeDataOnFind(true)
                    .setInfoWriterSleepTime(FILE_REWRITE_MS);
            case DNS -> new DNS_PING()
                    .dnsQuery(String.join(",", config.dnsQuery()))
                    .dnsRecordType(config.dnsRecordType().optionValue());
        };
        List<Protocol> stack = assemble(tcp(config, bindAddress), discovery, bindAddress, false);
        if (discovery instanceof FILE_PING) {
            // the directory may still list a coordinator that was killed (every node of the cluster killed
            // at once): give up on it after a few JOIN attempts (about 5 s) and found the cluster anew, rather
            // than after JGroups' default 10 (15 s)
            stack.stream().filter(GMS.class::isInstance).map(GMS.class::cast)
                    .forEach(gms -> gms.setMaxJoinAttempts(FILE_MAX_JOIN_ATTEMPTS));
        }
        return stack;
    }

    /** {@code discovery-directory}, created if missing; it must be a directory this process can write. */
    static Path sharedDirectory(ReplicationConfig config) {
        String option = "discovery-directory";
        String expected = "expected a directory that every node of the cluster can read and write";
        Path dir = Path.of(config.discoveryDirectory());
        try {
            Files.createDirectories(dir);
        } catch (FileAlreadyExistsException e) {
            throw new ConfigException(option, "'" + dir + "' exists but is not a directory; " + expected);
        } catch (IOException | SecurityException e) {
            throw new ConfigException(option, "'" + dir + "' cannot be created (" + e + "); " + expected);
        }
        if (!Files.isReadable(dir) || !Files.isWritable(dir) || !Files.isExecutable(dir)) {
            throw new ConfigException(option, "'" + dir + "' is not readable and writable by this process (user "
                    + System.getProperty("user.name") + "); " + expected);
        }
        return dir;
    }

    /**
     * TCP where an unreachable peer holds up only its own connection (see {@link IsolatingTcp}), frames
     * capped at {@link #maxFrameLength}, with TLS when {@code tls-keystore} is set ({@link TlsTransport}).
     */
    private static TCP tcp(ReplicationConfig config, InetAddress bindAddress) {
        int bindPort = config.bindPort();
        TCP tcp = new IsolatingTcp();
        tcp.setMaxLength(maxFrameLength(config));
        if (config.tlsEnabled()) {
            TlsTransport.enable(tcp, config);
        }
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
        if (discovery instanceof Discovery finder) {
            finder.numDiscoveryRuns(DISCOVERY_RUNS);
        }
        if (transport instanceof TP tp) {
            tp.setThreadFactory(new DaemonThreadFactory()); // before the channel initializes it: its timer too
        }
        List<Protocol> stack = new ArrayList<>();
        stack.add(transport);
        stack.add(discovery);
        stack.addAll(UpperProtocols.create(bindAddress, multicasting));
        return stack;
    }
}
