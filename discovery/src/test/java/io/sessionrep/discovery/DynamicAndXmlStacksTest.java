package io.sessionrep.discovery;

import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.DnsRecordType;
import io.sessionrep.core.config.DynamicDiscovery;
import io.sessionrep.core.config.ReplicationConfig;
import org.jgroups.JChannel;
import org.jgroups.protocols.FILE_PING;
import org.jgroups.protocols.TCP;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.dns.DNS_PING;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.stack.Protocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.BindException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** dynamic-discovery=file|dns stacks and the expert's jgroups-config XML. */
class DynamicAndXmlStacksTest {

    @TempDir
    Path tmp;

    private static ReplicationConfig.Builder dynamic(DynamicDiscovery how) {
        return ReplicationConfig.builder().nodeName("a").discovery(DiscoveryMode.DYNAMIC).dynamicDiscovery(how)
                .bindAddress("127.0.0.1");
    }

    @Test
    void fileStackIsTcpWithFilePingInTheDirectoryWhichIsCreated() {
        Path dir = tmp.resolve("shared/sessionrep");
        List<Protocol> stack = JGroupsStacks.build(dynamic(DynamicDiscovery.FILE)
                .discoveryDirectory(dir.toString()).build());

        assertInstanceOf(TCP.class, stack.get(0));
        FILE_PING ping = assertInstanceOf(FILE_PING.class, stack.get(1));
        assertEquals(dir.toString(), ping.getLocation());
        assertTrue(ping.removeAllDataOnViewChange(), "a member killed with -9 must not stay listed");
        assertTrue(ping.writeDataOnFind());
        assertEquals(JGroupsStacks.FILE_REWRITE_MS, ping.getInfoWriterSleepTime(),
                "a file another cluster's coordinator deleted is written again within 2 s");
        assertTrue(Files.isDirectory(dir), "created at start-up");
        GMS gms = (GMS) stack.stream().filter(GMS.class::isInstance).findFirst().orElseThrow();
        assertEquals(3, gms.getMaxJoinAttempts(), "a coordinator listed but dead is given up on after ~5 s");
    }

    @Test
    void discoveryDirectoryThatIsAFileIsNamed() throws Exception {
        Path file = Files.writeString(tmp.resolve("not-a-dir"), "x");
        ConfigException e = assertThrows(ConfigException.class, () -> JGroupsStacks.build(
                dynamic(DynamicDiscovery.FILE).discoveryDirectory(file.toString()).build()));
        assertEquals("discovery-directory", e.option());
        assertTrue(e.getMessage().contains("'" + file + "' exists but is not a directory"), e.getMessage());
    }

    @Test
    void dnsStackIsTcpWithDnsPingOnTheQuery() {
        List<Protocol> stack = JGroupsStacks.build(dynamic(DynamicDiscovery.DNS)
                .dnsQuery(List.of("sessions.shop.svc.cluster.local", "b.example")).dnsRecordType(DnsRecordType.SRV)
                .bindPort(7800).build());

        TCP tcp = assertInstanceOf(TCP.class, stack.get(0));
        assertEquals(0, tcp.getPortRange(), "an explicit port: DNS A records are probed on exactly this port");
        DNS_PING ping = assertInstanceOf(DNS_PING.class, stack.get(1));
        assertEquals("sessions.shop.svc.cluster.local,b.example", ping.dnsQuery());
        assertEquals("SRV", ping.dnsRecordType());
    }

    @Test
    void anyLoopbackAddressIsABindAddress() throws Exception {
        List<Protocol> stack = JGroupsStacks.build(ReplicationConfig.builder().nodeName("a")
                .bindAddress("127.0.0.3").build());
        assertEquals(InetAddress.getByName("127.0.0.3"), ((TCP) stack.get(0)).getBindAddress());
    }

    @Test
    void describeNamesModeAndDiscovery() {
        assertEquals("dynamic discovery by file (TCP, FILE_PING in /shared)",
                JGroupsStacks.describe(dynamic(DynamicDiscovery.FILE).discoveryDirectory("/shared").build()));
        assertEquals("dynamic discovery by dns (TCP, DNS_PING A a.example)",
                JGroupsStacks.describe(dynamic(DynamicDiscovery.DNS).dnsQuery(List.of("a.example")).build()));
        assertEquals("multicast discovery (UDP, group 228.8.8.8:45588)", JGroupsStacks.describe(
                ReplicationConfig.builder().discovery(DiscoveryMode.MULTICAST).build()));
        assertEquals("the JGroups stack of jgroups-config /x.xml",
                JGroupsStacks.describe(ReplicationConfig.builder().jgroupsConfig("/x.xml").build()));
    }

