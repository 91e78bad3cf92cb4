package io.sessionrep.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The discovery options: {@code dynamic-discovery} with its {@code discovery-directory} /
 * {@code dns-query} / {@code dns-record-type}, and {@code jgroups-config}; each bad value or mix of modes
 * stops with a message naming the option, the value and what is allowed.
 */
class DiscoveryOptionsTest {

    @Test
    void defaults() {
        ReplicationConfig c = ReplicationConfig.builder().build();
        assertEquals(DynamicDiscovery.MULTICAST, c.dynamicDiscovery());
        assertNull(c.discoveryDirectory());
        assertEquals(List.of(), c.dnsQuery());
        assertEquals(DnsRecordType.A, c.dnsRecordType());
        assertNull(c.jgroupsConfig());
        String described = c.describe();
        assertTrue(described.contains("dynamic-discovery       = multicast (default)"), described);
        assertTrue(described.contains("jgroups-config          = (not set) (default)"), described);
    }

    @Test
    void dynamicFile() {
        ReplicationConfig c = ReplicationConfig.fromMap(Map.of("discovery", "dynamic", "dynamic-discovery", "FILE",
                "discovery-directory", "/mnt/shared/sessionrep"));
        assertEquals(DiscoveryMode.DYNAMIC, c.discovery());
        assertEquals(DynamicDiscovery.FILE, c.dynamicDiscovery());
        assertEquals("/mnt/shared/sessionrep", c.discoveryDirectory());
        assertTrue(c.describe().contains("discovery-directory     = /mnt/shared/sessionrep\n"), c.describe());
    }

    @Test
    void dynamicDns() {
        ReplicationConfig c = ReplicationConfig.fromMap(Map.of("discovery", "dynamic", "dynamic-discovery", "dns",
                "dns-query", "sessions.shop.svc.cluster.local, other.example.", "dns-record-type", "srv"));
        assertEquals(DynamicDiscovery.DNS, c.dynamicDiscovery());
        assertEquals(List.of("sessions.shop.svc.cluster.local", "other.example."), c.dnsQuery());
        assertEquals(DnsRecordType.SRV, c.dnsRecordType());
    }

    @Test
    void dynamicMulticastKeepsTheMulticastOptions() {
        ReplicationConfig c = ReplicationConfig.fromMap(Map.of("discovery", "dynamic",
                "dynamic-discovery", "multicast", "multicast-address", "228.9.9.9", "multicast-port", "45600"));
        assertEquals("228.9.9.9", c.multicastAddress());
        assertEquals(45600, c.multicastPort());
    }

    @Test
    void jgroupsConfigAlone() {
        ReplicationConfig c = ReplicationConfig.fromMap(Map.of("jgroups-config", "conf/stack.xml",
                "cluster-name", "shop", "node-name", "web1"));
        assertEquals("conf/stack.xml", c.jgroupsConfig());
        assertEquals("shop", c.clusterName());
    }

