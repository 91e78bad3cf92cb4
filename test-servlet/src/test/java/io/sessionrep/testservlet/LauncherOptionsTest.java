package io.sessionrep.testservlet;

import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ReplicationConfig;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LauncherOptionsTest {

    @Test
    void defaults() {
        LauncherOptions options = LauncherOptions.parse();
        assertEquals(8080, options.httpPort());
        assertTrue(options.replication());
        assertFalse(options.help());
        assertEquals(Map.of(), options.replicationOptions());
    }

    @Test
    void launcherFlagsAreTakenOutAndTheRestPassedThroughInOrder() {
        LauncherOptions options = LauncherOptions.parse("--node-name=node-a", "--http-port=0", "--bind-port=7801",
                "--peers=127.0.0.1:7800,127.0.0.1:7802", "--replication-mode=sync", "--replication=on");

        assertEquals(0, options.httpPort());
        assertTrue(options.replication());
        assertEquals(List.of("node-name", "bind-port", "peers", "replication-mode"),
                List.copyOf(options.replicationOptions().keySet()));
        assertEquals("127.0.0.1:7800,127.0.0.1:7802", options.replicationOptions().get("peers"));
        assertEquals("node-a", options.nodeName("fallback"));
    }

    @Test
    void valuesAreNotJudgedHereButByReplicationConfig() {
        LauncherOptions options = LauncherOptions.parse("--write-quota=-1", "--no-such-option=x", "--cluster-key=");
        assertEquals(Map.of("write-quota", "-1", "no-such-option", "x", "cluster-key", ""),
                options.replicationOptions());
    }

    @Test
    void replicationOffAndHelp() {
        LauncherOptions options = LauncherOptions.parse("--replication=off", "--help");
        assertFalse(options.replication());
        assertTrue(options.help());
        assertEquals("fallback", options.nodeName("fallback"));
        assertTrue(LauncherOptions.usage().contains("--http-port"));
        assertTrue(LauncherOptions.usage().contains("--replication-mode"));
        assertTrue(LauncherOptions.parse("-h").help());
    }

    @Test
    void helpNamesEveryReplicationOption() {
        for (String option : ReplicationConfig.OPTION_NAMES) {
            assertTrue(LauncherOptions.usage().contains("--" + option + "="), option);
        }
    }

    @Test
    void badLauncherValuesNameTheFlagAndWhatIsAllowed() {
        assertEquals("http-port: 'http' is not allowed; expected a port from 0 to 65535 (0 = any free port)",
                assertThrows(ConfigException.class, () -> LauncherOptions.parse("--http-port=http")).getMessage());
        assertEquals("http-port",
                assertThrows(ConfigException.class, () -> LauncherOptions.parse("--http-port=65536")).option());
        assertEquals("replication: 'yes' is not allowed; expected on or off",
                assertThrows(ConfigException.class, () -> LauncherOptions.parse("--replication=yes")).getMessage());
    }

    @Test
    void malformedFlagsAreRefused() {
        for (String bad : List.of("node-a", "--sync", "-x=1", "--=1")) {
            ConfigException e = assertThrows(ConfigException.class, () -> LauncherOptions.parse(bad), bad);
            assertTrue(e.getMessage().contains("expected --name=value"), e.getMessage());
        }
        ConfigException twice = assertThrows(ConfigException.class,
                () -> LauncherOptions.parse("--bind-port=1", "--bind-port=2"));
        assertEquals("bind-port: given twice; expected each option once", twice.getMessage());
    }
}
