package io.sessionrep.core.filter;

import io.sessionrep.core.config.ConfigException;
import org.junit.jupiter.api.Test;

import java.security.SecureRandom;
import java.util.HashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FilterSettingsTest {

    @Test
    void initParamsAreTheCanonicalOptionsAndSystemPropertiesOverrideThemPerNode() {
        Properties system = new Properties();
        system.setProperty("sessionrep.node-name", "node-b");
        system.setProperty("sessionrep.write-quota", "2");
        system.setProperty("unrelated.write-quota", "9");
        FilterSettings settings = FilterSettings.from(Map.of("write-quota", "1", "cluster-name", "shop",
                "node-name", "node-a"), system);
        assertEquals("node-b", settings.config().nodeName());
        assertEquals(2, settings.config().writeQuota());
        assertEquals("shop", settings.config().clusterName());
        assertEquals(FilterSettings.DEFAULT_COOKIE_NAME, settings.cookieName());
        assertTrue(settings.sessionListeners().isEmpty());
    }

    @Test
    void filterOwnOptions() {
        FilterSettings settings = FilterSettings.from(Map.of("cookie-name", "MYSESSION",
                "session-listeners", "a.B, c.D\n e.F"), new Properties());
        assertEquals("MYSESSION", settings.cookieName());
        assertEquals(java.util.List.of("a.B", "c.D", "e.F"), settings.sessionListeners());
    }

    @Test
    void badValuesNameTheOption() {
        ConfigException quota = assertThrows(ConfigException.class,
                () -> FilterSettings.from(Map.of("write-quota", "-1"), new Properties()));
        assertEquals("write-quota", quota.option());
        ConfigException cookie = assertThrows(ConfigException.class,
                () -> FilterSettings.from(Map.of("cookie-name", "bad name;"), new Properties()));
        assertEquals("cookie-name", cookie.option());
        ConfigException metrics = assertThrows(ConfigException.class,
                () -> FilterSettings.from(Map.of("metrics", "jmx-remote"), new Properties()));
        assertEquals("metrics: 'jmx-remote' is not allowed; expected one of jmx, none", metrics.getMessage());
        Properties system = new Properties();
        system.setProperty("sessionrep.write-qouta", "1");
        ConfigException typo = assertThrows(ConfigException.class, () -> FilterSettings.from(Map.of(), system));
        assertTrue(typo.getMessage().contains("write-quota"), typo.getMessage());
    }

    @Test
    void idsHave160RandomBitsAndOnlyWellFormedCookieValuesAreLookedUp() {
        SessionIds ids = new SessionIds(new SecureRandom());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String id = ids.next();
            assertEquals(27, id.length());
            assertTrue(seen.add(id));
            assertEquals(id, SessionIds.clusterId(SessionIds.cookieValue(id, "node-a")));
            assertEquals(id, SessionIds.clusterId(id));
        }
        assertTrue(SessionIds.RANDOM_BYTES * 8 >= 128);
        assertNull(SessionIds.clusterId("short.node-a"));
        assertNull(SessionIds.clusterId("../../../etc/passwd-aaaaaaaaaaaa.node-a"));
        assertNull(SessionIds.clusterId(null));
    }
}
