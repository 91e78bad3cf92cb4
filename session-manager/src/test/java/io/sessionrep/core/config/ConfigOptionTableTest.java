package io.sessionrep.core.config;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The option table itself: every row is complete and consistent with what the builder holds. */
class ConfigOptionTableTest {

    @Test
    void everyRowIsComplete() {
        for (ConfigOption o : ConfigOption.values()) {
            assertTrue(o.key().matches("[a-z]+(-[a-z]+)*"), o.key());
            assertNotNull(o.layer(), o.key());
            assertFalse(o.doc().isBlank(), o.key());
            assertFalse(o.doc().contains("\n"), "one documentation line: " + o.key());
            assertFalse(o.defaultDoc().isBlank(), o.key());
            assertFalse(o.allowedValues().isBlank(), o.key());
            assertFalse(o.metavar().isBlank(), o.key());
            assertEquals(o, ConfigOption.forAttributeName(o.attributeName()).orElseThrow());
        }
        assertEquals("writeQuota", ConfigOption.WRITE_QUOTA.attributeName());
        assertEquals("tlsKeystorePassword", ConfigOption.TLS_KEYSTORE_PASSWORD.attributeName());
    }

    @Test
    void fixedDefaultsAreDocumentedAsTheyAreWrittenAndReadBack() {
        ReplicationConfig defaults = ReplicationConfig.builder().build();
        Map<String, String> described = defaults.describe().lines()
                .collect(Collectors.toMap(l -> l.substring(0, l.indexOf(' ')),
                        l -> l.replaceFirst("^\\S+\\s+= ", "").replace(" (default)", "")));
        Set<ConfigOption> computed = Set.of(ConfigOption.NODE_NAME, ConfigOption.MACHINE_ID,
                ConfigOption.MAX_BACKUP_BYTES);
        for (ConfigOption o : ConfigOption.values()) {
            String shown = described.get(o.key());
            assertNotNull(shown, o.key());
            if (computed.contains(o)) {
                continue;
            }
            switch (o.defaultDoc()) {
                case "none" -> assertEquals("(not set)", shown, o.key());
                case "empty" -> assertEquals("(none)", shown, o.key());
                default -> {
                    String doc = o.defaultDoc().replaceFirst(" \\(.*", "");
                    assertTrue(shown.startsWith(doc), o.key() + ": " + shown + " vs " + doc);
                    // the documented default, given as text, is the default
                    assertEquals(o.spec().defaultValue(), o.spec().parse(o, doc), o.key());
                }
            }
        }
    }

    @Test
    void transportOptionsAreMarked() {
        assertEquals(ConfigOption.Layer.STACK, ConfigOption.PEERS.layer());
        assertEquals(ConfigOption.Layer.TRANSPORT, ConfigOption.CLUSTER_KEY.layer());
        assertEquals(ConfigOption.Layer.CORE, ConfigOption.WRITE_QUOTA.layer());
        assertTrue(ConfigOption.CLUSTER_KEY.secret() && ConfigOption.TLS_TRUSTSTORE_PASSWORD.secret());
        assertFalse(ConfigOption.TLS_TRUSTSTORE.secret());
    }

    @Test
    void usageHasALinePerOptionWithItsDefault() {
        String usage = ConfigOption.usage("--", "  ");
        for (ConfigOption o : ConfigOption.values()) {
            assertTrue(usage.contains("  --" + o.key() + "=" + o.metavar()), o.key());
            String flat = usage.replaceAll("\\s+", " ");
            assertTrue(flat.contains(o.doc()), o.key());
        }
        assertTrue(usage.contains("--write-quota=N"), usage);
        assertTrue(usage.contains("backup copies per session; 0 = no replication (default: 1)"), usage);
        assertTrue(usage.lines().allMatch(l -> l.length() <= 100), usage);
        assertTrue(usage.contains("--replication-mode=async|sync"), usage);
    }
}
