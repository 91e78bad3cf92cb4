package io.sessionrep.core.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The tls-* options and insecure-cluster: parsing, masking, and the rules between them. */
class SecurityOptionsTest {

    private static Map<String, String> tls() {
        Map<String, String> options = new HashMap<>();
        options.put("tls-keystore", "/etc/sessionrep/node.p12");
        options.put("tls-keystore-password", "keystore-secret");
        options.put("tls-truststore", "/etc/sessionrep/trust.p12");
        options.put("tls-truststore-password", "truststore-secret");
        return options;
    }

    private static ConfigException refused(Map<String, String> options) {
        return assertThrows(ConfigException.class, () -> ReplicationConfig.fromMap(options));
    }

    @Test
    void defaultsAreNoTlsAndASecureCluster() {
        ReplicationConfig c = ReplicationConfig.builder().build();
        assertFalse(c.tlsEnabled());
        assertNull(c.tlsKeystore());
        assertEquals("pkcs12", c.tlsKeystoreType());
        assertEquals("pkcs12", c.tlsTruststoreType());
        assertFalse(c.insecureCluster());
    }

    @Test
    void tlsOptionsAreParsedAndThePasswordsNeverShown() {
        Map<String, String> options = tls();
        options.put("tls-keystore-type", "JKS");
        ReplicationConfig c = ReplicationConfig.fromMap(options);
        assertTrue(c.tlsEnabled());
        assertEquals("/etc/sessionrep/node.p12", c.tlsKeystore());
        assertEquals("keystore-secret", c.tlsKeystorePassword());
        assertEquals("jks", c.tlsKeystoreType());
        assertEquals("truststore-secret", c.tlsTruststorePassword());
        for (String shown : new String[] {c.describe(), c.toString()}) {
            assertFalse(shown.contains("keystore-secret") || shown.contains("truststore-secret"), shown);
            assertTrue(shown.contains("/etc/sessionrep/node.p12"), shown);
        }
    }

    @Test
    void passwordsMayComeFromAFileAndAreNotEchoedWhenWrong(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("password");
        Files.writeString(file, "from-a-file\nignored second line\n");
        Map<String, String> options = tls();
        options.put("tls-truststore-password", "file:" + file);
        assertEquals("from-a-file", ReplicationConfig.fromMap(options).tlsTruststorePassword());
        options.put("tls-truststore-password", "file:" + dir.resolve("missing"));
        ConfigException e = refused(options);
        assertEquals("tls-truststore-password", e.option());
        assertTrue(e.getMessage().contains("cannot be read"), e.getMessage());
    }

    @Test
    void storeTypesArePkcs12OrJks() {
        Map<String, String> options = tls();
        options.put("tls-truststore-type", "pem");
        ConfigException e = refused(options);
        assertEquals("tls-truststore-type", e.option());
        assertTrue(e.getMessage().contains("expected pkcs12 or jks"), e.getMessage());
    }

    @Test
    void tlsNeedsBothStoresAndBothPasswords() {
        for (String missing : tls().keySet()) {
            Map<String, String> options = tls();
            options.remove(missing);
            ConfigException e = refused(options);
            assertTrue(e.getMessage().contains("tls-"), missing + ": " + e.getMessage());
            assertTrue(e.getMessage().contains(missing) || e.option().equals(missing), missing + ": " + e.getMessage());
        }
        ConfigException typeAlone = refused(Map.of("tls-keystore-type", "jks"));
        assertEquals("tls-keystore-type", typeAlone.option());
    }

    @Test
    void tlsIsRefusedWithMulticastDiscoveryAndWithJgroupsConfig() {
        Map<String, String> multicast = tls();
        multicast.put("discovery", "multicast");
        ConfigException e = refused(multicast);
        assertEquals("tls-keystore", e.option());
        assertTrue(e.getMessage().contains("not supported with multicast discovery"), e.getMessage());

        Map<String, String> mping = tls();
        mping.put("discovery", "dynamic");
        assertEquals("tls-keystore", refused(mping).option(), "dynamic-discovery defaults to multicast");
        mping.put("dynamic-discovery", "dns");
        mping.put("dns-query", "sessions.example");
        assertTrue(ReplicationConfig.fromMap(mping).tlsEnabled());

        Map<String, String> xml = tls();
        xml.put("jgroups-config", "/etc/stack.xml");
        assertEquals("tls-keystore", refused(xml).option());
    }

    @Test
    void insecureClusterIsRefusedTogetherWithCredentials() {
        Map<String, String> withTls = tls();
        withTls.put("insecure-cluster", "true");
        assertEquals("insecure-cluster", refused(withTls).option());
        ConfigException withKey = refused(Map.of("insecure-cluster", "true", "cluster-key", "a-long-enough-secret"));
        assertEquals("insecure-cluster", withKey.option());
        assertTrue(ReplicationConfig.fromMap(Map.of("insecure-cluster", "TRUE")).insecureCluster());
        assertEquals("insecure-cluster", refused(Map.of("insecure-cluster", "yes")).option());
    }

    @Test
    void clusterKeyAndTlsMayBeCombined() {
        Map<String, String> options = tls();
        options.put("cluster-key", "a-long-enough-secret");
        ReplicationConfig c = ReplicationConfig.fromMap(options);
        assertTrue(c.tlsEnabled());
        assertEquals("a-long-enough-secret", c.clusterKey());
    }
}