    @Test
    void xmlStackReplacesTheGeneratedOne() throws Exception {
        Path xml = Files.writeString(tmp.resolve("stack.xml"), """
                <config xmlns="urn:org:jgroups">
                  <TCP bind_addr="127.0.0.1" bind_port="${test.port:7950}" port_range="3"/>
                  <TCPPING initial_hosts="127.0.0.1[7950]" port_range="3"/>
                  <MERGE3/>
                  <FD_SOCK2/>
                  <FD_ALL3 timeout="8000" interval="2000"/>
                  <VERIFY_SUSPECT2/>
                  <pbcast.NAKACK2 use_mcast_xmit="false"/>
                  <UNICAST3/>
                  <pbcast.STABLE/>
                  <pbcast.GMS join_timeout="1000"/>
                  <UFC/>
                  <MFC/>
                  <FRAG4/>
                </config>
                """);
        ReplicationConfig config = ReplicationConfig.builder().nodeName("a").jgroupsConfig(xml.toString()).build();
        try (JChannel channel = JGroupsStacks.channel(config)) {
            TCP tcp = assertInstanceOf(TCP.class, channel.getProtocolStack().getTransport());
            assertEquals(7950, tcp.getBindPort(), "${...} defaults are substituted");
            assertEquals(3, tcp.getPortRange());
            assertInstanceOf(TCPPING.class, channel.getProtocolStack().findProtocol(TCPPING.class));
            assertEquals(1000, ((GMS) channel.getProtocolStack().findProtocol(GMS.class)).getJoinTimeout());
        }
        assertThrows(IllegalArgumentException.class, () -> JGroupsStacks.build(config));
    }

    /** docs/jgroups-tcp.xml, the starting point users get, is a valid stack with the generated values. */
    @Test
    void documentedExampleXmlMatchesTheGeneratedStack() throws Exception {
        Path example = Path.of("..", "docs", "jgroups-tcp.xml").toAbsolutePath().normalize();
        ReplicationConfig config = ReplicationConfig.builder().nodeName("a").jgroupsConfig(example.toString()).build();
        List<Protocol> generated = JGroupsStacks.build(ReplicationConfig.builder().nodeName("a").build());
        try (JChannel channel = JGroupsStacks.channel(config)) {
            List<Protocol> fromXml = channel.getProtocolStack().getProtocols();
            java.util.Collections.reverse(fromXml); // bottom first, as build() lists them
            assertEquals(generated.stream().map(p -> p.getClass().getSimpleName()).toList(),
                    fromXml.stream().map(p -> p.getClass().getSimpleName()).toList());
            org.jgroups.protocols.FD_ALL3 fd = channel.getProtocolStack().findProtocol(org.jgroups.protocols.FD_ALL3.class);
            assertEquals(UpperProtocols.HEARTBEAT_INTERVAL_MS, fd.getInterval());
            assertEquals(UpperProtocols.HEARTBEAT_TIMEOUT_MS, fd.getTimeout());
            org.jgroups.protocols.VERIFY_SUSPECT2 verify =
                    channel.getProtocolStack().findProtocol(org.jgroups.protocols.VERIFY_SUSPECT2.class);
            assertEquals(UpperProtocols.VERIFY_SUSPECT_TIMEOUT_MS, verify.getTimeout());
            org.jgroups.protocols.MERGE3 merge = channel.getProtocolStack().findProtocol(org.jgroups.protocols.MERGE3.class);
            assertEquals(UpperProtocols.MERGE_MIN_INTERVAL_MS, merge.getMinInterval());
            assertEquals(UpperProtocols.MERGE_MAX_INTERVAL_MS, merge.getMaxInterval());
            TCPPING discovery = channel.getProtocolStack().findProtocol(TCPPING.class);
            assertEquals(JGroupsStacks.DISCOVERY_RUNS, discovery.numDiscoveryRuns());
            GMS gms = channel.getProtocolStack().findProtocol(GMS.class);
            assertEquals(UpperProtocols.JOIN_TIMEOUT_MS, gms.getJoinTimeout());
            TCP tcp = (TCP) channel.getProtocolStack().getTransport();
            assertEquals(7800, tcp.getBindPort());
        }
    }

