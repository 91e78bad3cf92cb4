package io.sessionrep.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class ReplicationConfigTest {

    private static final long KIB = 1024;
    private static final long MIB = 1024 * KIB;
    private static final long GIB = 1024 * MIB;

    @Test
    void defaults() {
        ReplicationConfig c = ReplicationConfig.builder().build();
        assertTrue(c.nodeName().matches("[A-Za-z0-9_-]{1,59}-[0-9a-f]{4}"), c.nodeName());
        assertEquals(ReplicationMode.ASYNC, c.replicationMode());
        assertEquals(Duration.ofMillis(500), c.syncTimeout());
        assertEquals(ReplicationTrigger.ON_REQUEST_END, c.replicationTrigger());
        assertEquals(1, c.writeQuota());
        assertTrue(c.allowColocation());
        assertFalse(c.machineId().isBlank());
        assertEquals(DiscoveryMode.STATIC, c.discovery());
        assertEquals("sessions", c.clusterName());
        assertEquals("127.0.0.1", c.bindAddress());
        assertEquals(0, c.bindPort());
        assertEquals(List.of(), c.peers());
        assertEquals("228.8.8.8", c.multicastAddress());
        assertEquals(45588, c.multicastPort());
        assertEquals(MIB, c.maxSessionSize());
        assertNull(c.clusterKey());
        assertEquals(List.of(), c.serializationAllowlist());
        assertEquals(10_000, c.asyncQueueEntries());
        assertEquals(64 * MIB, c.asyncQueueBytes());
        assertEquals(Duration.ofMillis(1), c.asyncBatchWindow());
        assertEquals(MetricsExport.JMX, c.metrics());
        assertEquals(List.of(), c.notYetActive());
    }

    @Test
    void emptyMapAndBlankValuesMeanDefaults() {
        Map<String, String> blanks = new HashMap<>();
        ReplicationConfig.OPTION_NAMES.forEach(name -> blanks.put(name, " "));
        blanks.put("write-quota", null);
        ReplicationConfig c = ReplicationConfig.fromMap(blanks);
        assertEquals(1, c.writeQuota());
        assertEquals(DiscoveryMode.STATIC, c.discovery()); // blank multicast-* are not "set explicitly"
        assertEquals(ReplicationConfig.builder().build().toString().replaceAll("node-name=[^,]*", ""),
                ReplicationConfig.fromMap(Map.of()).toString().replaceAll("node-name=[^,]*", ""));
    }

    @ParameterizedTest
    @CsvSource({
            "web1.example.com, 16290, web1-3fa2",
            "'my host!', 1, my-host--0001",
            "'', 43981, node-abcd",
            ".hidden, 0, node-0000",
    })
    void defaultNodeNameIsTheSanitizedShortHostName(String host, int random, String expected) {
        assertEquals(expected, ReplicationConfig.defaultNodeName(host, random));
    }

    @Test
    void defaultNodeNameOfALongHostNameFitsTheRoutePattern() {
        String name = ReplicationConfig.defaultNodeName("x".repeat(300), 7);
        assertEquals(64, name.length());
        ReplicationConfig.builder().nodeName(name); // valid
    }

    @Test
    void defaultMachineIdIsAValidMachineId() {
        assertEquals("localhost", ReplicationConfig.defaultMachineId(" \u0001 "));
        assertEquals(128, ReplicationConfig.defaultMachineId("h".repeat(200)).length());
        assertEquals("web1.example.com", ReplicationConfig.defaultMachineId("web1.example.com"));
    }

    @Test
    void optionNamesAreTheCanonicalSpelling() {
        assertEquals(List.of("node-name", "replication-mode", "sync-timeout", "data-lane", "data-lane-port", "async-lane", "ownership-timeout", "ignored-paths", "replication-trigger", "write-quota",
                "allow-colocation", "machine-id", "discovery", "cluster-name", "bind-address", "bind-port", "peers",
                "multicast-address", "multicast-port", "dynamic-discovery", "discovery-directory", "dns-query",
                "dns-record-type", "jgroups-config", "max-session-size", "max-backup-bytes", "cluster-key",
                "tls-keystore", "tls-keystore-password", "tls-keystore-type", "tls-truststore",
                "tls-truststore-password", "tls-truststore-type", "insecure-cluster", "serialization-allowlist",
                "async-queue-entries", "async-queue-bytes", "async-batch-window", "metrics"), ReplicationConfig.OPTION_NAMES);
    }

    @Test
    void everyStaticOptionFromAMap() {
        ReplicationConfig c = ReplicationConfig.fromMap(Map.ofEntries(
                Map.entry("node-name", "node_A-1"),
                Map.entry("replication-mode", "sync"),
                Map.entry("sync-timeout", "2s"),
                Map.entry("replication-trigger", "on-request-end"),
                Map.entry("write-quota", "2"),
                Map.entry("allow-colocation", "false"),
                Map.entry("machine-id", "rack1-host7"),
                Map.entry("discovery", "static"),
                Map.entry("cluster-name", "shop"),
                Map.entry("bind-address", "10.1.2.3"),
                Map.entry("bind-port", "7800"),
                Map.entry("peers", "10.1.2.4:7800, 10.1.2.5:7801"),
                Map.entry("max-session-size", "512KiB"),
                Map.entry("cluster-key", ""),
                Map.entry("serialization-allowlist", "com.example., org.acme.*, com.example.Cart$Line"),
                Map.entry("async-queue-entries", "500"),
                Map.entry("async-queue-bytes", "16MiB"),
                Map.entry("async-batch-window", "0"),
                Map.entry("metrics", "none")));
        assertEquals("node_A-1", c.nodeName());
        assertEquals(ReplicationMode.SYNC, c.replicationMode());
        assertEquals(Duration.ofSeconds(2), c.syncTimeout());
        assertEquals(ReplicationTrigger.ON_REQUEST_END, c.replicationTrigger());
        assertEquals(2, c.writeQuota());
        assertFalse(c.allowColocation());
        assertEquals("rack1-host7", c.machineId());
        assertEquals(DiscoveryMode.STATIC, c.discovery());
        assertEquals("shop", c.clusterName());
        assertEquals("10.1.2.3", c.bindAddress());
        assertEquals(7800, c.bindPort());
        assertEquals(List.of(new HostPort("10.1.2.4", 7800), new HostPort("10.1.2.5", 7801)), c.peers());
        assertEquals(512 * KIB, c.maxSessionSize());
        assertNull(c.clusterKey());
        assertEquals(List.of("com.example.", "org.acme.", "com.example.Cart$Line"), c.serializationAllowlist());
        assertEquals(500, c.asyncQueueEntries());
        assertEquals(16 * MIB, c.asyncQueueBytes());
        assertEquals(Duration.ZERO, c.asyncBatchWindow());
        assertEquals(MetricsExport.NONE, c.metrics());
    }

    @Test
    void multicastOptionsFromAMap() {
        ReplicationConfig c = ReplicationConfig.fromMap(Map.of(
                "discovery", "multicast", "multicast-address", "239.1.2.3", "multicast-port", "45600"));
        assertEquals(DiscoveryMode.MULTICAST, c.discovery());
        assertEquals("239.1.2.3", c.multicastAddress());
        assertEquals(45600, c.multicastPort());
        assertEquals("ff02::1", ReplicationConfig.fromMap(Map.of(
                "discovery", "dynamic", "multicast-address", "[ff02::1]")).multicastAddress());
    }

    @ParameterizedTest
    @CsvSource({"500ms, 500", "2s, 2000", "1m, 60000", "1500, 1500", "PT0.5S, 500", "60S, 60000", "1 ms, 1",
            "pt1s, 1000"})
    void durations(String text, long millis) {
        assertEquals(Duration.ofMillis(millis), ReplicationConfig.fromMap(Map.of("sync-timeout", text)).syncTimeout());
    }

    @ParameterizedTest
    @CsvSource({"1048576, 1048576", "512KiB, 524288", "1MiB, 1048576", "1GiB, 1073741824", "64KB, 64000",
            "1MB, 1000000", "2GiB, 2147483648", "1 kib, 1024", "1024B, 1024"})
    void sizes(String text, long bytes) {
        assertEquals(bytes, ReplicationConfig.fromMap(Map.of("max-session-size", text)).maxSessionSize());
    }

    @ParameterizedTest
    @CsvSource({"true, true", "TRUE, true", "False, false", "' false ', false"})
    void booleansAreStrict(String text, boolean expected) {
        assertEquals(expected, ReplicationConfig.fromMap(Map.of("allow-colocation", text)).allowColocation());
    }

    @Test
    void choicesByTheirOptionSpellingInAnyCase() {
        ReplicationConfig c = ReplicationConfig.fromMap(Map.of(
                "replication-mode", "SYNC", "replication-trigger", "On-Shutdown", "discovery", "Dynamic",
                "metrics", "JMX"));
        assertEquals(ReplicationMode.SYNC, c.replicationMode());
        assertEquals(ReplicationTrigger.ON_SHUTDOWN, c.replicationTrigger());
        assertEquals(DiscoveryMode.DYNAMIC, c.discovery());
        assertEquals(MetricsExport.JMX, c.metrics());
    }

    @Test
    void metricsExportIsReportedLikeEveryOtherChoice() {
        assertEquals("metrics: 'jconsole' is not allowed; expected one of jmx, none",
                assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(Map.of("metrics", "jconsole")))
                        .getMessage());
        assertEquals("metrics", assertThrows(ConfigException.class,
                () -> ReplicationConfig.builder().metrics(null)).option());
        assertTrue(ReplicationConfig.fromMap(Map.of("metrics", "none")).describe()
                .contains("\nmetrics                 = none"), "describe shows it");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a:7800,b:7801", "a:7800 b:7801", " a:7800 ,\n b:7801 ", "a:7800,,b:7801"})
    void peerListSeparators(String text) {
        assertEquals(List.of(new HostPort("a", 7800), new HostPort("b", 7801)),
                ReplicationConfig.fromMap(Map.of("peers", text)).peers());
    }

    @Test
    void ipv6PeersInBrackets() {
        List<HostPort> peers = ReplicationConfig.fromMap(Map.of("peers", "[::1]:7800 [fe80::1]:7801")).peers();
        assertEquals(List.of(new HostPort("::1", 7800), new HostPort("fe80::1", 7801)), peers);
        assertEquals("[::1]:7800", peers.get(0).toString());
    }

    @Test
    void ownAddressInPeersIsFine() {
        ReplicationConfig c = ReplicationConfig.fromMap(Map.of(
                "bind-address", "127.0.0.1", "bind-port", "7800", "peers", "127.0.0.1:7800,127.0.0.1:7801"));
        assertEquals(2, c.peers().size());
    }

    static Stream<Arguments> badValues() {
        return Stream.of(
                Arguments.of("write-quota", "-1", "an integer from 0 to 64"),
                Arguments.of("write-quota", "65", "an integer from 0 to 64"),
                Arguments.of("write-quota", "two", "an integer from 0 to 64"),
                Arguments.of("replication-mode", "asynch", "one of async, sync"),
                Arguments.of("replication-trigger", "on-request", "on-request-end, on-attribute-modify, on-shutdown"),
                Arguments.of("discovery", "gossip", "one of multicast, static, dynamic"),
                Arguments.of("peers", "nohostport", "host:port"),
                Arguments.of("peers", "host:99999", "port from 1 to 65535"),
                Arguments.of("peers", "a:7800,host:0", "port from 1 to 65535"),
                Arguments.of("peers", "::1:7800", "[::1]:7800"),
                Arguments.of("peers", "bad_host!:7800", "host:port"),
                Arguments.of("sync-timeout", "soon", "500ms, 2s, 1m"),
                Arguments.of("sync-timeout", "-5s", "500ms, 2s, 1m"),
                Arguments.of("sync-timeout", "0", "greater than 0 and at most 60s"),
                Arguments.of("sync-timeout", "61s", "greater than 0 and at most 60s"),
                Arguments.of("sync-timeout", "0.5s", "PT0.5S"),
                Arguments.of("max-session-size", "12XB", "KiB, MiB, GiB"),
                Arguments.of("max-session-size", "1.5MiB", "KiB, MiB, GiB"),
                Arguments.of("max-session-size", "512", "a size from 1KiB to 2GiB"),
                Arguments.of("max-session-size", "3GiB", "a size from 1KiB to 2GiB"),
                Arguments.of("max-session-size", "99999999999GiB", "KiB, MiB, GiB"),
                Arguments.of("async-queue-bytes", "64KB", "at least 64KiB"),
                Arguments.of("async-queue-entries", "0", "at least 1"),
                Arguments.of("async-batch-window", "101ms", "a duration from 0 to 100ms"),
                Arguments.of("async-batch-window", "-1ms", "500ms, 2s, 1m"),
                Arguments.of("allow-colocation", "yes", "true or false"),
                Arguments.of("metrics", "prometheus", "one of jmx, none"),
                Arguments.of("metrics", "off", "one of jmx, none"),
                Arguments.of("multicast-address", "10.0.0.1", "224.0.0.0/4"),
                Arguments.of("multicast-address", "::1", "ff00::/8"),
                Arguments.of("multicast-address", "300.1.1.1", "224.0.0.0/4"),
                Arguments.of("multicast-address", "mcast.example.com", "224.0.0.0/4"),
                Arguments.of("multicast-port", "0", "an integer from 1 to 65535"),
                Arguments.of("bind-port", "70000", "an integer from 0 to 65535"),
                Arguments.of("bind-address", "no such host", "host name, IPv4 address or IPv6 literal"),
                Arguments.of("node-name", "a.b", "A-Z, a-z, 0-9, '_' and '-'"),
                Arguments.of("node-name", "n".repeat(65), "1 to 64 characters"),
                Arguments.of("machine-id", "m".repeat(129), "1 to 128 characters"),
                Arguments.of("cluster-name", "c".repeat(129), "1 to 128 characters"),
                Arguments.of("serialization-allowlist", "*", "gadget"),
                Arguments.of("serialization-allowlist", "com.example., java.*", "gadget"),
                Arguments.of("serialization-allowlist", "javax.", "gadget"),
                Arguments.of("serialization-allowlist", "java.util.*", "gadget"),
                Arguments.of("serialization-allowlist", "com.", "gadget"),
                Arguments.of("serialization-allowlist", "com.example..Cart", "fully qualified class names"),
                Arguments.of("serialization-allowlist", "1com.example.", "package prefixes ending in '.' or '.*'"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("badValues")
    void badValueNamesOptionValueAndWhatIsAllowed(String option, String value, String allowed) {
        ConfigException e = assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(Map.of(option, value)));
        assertEquals(option, e.option());
        assertTrue(e.getMessage().startsWith(option + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(badPart(value)), e.getMessage());
        assertTrue(e.getMessage().contains(allowed), e.getMessage());
    }

    /** The offending item of a list value. */
    private static String badPart(String value) {
        String[] items = value.split("[,\\s]+");
        return items[items.length - 1];
    }

    @Test
    void typedSetterMessagesFollowTheSameShape() {
        assertEquals("write-quota: -1 is not allowed; expected an integer from 0 to 64",
                assertThrows(ConfigException.class, () -> ReplicationConfig.builder().writeQuota(-1)).getMessage());
        assertEquals("write-quota: -1 is not allowed; expected an integer from 0 to 64", assertThrows(
                ConfigException.class, () -> ReplicationConfig.fromMap(Map.of("write-quota", "-1"))).getMessage());
        assertEquals("sync-timeout: 0ms is not allowed; expected a duration greater than 0 and at most 60s,"
                        + " such as 500ms",
                assertThrows(ConfigException.class,
                        () -> ReplicationConfig.builder().syncTimeout(Duration.ZERO)).getMessage());
        assertEquals("sync-timeout", assertThrows(ConfigException.class,
                () -> ReplicationConfig.builder().syncTimeout(null)).option());
        assertEquals("peers", assertThrows(ConfigException.class,
                () -> ReplicationConfig.builder().peers(List.of(new HostPort("a", 0)))).option());
        assertEquals("node-name", assertThrows(ConfigException.class,
                () -> ReplicationConfig.builder().nodeName(null)).option());
    }

    @Test
    void controlCharactersAreEscapedInMessages() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ReplicationConfig.fromMap(Map.of("cluster-name", "a\u0001b")));
        assertEquals("cluster-name", e.option());
        assertTrue(e.getMessage().contains("'a\\u0001b'"), e.getMessage());
        assertTrue(e.getMessage().contains("without control characters"), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({"write-qouta, write-quota", "writeQuota, write-quota", "Sync-Timeout, sync-timeout",
            "multicast_address, multicast-address", "peer, peers"})
    void unknownKeySuggestsTheClosestOption(String key, String suggestion) {
        ConfigException e = assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(Map.of(key, "2")));
        assertEquals(key, e.option());
        assertTrue(e.getMessage().startsWith(key + ": unknown option (did you mean " + suggestion + "?); known"
                + " options: node-name, replication-mode, "), e.getMessage());
    }

    @Test
    void unknownKeyWithoutCloseMatchListsKnownOptions() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ReplicationConfig.fromMap(Map.of("colour", "blue")));
        assertEquals("colour: unknown option; known options: " + String.join(", ", ReplicationConfig.OPTION_NAMES),
                e.getMessage());
        assertFalse(e.getMessage().contains("did you mean"));
    }

    @Test
    void peersWithMulticastOrDynamicDiscoveryIsMixingModes() {
        for (String discovery : List.of("multicast", "dynamic")) {
            ConfigException e = assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(
                    Map.of("discovery", discovery, "peers", "a:7800")));
            assertEquals("peers", e.option());
            assertTrue(e.getMessage().contains("'a:7800'"), e.getMessage());
            assertTrue(e.getMessage().contains("mixing options of different modes"), e.getMessage());
            assertTrue(e.getMessage().contains("discovery is " + discovery), e.getMessage());
            assertTrue(e.getMessage().contains("discovery=static"), e.getMessage());
        }
    }

    @ParameterizedTest
    @CsvSource({"multicast-address, 228.9.9.9", "multicast-port, 45600"})
    void multicastOptionsWithStaticDiscoveryIsMixingModes(String option, String value) {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ReplicationConfig.fromMap(Map.of(option, value)));
        assertEquals(option, e.option());
        assertTrue(e.getMessage().contains("'" + value + "'"), e.getMessage());
        assertTrue(e.getMessage().contains("mixing options of different modes"), e.getMessage());
        assertTrue(e.getMessage().contains("discovery=multicast or dynamic"), e.getMessage());
    }

    @Test
    void clusterKeyIsCheckedWithoutEchoingTheSecret(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ReplicationConfig.fromMap(Map.of("cluster-key", "s3cret-value")));
        assertEquals("cluster-key", e.option());
        assertTrue(e.getMessage().contains("at least 16"), e.getMessage());
        assertFalse(e.getMessage().contains("s3cret-value"), e.getMessage());
        assertNull(ReplicationConfig.builder().clusterKey(null).build().clusterKey());

        ReplicationConfig c = ReplicationConfig.fromMap(Map.of("cluster-key", "correct-horse-battery-staple"));
        assertEquals("correct-horse-battery-staple", c.clusterKey());
        assertFalse(c.describe().contains("staple") || c.toString().contains("staple"), c.describe());

        java.nio.file.Path file = dir.resolve("key");
        java.nio.file.Files.writeString(file, "a-secret-read-from-a-file\n");
        assertEquals("a-secret-read-from-a-file",
                ReplicationConfig.fromMap(Map.of("cluster-key", "file:" + file)).clusterKey());
        ConfigException missing = assertThrows(ConfigException.class,
                () -> ReplicationConfig.fromMap(Map.of("cluster-key", "file:" + dir.resolve("none"))));
        assertTrue(missing.getMessage().contains("cannot be read"), missing.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"on-attribute-modify", "on-shutdown"})
    void everyTriggerIsActive(String trigger) {
        ReplicationConfig c = ReplicationConfig.fromMap(Map.of("replication-trigger", trigger));
        assertEquals(trigger, c.replicationTrigger().optionValue());
        assertEquals(List.of(), c.notYetActive());
    }

    @Test
    void layeredSourcesOverrideInOrderAndBlankKeepsTheEarlierValue() {
        Properties system = new Properties();
        system.setProperty("sessionrep.write-quota", "3");
        system.setProperty("sessionrep.cluster-name", " ");
        system.setProperty("user.home", "/ignored");
        ReplicationConfig c = ReplicationConfig.builder()
                .apply(Map.of("write-quota", "2", "cluster-name", "shop", "replication-mode", "sync"))
                .apply(system, "sessionrep.")
                .build();
        assertEquals(3, c.writeQuota());
        assertEquals("shop", c.clusterName());
        assertEquals(ReplicationMode.SYNC, c.replicationMode());
    }

    @Test
    void fromPropertiesReportsUnknownNamesWithTheirPrefix() {
        Properties p = new Properties();
        p.setProperty("sessionrep.write-qouta", "2");
        ConfigException e = assertThrows(ConfigException.class,
                () -> ReplicationConfig.fromProperties(p, "sessionrep."));
        assertEquals("sessionrep.write-qouta", e.option());
        assertTrue(e.getMessage().contains("(did you mean sessionrep.write-quota?)"), e.getMessage());
        p.remove("sessionrep.write-qouta");
        p.setProperty("sessionrep.write-quota", "4");
        assertEquals(4, ReplicationConfig.fromProperties(p, "sessionrep.").writeQuota());
    }

    @Test
    void describeListsEveryOptionInCanonicalSpellingWithDefaultsMarked() {
        ReplicationConfig c = ReplicationConfig.fromMap(Map.of("write-quota", "2", "peers", "a:7800,[::1]:7801"));
        String described = c.describe();
        List<String> lines = described.lines().toList();
        assertEquals(ReplicationConfig.OPTION_NAMES.size(), lines.size());
        for (int i = 0; i < lines.size(); i++) {
            assertTrue(lines.get(i).startsWith(ReplicationConfig.OPTION_NAMES.get(i) + " "), lines.get(i));
        }
        assertTrue(described.contains("write-quota             = 2\n"), described);
        assertTrue(described.contains("peers                   = a:7800,[::1]:7801\n"), described);
        assertTrue(described.contains("sync-timeout            = 500ms (default)"), described);
        assertTrue(described.contains("max-session-size        = 1MiB (default)"), described);
        assertTrue(described.contains("cluster-key             = (not set) (default)"), described);
        assertTrue(c.toString().startsWith("ReplicationConfig{node-name=" + c.nodeName() + ", "), c.toString());
        assertTrue(c.toString().contains("write-quota=2, "), c.toString());
    }

    @Test
    void describedValuesReadBack() {
        ReplicationConfig c = ReplicationConfig.fromMap(Map.of("sync-timeout", "PT1.5S", "max-session-size", "64KB",
                "async-queue-bytes", "2GiB", "serialization-allowlist", "com.example.*"));
        Function<String, String> valueOf = option -> c.describe().lines()
                .filter(l -> l.startsWith(option + " ")).findFirst().orElseThrow()
                .replaceFirst("^\\S+\\s+= ", "").replace(" (default)", "");
        ReplicationConfig back = ReplicationConfig.fromMap(Map.of(
                "sync-timeout", valueOf.apply("sync-timeout"),
                "max-session-size", valueOf.apply("max-session-size"),
                "async-queue-bytes", valueOf.apply("async-queue-bytes"),
                "serialization-allowlist", valueOf.apply("serialization-allowlist")));
        assertEquals(c.syncTimeout(), back.syncTimeout());
        assertEquals(c.maxSessionSize(), back.maxSessionSize());
        assertEquals(2 * GIB, back.asyncQueueBytes());
        assertEquals(List.of("com.example."), back.serializationAllowlist());
    }

    @Test
    void ignoredPathsMatchStaticFilesByDefaultAndTakeAPatternOrNone() {
        IgnoredPaths defaults = ReplicationConfig.builder().build().ignoredPaths();
        assertTrue(defaults.matches("/css/site.css"));
        assertTrue(defaults.matches("/img/logo.JPEG".toLowerCase()));
        assertTrue(defaults.matches("/fonts/a.woff2"));
        assertFalse(defaults.matches("/cart"));
        assertFalse(defaults.matches("/page.html"));
        assertFalse(defaults.matches("/api/site.css/items"), "the whole path must match");

        IgnoredPaths custom = ReplicationConfig.fromMap(Map.of("ignored-paths", "/(health|static/.*)")).ignoredPaths();
        assertTrue(custom.matches("/health"));
        assertTrue(custom.matches("/static/x.js"));
        assertFalse(custom.matches("/site.css"), "a pattern of one's own replaces the default");

        IgnoredPaths none = ReplicationConfig.fromMap(Map.of("ignored-paths", "None")).ignoredPaths();
        assertFalse(none.any());
        assertFalse(none.matches("/site.css"));
        assertEquals(defaults, ReplicationConfig.fromMap(Map.of("ignored-paths", " ")).ignoredPaths(),
                "blank means not set, as for every option");

        ConfigException bad = assertThrows(ConfigException.class,
                () -> ReplicationConfig.fromMap(Map.of("ignored-paths", "*.css")));
        assertTrue(bad.getMessage().startsWith("ignored-paths: '*.css' is not allowed; expected a Java regular"
                + " expression"), bad.getMessage());
        assertTrue(bad.getMessage().contains("static-files or none"), bad.getMessage());
        assertEquals(IgnoredPaths.DEFAULT, ReplicationConfig.fromMap(Map.of("ignored-paths", "static-files")).ignoredPaths());
        assertEquals("static-files", IgnoredPaths.DEFAULT.toString());
    }
}