    @Test
    void unknownDynamicDiscoveryNamesTheAllowedValues() {
        ConfigException e = assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(Map.of(
                "discovery", "dynamic", "dynamic-discovery", "kubernetes")));
        assertEquals("dynamic-discovery", e.option());
        assertEquals("dynamic-discovery: 'kubernetes' is not allowed; expected one of multicast, file, dns",
                e.getMessage());
    }

    @Test
    void unknownDnsRecordTypeNamesTheAllowedValues() {
        ConfigException e = assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(Map.of(
                "discovery", "dynamic", "dynamic-discovery", "dns", "dns-query", "a.example", "dns-record-type",
                "AAAA")));
        assertEquals("dns-record-type: 'AAAA' is not allowed; expected one of A, SRV", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"shared/dir", "./dir", "~/dir"})
    void relativeDiscoveryDirectoryIsRefused(String dir) {
        ConfigException e = assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(Map.of(
                "discovery", "dynamic", "dynamic-discovery", "file", "discovery-directory", dir)));
        assertEquals("discovery-directory", e.option());
        assertTrue(e.getMessage().contains("'" + dir + "'"), e.getMessage());
        assertTrue(e.getMessage().contains("expected the absolute path of a directory"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"host:53", "-bad.example", "a..b", "under score!", ".example"})
    void badDnsNameIsRefused(String query) {
        ConfigException e = assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(Map.of(
                "discovery", "dynamic", "dynamic-discovery", "dns", "dns-query", query)));
        assertEquals("dns-query", e.option());
        assertTrue(e.getMessage().contains("expected one or more DNS names"), e.getMessage());
    }

    @Test
    void fileWithoutDirectoryNamesTheMissingOption() {
        ConfigException e = assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(Map.of(
                "discovery", "dynamic", "dynamic-discovery", "file")));
        assertEquals("discovery-directory", e.option());
        assertTrue(e.getMessage().startsWith("discovery-directory: not set, but dynamic-discovery=file needs it"),
                e.getMessage());
    }

    @Test
    void dnsWithoutQueryNamesTheMissingOption() {
        ConfigException e = assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(Map.of(
                "discovery", "dynamic", "dynamic-discovery", "dns")));
        assertEquals("dns-query", e.option());
        assertTrue(e.getMessage().startsWith("dns-query: not set, but dynamic-discovery=dns needs it"),
                e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({"static", "multicast"})
    void dynamicDiscoveryWithAnotherModeIsMixingModes(String discovery) {
        ConfigException e = assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(Map.of(
                "discovery", discovery, "dynamic-discovery", "file")));
        assertEquals("dynamic-discovery", e.option());
        assertEquals("dynamic-discovery: 'file' is set, but dynamic-discovery is an option of discovery=dynamic"
                + " and discovery is " + discovery + " (mixing options of different modes); expected no"
                + " dynamic-discovery with discovery=" + discovery + ", or discovery=dynamic", e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({
            "static, multicast, discovery-directory, /shared, discovery is static",
            "dynamic, multicast, discovery-directory, /shared, dynamic-discovery is multicast",
            "dynamic, dns, discovery-directory, /shared, dynamic-discovery is dns",
            "multicast, multicast, dns-query, a.example, discovery is multicast",
            "dynamic, file, dns-query, a.example, dynamic-discovery is file",
            "dynamic, multicast, dns-record-type, SRV, dynamic-discovery is multicast",
    })
    void subModeOptionsElsewhereAreMixingModes(String discovery, String subMode, String option, String value,
                                               String actual) {
        java.util.Map<String, String> options = new java.util.HashMap<>(Map.of("discovery", discovery, option, value));
        if (discovery.equals("dynamic")) {
            options.put("dynamic-discovery", subMode);
            // the sub-mode's own required option, so only the misplaced one is wrong
            if (subMode.equals("file") && !option.equals("discovery-directory")) {
                options.put("discovery-directory", "/shared");
            }
            if (subMode.equals("dns") && !option.equals("dns-query")) {
                options.put("dns-query", "a.example");
            }
        }
        ConfigException e = assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(options));
        assertEquals(option, e.option());
        assertTrue(e.getMessage().contains("'" + value + "' is set"), e.getMessage());
        assertTrue(e.getMessage().contains(actual + " (mixing options of different modes)"), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({"file, discovery-directory, /shared", "dns, dns-query, a.example"})
    void multicastOptionsWithFileOrDnsAreMixingModes(String subMode, String required, String requiredValue) {
        ConfigException e = assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(Map.of(
                "discovery", "dynamic", "dynamic-discovery", subMode, required, requiredValue,
                "multicast-address", "228.9.9.9")));
        assertEquals("multicast-address", e.option());
        assertTrue(e.getMessage().contains("'228.9.9.9' is set"), e.getMessage());
        assertTrue(e.getMessage().contains("dynamic-discovery is " + subMode), e.getMessage());
        assertTrue(e.getMessage().contains("mixing options of different modes"), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({
            "discovery, multicast",
            "bind-address, 10.1.2.3",
            "bind-port, 7800",
            "peers, a:7800",
            "multicast-port, 45600",
    })
    void jgroupsConfigRefusesTheOptionsItReplaces(String option, String value) {
        ConfigException e = assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(Map.of(
                "jgroups-config", "/etc/sessionrep/stack.xml", option, value)));
        assertEquals(option, e.option());
        assertTrue(e.getMessage().contains("'" + value + "' is set, but jgroups-config ('/etc/sessionrep/stack.xml')"
                + " replaces the generated JGroups stack"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\u0000b", "line\nbreak"})
    void badJgroupsConfigPathIsRefused(String path) {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ReplicationConfig.builder().jgroupsConfig(path));
        assertEquals("jgroups-config", e.option());
        assertTrue(e.getMessage().contains("expected the path of a JGroups XML stack file"), e.getMessage());
    }

    @Test
    void multicastAddressOutsideTheMulticastRangeNamesOptionValueAndRange() {
        ConfigException e = assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(Map.of(
                "discovery", "multicast", "multicast-address", "240.0.0.1")));
        assertEquals("multicast-address", e.option());
        assertTrue(e.getMessage().contains("'240.0.0.1'"), e.getMessage());
        assertTrue(e.getMessage().contains("224.0.0.0/4"), e.getMessage());
    }
}
