package io.sessionrep.discovery;

import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.DynamicDiscovery;
import io.sessionrep.core.config.ReplicationConfig;
import org.jgroups.protocols.TCP;
import org.jgroups.protocols.UDP;
import org.jgroups.stack.Protocol;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Secure by default, where cluster-key sits in the stack, and the transport's frame-length cap. */
class ClusterSecurityTest {
    private static final String KEY = "the-shared-secret-of-this-cluster";

    private static ReplicationConfig.Builder on(String bindAddress) {
        return ReplicationConfig.builder().nodeName("a").discovery(DiscoveryMode.STATIC).bindAddress(bindAddress);
    }

    @Test
    void aReachableBindAddressWithoutCredentialsRefusesToStartNamingTheRisk() {
        ConfigException e = assertThrows(ConfigException.class, () -> JGroupsStacks.build(on("0.0.0.0").build()));
        assertEquals("insecure-cluster", e.option());
        assertTrue(e.getMessage().contains("anyone who can reach its port could read and forge sessions"),
                e.getMessage());
        assertTrue(e.getMessage().contains("cluster-key") && e.getMessage().contains("tls-keystore"), e.getMessage());
    }

    @Test
    void credentialsOrAnExplicitInsecureClusterOrLoopbackMayStart() {
        JGroupsStacks.build(on("0.0.0.0").insecureCluster(true).build());
        JGroupsStacks.build(on("0.0.0.0").clusterKey(KEY).build());
        JGroupsStacks.build(on("127.0.0.1").build());
        JGroupsStacks.build(on("127.0.0.2").build());
    }

    @Test
    void multicastDiscoveryOnAReachableAddressNeedsCredentialsToo() {
        ReplicationConfig multicast = ReplicationConfig.builder().nodeName("a").discovery(DiscoveryMode.MULTICAST)
                .bindAddress("0.0.0.0").build();
        assertEquals("insecure-cluster",
                assertThrows(ConfigException.class, () -> JGroupsStacks.build(multicast)).option());
    }

    @Test
    void clusterKeySitsDirectlyAboveTheTransportInEveryMode() {
        for (ReplicationConfig config : List.of(on("127.0.0.1").clusterKey(KEY).build(),
                ReplicationConfig.builder().nodeName("a").discovery(DiscoveryMode.MULTICAST).clusterKey(KEY).build(),
                ReplicationConfig.builder().nodeName("a").discovery(DiscoveryMode.DYNAMIC)
                        .dynamicDiscovery(DynamicDiscovery.DNS).dnsQuery(List.of("localhost")).clusterKey(KEY).build())) {
            List<Protocol> stack = JGroupsStacks.build(config);
            assertInstanceOf(SealedFrames.class, stack.get(1), config.discovery().toString());
            assertEquals(1, stack.stream().filter(SealedFrames.class::isInstance).count());
        }
        assertInstanceOf(UDP.class, JGroupsStacks.build(ReplicationConfig.builder().nodeName("a")
                .discovery(DiscoveryMode.MULTICAST).clusterKey(KEY).build()).get(0));
    }

    @Test
    void theFailureDetectionPortCapsFramesAndKeepsFdSock2sWireIdentity() throws Exception {
        try (org.jgroups.JChannel channel = new org.jgroups.JChannel(JGroupsStacks.build(on("127.0.0.1").build()))) {
            BoundedFdSock2 fd = (BoundedFdSock2) channel.getProtocolStack().findProtocol(BoundedFdSock2.class);
            assertEquals(org.jgroups.conf.ClassConfigurator.getProtocolId(org.jgroups.protocols.FD_SOCK2.class),
                    fd.getId(), "talks to plain FD_SOCK2");
            org.jgroups.blocks.cs.NioServer server = fd.createServer(new int[] {0});
            try {
                assertEquals(BoundedFdSock2.MAX_FRAME_LENGTH, server.getMaxLength(),
                        "a frame over 64 KiB closes the connection");
            } finally {
                server.stop();
            }
        }
    }

    @Test
    void theStartUpLineSaysHowTheTrafficIsProtected() {
        assertTrue(JGroupsStacks.describe(on("127.0.0.1").clusterKey(KEY).build()).endsWith(", sealed by cluster-key"));
        assertTrue(JGroupsStacks.describe(on("127.0.0.1").tlsKeystore("/k.p12").tlsKeystorePassword("p")
                .tlsTruststore("/t.p12").tlsTruststorePassword("p").build()).endsWith(", mutual TLS"));
        assertTrue(JGroupsStacks.describe(on("127.0.0.1").build()).endsWith(")"));
    }

    @Test
    void theTransportRefusesFramesLongerThanTheSessionSizeBoundPlusHeadroom() {
        TCP defaults = (TCP) JGroupsStacks.build(on("127.0.0.1").build()).get(0);
        assertEquals(2 * 1024 * 1024, defaults.getMaxLength(), "1MiB max-session-size + 1MiB headroom");
        TCP small = (TCP) JGroupsStacks.build(on("127.0.0.1").maxSessionSize(64 * 1024).build()).get(0);
        assertEquals(64 * 1024 + 1024 * 1024, small.getMaxLength());
        TCP huge = (TCP) JGroupsStacks.build(on("127.0.0.1").maxSessionSize(2L * 1024 * 1024 * 1024).build()).get(0);
        assertEquals(9 * 1024 * 1024, huge.getMaxLength(), "fragmentation keeps frames small: capped at 8MiB + 1MiB");
    }
}
