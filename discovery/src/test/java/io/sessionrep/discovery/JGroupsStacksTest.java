package io.sessionrep.discovery;

import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;
import org.jgroups.protocols.FD_ALL3;
import org.jgroups.protocols.FD_SOCK2;
import org.jgroups.protocols.FRAG4;
import org.jgroups.protocols.MERGE3;
import org.jgroups.protocols.MFC;
import org.jgroups.protocols.MPING;
import org.jgroups.protocols.PING;
import org.jgroups.protocols.TCP;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.TP;
import org.jgroups.protocols.UDP;
import org.jgroups.protocols.UFC;
import org.jgroups.protocols.UNICAST3;
import org.jgroups.protocols.VERIFY_SUSPECT2;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.protocols.pbcast.STABLE;
import org.jgroups.stack.IpAddress;
import org.jgroups.stack.Protocol;
import org.junit.jupiter.api.Test;

import java.net.BindException;
import java.net.InetAddress;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JGroupsStacksTest {

    private static final List<Class<?>> UPPER = List.of(MERGE3.class, BoundedFdSock2.class, FD_ALL3.class,
            VERIFY_SUSPECT2.class, NAKACK2.class, UNICAST3.class, STABLE.class, GMS.class, UFC.class, MFC.class,
            FRAG4.class);

    private static ReplicationConfig.Builder config(DiscoveryMode mode) {
        return ReplicationConfig.builder().nodeName("a").discovery(mode).bindAddress("127.0.0.1");
    }

    @Test
    void staticStackIsTcpWithTcppingListingThePeers() throws Exception {
        List<Protocol> stack = JGroupsStacks.build(config(DiscoveryMode.STATIC)
                .peers(List.of(new HostPort("127.0.0.1", 7900), new HostPort("localhost", 7901))).build());

        assertClasses(stack, TCP.class, IntroducingTcpping.class);
        TCPPING ping = (TCPPING) stack.get(1);
        assertTrue(ping.returnEntireCache(), "a ring needs return_entire_cache");
        assertEquals(0, ping.getPortRange());
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        assertTrue(ping.getInitialHosts().contains(new IpAddress(loopback, 7900)), ping.getInitialHosts().toString());
        assertTrue(ping.getInitialHosts().contains(new IpAddress(InetAddress.getByName("localhost"), 7901)));
        NAKACK2 nakack = find(stack, NAKACK2.class);
        assertFalse(nakack.useMcastXmit(), "no multicast retransmission over TCP");
    }

    @Test
    void tcpTransportIsolatesPeersAndIsWireCompatibleWithTcp() throws Exception {
        // a peer that cannot be reached must hold up neither the view change nor the traffic to the others
        // (IsolatingTcp, PartitionHealIT)
        for (ReplicationConfig config : List.of(config(DiscoveryMode.STATIC).build(),
                config(DiscoveryMode.DYNAMIC).build())) {
            assertInstanceOf(IsolatingTcp.class, JGroupsStacks.build(config).get(0), config.discovery().toString());
        }
        // the protocol id travels in every message: in a channel it is TP's, as for plain TCP
        try (org.jgroups.JChannel channel = new org.jgroups.JChannel(JGroupsStacks.build(config(DiscoveryMode.STATIC).build()))) {
            org.jgroups.protocols.TP transport = channel.getProtocolStack().getTransport();
            assertEquals(org.jgroups.conf.ClassConfigurator.getProtocolId(org.jgroups.protocols.TP.class),
                    transport.getId());
            // a sender thread per destination, set when the stack is initialized (the bundler exists from then)
            assertFalse(((org.jgroups.protocols.BaseBundler) transport.getBundler()).useSingleSenderThread());
            assertEquals(IsolatingTcp.MAX_BUNDLE_SIZE, transport.getBundler().getMaxSize(), "above TCP's fragments");
            // its server, created when the channel connects, logs a failed goodbye to a killed peer at DEBUG
            channel.connect("isolating-tcp-" + System.nanoTime());
            assertInstanceOf(CrashedPeerCloseLog.class, ((IsolatingTcp) transport).serverLog());
        }
    }

    @Test
    void autoPortSearchesFrom7800AndExplicitPortIsExact() {
        TCP auto = (TCP) JGroupsStacks.build(config(DiscoveryMode.STATIC).bindPort(0).build()).get(0);
        assertEquals(JGroupsStacks.AUTO_PORT_START, auto.getBindPort());
        assertEquals(JGroupsStacks.AUTO_PORT_COUNT - 1, auto.getPortRange());

        TCP fixed = (TCP) JGroupsStacks.build(config(DiscoveryMode.STATIC).bindPort(7811).build()).get(0);
        assertEquals(7811, fixed.getBindPort());
        assertEquals(0, fixed.getPortRange(), "an explicit bind-port must never move silently");
    }

    @Test
    void aSenderWithoutCreditsAsksForThemWithinHalfASecond() {
        // JGroups' default of 5 s stalled replication to a node that had just joined (see UpperProtocols)
        List<Protocol> stack = JGroupsStacks.build(config(DiscoveryMode.STATIC).build());
        assertEquals(500, find(stack, UFC.class).getMaxBlockTime());
        assertEquals(500, find(stack, MFC.class).getMaxBlockTime());
    }

    @Test
    void receiversAcknowledgeWithin20msSoSendersDoNotHoldHalfASecondOfUpdates() {
        // JGroups' default acknowledged batches of fewer than 100 messages every 500 ms (see UpperProtocols)
        for (DiscoveryMode mode : DiscoveryMode.values()) {
            List<Protocol> stack = JGroupsStacks.build(config(mode).build());
            assertEquals(20, find(stack, UNICAST3.class).getXmitInterval(), mode.toString());
        }
    }

    @Test
    void failureDetectionIsTunedForSecondsNotMinutes() {
        List<Protocol> stack = JGroupsStacks.build(config(DiscoveryMode.STATIC)
                .peers(List.of(new HostPort("127.0.0.1", 7900))).build());
        FD_ALL3 heartbeats = find(stack, FD_ALL3.class);
        assertEquals(2_000, heartbeats.getInterval());
        assertEquals(8_000, heartbeats.getTimeout());
        assertEquals(1_500, find(stack, GMS.class).getJoinTimeout());
    }

    @Test
    void aStaticNodeThatListsNoPeerFoundsItsClusterWithoutWaitingForAnswers() {
        List<Protocol> stack = JGroupsStacks.build(config(DiscoveryMode.STATIC).build());
        assertEquals(JGroupsStacks.LONE_FOUNDER_JOIN_TIMEOUT_MS, find(stack, GMS.class).getJoinTimeout(),
                "nobody to ask: no 1.5 s wait");
    }

    @Test
    void multicastStackIsUdpWithPing() throws Exception {
        List<Protocol> stack = JGroupsStacks.build(config(DiscoveryMode.MULTICAST)
                .multicastAddress("228.8.8.9").multicastPort(45999).build());

        assertClasses(stack, UDP.class, PING.class);
        UDP udp = (UDP) stack.get(0);
        assertEquals(InetAddress.getByName("228.8.8.9"), udp.getMulticastAddress());
        assertEquals(45999, udp.getMulticastPort());
        assertEquals(InetAddress.getByName("127.0.0.1"), udp.getBindAddress());
        assertTrue(find(stack, NAKACK2.class).useMcastXmit());
    }

    @Test
    void fragmentsFitTheDatagramOverUdpAndTheFrameCapOverTcp() {
        List<Protocol> udp = JGroupsStacks.build(config(DiscoveryMode.MULTICAST).build());
        assertEquals(60_000, find(udp, FRAG4.class).getFragSize(), "below UDP's 64 KiB datagram");
        for (long maxSessionSize : new long[] {1024, 64 * 1024, 1024 * 1024}) {
            List<Protocol> tcp = JGroupsStacks.build(config(DiscoveryMode.STATIC).maxSessionSize(maxSessionSize).build());
            int fragSize = find(tcp, FRAG4.class).getFragSize();
            assertEquals(960_000, fragSize, "a 10 x 50 KiB session travels as one message");
            int maxLength = ((TCP) tcp.get(0)).getMaxLength();
            // a fragment's frame: the fragment, JGroups' headers (well below 64 KiB), the length prefix
            assertTrue(fragSize + 64 * 1024 < maxLength, "max-session-size " + maxSessionSize);
            // a frame of bundled messages: at most the bundle size of them, plus the frame's version and flags
            assertTrue(IsolatingTcp.MAX_BUNDLE_SIZE + TP.MSG_OVERHEAD < maxLength,
                    "max-session-size " + maxSessionSize);
            assertTrue(fragSize < find(tcp, UFC.class).getMaxCredits(), "a fragment never waits for more credits than exist");
        }
    }

    @Test
    void dynamicStackIsTcpWithMping() throws Exception {
        List<Protocol> stack = JGroupsStacks.build(config(DiscoveryMode.DYNAMIC)
                .multicastAddress("228.8.8.10").multicastPort(46000).build());

        assertClasses(stack, TCP.class, MPING.class);
        MPING mping = (MPING) stack.get(1);
        assertEquals(InetAddress.getByName("228.8.8.10"), mping.getMcastAddr());
        assertEquals(46000, mping.getMcastPort());
    }

    @Test
    void everyCallBuildsNewProtocolInstances() {
        ReplicationConfig config = config(DiscoveryMode.STATIC).build();
        assertNotSame(JGroupsStacks.build(config).get(0), JGroupsStacks.build(config).get(0));
    }

    @Test
    void unresolvablePeerNamesPeersAndTheHost() {
        ConfigException e = assertThrows(ConfigException.class, () -> JGroupsStacks.build(config(DiscoveryMode.STATIC)
                .peers(List.of(new HostPort("no-such-host.invalid", 7800))).build()));
        assertEquals("peers", e.option());
        assertTrue(e.getMessage().contains("no-such-host.invalid"), e.getMessage());
    }

    @Test
    void foreignBindAddressIsRefused() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> JGroupsStacks.build(config(DiscoveryMode.STATIC).bindAddress("192.0.2.123").build()));
        assertEquals("bind-address", e.option());
        assertTrue(e.getMessage().contains("192.0.2.123"), e.getMessage());
    }

    @Test
    void nonMulticastGroupIsRefused() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> JGroupsStacks.build(config(DiscoveryMode.MULTICAST).multicastAddress("10.1.2.3").build()));
        assertEquals("multicast-address", e.option());
        assertTrue(e.getMessage().contains("10.1.2.3"), e.getMessage());
    }

    @Test
    void bindFailureIsExplainedWithTheOption() {
        ReplicationConfig fixed = config(DiscoveryMode.STATIC).bindPort(7812).build();
        String message = StartFailures.describe(fixed,
                new Exception("start failed", new BindException("No available port to bind to in range [7812 .. 7812]")));
        assertTrue(message.startsWith("bind-port: 7812"), message);

        String auto = StartFailures.describe(config(DiscoveryMode.STATIC).build(), new BindException("none"));
        assertTrue(auto.startsWith("bind-port: auto"), auto);
        assertTrue(auto.contains("7800") && auto.contains("7849"), auto);
    }

    private static void assertClasses(List<Protocol> stack, Class<?> transport, Class<?> discovery) {
        assertInstanceOf(transport, stack.get(0));
        assertInstanceOf(discovery, stack.get(1));
        // over TCP a suspect whose port refuses a connection is confirmed at once; UDP has no port to ask
        List<Class<?>> upper = transport == UDP.class ? UPPER : UPPER.stream()
                .map(c -> c == VERIFY_SUSPECT2.class ? CrashAwareVerifySuspect.class : c).toList();
        assertEquals(upper, stack.subList(2, stack.size()).stream().map(Object::getClass).toList());
    }

    private static <T extends Protocol> T find(List<Protocol> stack, Class<T> type) {
        return stack.stream().filter(type::isInstance).map(type::cast).findFirst().orElseThrow();
    }
}
