package io.sessionrep.testservlet;

import io.sessionrep.core.config.ConfigException;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

class NodeLauncherTest {

    @Test
    void findsTheConfigurationErrorBehindWrappers() {
        ConfigException config = new ConfigException("write-quota", "-1 is not allowed");
        assertSame(config, NodeLauncher.configurationError(config));
        assertSame(config, NodeLauncher.configurationError(
                new RuntimeException(new InvocationTargetException(config))));
        Exception withSuppressed = new Exception("start failed");
        withSuppressed.addSuppressed(config);
        assertSame(config, NodeLauncher.configurationError(withSuppressed));
        assertNull(NodeLauncher.configurationError(new IllegalStateException("port in use")));
    }
}