    @Test
    void missingXmlNamesOptionAndPath() {
        Path missing = tmp.resolve("nope.xml");
        ConfigException e = assertThrows(ConfigException.class, () -> JGroupsStacks.channel(
                ReplicationConfig.builder().jgroupsConfig(missing.toString()).build()));
        assertEquals("jgroups-config", e.option());
        assertEquals("jgroups-config: '" + missing + "' does not exist; expected a readable JGroups XML stack file"
                + " (for a start, copy tcp.xml or udp.xml from the jgroups jar)", e.getMessage());
    }

    @Test
    void directoryAsXmlIsRefused() {
        ConfigException e = assertThrows(ConfigException.class, () -> JGroupsStacks.channel(
                ReplicationConfig.builder().jgroupsConfig(tmp.toString()).build()));
        assertTrue(e.getMessage().contains("is not a readable file"), e.getMessage());
    }

    @Test
    void malformedXmlNamesOptionAndPath() throws Exception {
        Path xml = Files.writeString(tmp.resolve("broken.xml"), "<config><TCP bind_port=\"7800\"></config");
        ConfigException e = assertThrows(ConfigException.class, () -> JGroupsStacks.channel(
                ReplicationConfig.builder().jgroupsConfig(xml.toString()).build()));
        assertEquals("jgroups-config", e.option());
        assertTrue(e.getMessage().startsWith("jgroups-config: '" + xml + "' is not a JGroups XML configuration"),
                e.getMessage());
    }

    @Test
    void unknownProtocolOrAttributeIsNamed() throws Exception {
        Path attribute = Files.writeString(tmp.resolve("attribute.xml"),
                "<config><TCP bind_port=\"7800\" no_such_attribute=\"1\"/><TCPPING/><pbcast.GMS/></config>");
        ConfigException e = assertThrows(ConfigException.class, () -> JGroupsStacks.channel(
                ReplicationConfig.builder().jgroupsConfig(attribute.toString()).build()));
        assertTrue(e.getMessage().startsWith("jgroups-config: '" + attribute + "' cannot be used as a JGroups stack"),
                e.getMessage());
        assertTrue(e.getMessage().contains("no_such_attribute"), e.getMessage());

        Path protocol = Files.writeString(tmp.resolve("protocol.xml"),
                "<config><TCP bind_port=\"7800\"/><NO_SUCH_PING/><pbcast.GMS/></config>");
        ConfigException p = assertThrows(ConfigException.class, () -> JGroupsStacks.channel(
                ReplicationConfig.builder().jgroupsConfig(protocol.toString()).build()));
        assertTrue(p.getMessage().contains("NO_SUCH_PING"), p.getMessage());
    }

    @Test
    void stackWithoutMembershipIsRefused() throws Exception {
        Path xml = Files.writeString(tmp.resolve("nogms.xml"),
                "<config><TCP bind_addr=\"127.0.0.1\" bind_port=\"7800\"/><TCPPING/><UNICAST3/></config>");
        ConfigException e = assertThrows(ConfigException.class, () -> JGroupsStacks.channel(
                ReplicationConfig.builder().jgroupsConfig(xml.toString()).build()));
        assertTrue(e.getMessage().contains("has no GMS (group membership)"), e.getMessage());
    }

    @Test
    void startFailureOfAnXmlStackBlamesTheFile() {
        ReplicationConfig config = ReplicationConfig.builder().jgroupsConfig("/etc/stack.xml").build();
        BindException bind = new BindException("Address already in use");
        ConfigException e = StartFailures.configProblem(config, new Exception("connect failed", bind));
        assertEquals("jgroups-config", e.option());
        assertTrue(e.getMessage().contains("'/etc/stack.xml' could not start (BindException: Address already in use)"),
                e.getMessage());
        assertSame(bind, e.getCause().getCause());
    }

    @Test
    void portInUseIsAConfigProblemOfBindPortAndOtherFailuresAreNot() {
        ReplicationConfig config = ReplicationConfig.builder().bindPort(7812).build();
        ConfigException e = StartFailures.configProblem(config, new BindException("in use"));
        assertEquals("bind-port", e.option());
        assertEquals(null, StartFailures.configProblem(config, new IllegalStateException("something else")));
        assertTrue(StartFailures.describe(config, new IllegalStateException("something else"))
                .startsWith("cannot join cluster-name 'sessions' with static discovery (TCP, TCPPING peers (none))"));
    }
}
