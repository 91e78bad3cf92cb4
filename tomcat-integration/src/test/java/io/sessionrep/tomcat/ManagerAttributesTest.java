package io.sessionrep.tomcat;

import io.sessionrep.core.config.MetricsExport;
import io.sessionrep.core.config.ReplicationConfig;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Manager's attributes are the canonical options, 1:1, in camelCase. No Tomcat started. */
class ManagerAttributesTest {

    @Test
    void everyCanonicalOptionIsAStringAttributeOfTheManager() throws Exception {
        for (String option : ReplicationConfig.OPTION_NAMES) {
            String attribute = ManagerAttributes.attributeName(option);
            String setter = "set" + Character.toUpperCase(attribute.charAt(0)) + attribute.substring(1);
            Method method = ReplicatedSessionManager.class.getMethod(setter, String.class);
            ReplicatedSessionManager manager = new ReplicatedSessionManager();
            method.invoke(manager, "x");
            assertEquals("x", managerAttributes(manager).get(option), setter + " sets " + option);
        }
    }

    @Test
    void camelCaseNames() {
        assertEquals("writeQuota", ManagerAttributes.attributeName("write-quota"));
        assertEquals("serializationAllowlist", ManagerAttributes.attributeName("serialization-allowlist"));
        assertEquals("peers", ManagerAttributes.attributeName("peers"));
    }

    @Test
    void jvmRouteIsTheDefaultNodeName() {
        ManagerAttributes attributes = new ManagerAttributes();
        assertEquals("web-1", attributes.toConfig("web-1").nodeName());
        attributes.set("node-name", "web-1");
        assertEquals("web-1", attributes.toConfig("web-1").nodeName(), "equal is fine");
        assertEquals("web-1", attributes.toConfig(null).nodeName());
    }

    @Test
    void messagesNameTheAttributeTheUserWrote() {
        ManagerAttributes attributes = new ManagerAttributes();
        attributes.set("sync-timeout", "soon");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> attributes.toConfig(null));
        assertTrue(e.getMessage().startsWith("Manager attribute syncTimeout=\"soon\" (option sync-timeout): "),
                e.getMessage());

        ManagerAttributes route = new ManagerAttributes();
        e = assertThrows(IllegalArgumentException.class, () -> route.toConfig("tomcat.1"));
        assertTrue(e.getMessage().startsWith("Engine jvmRoute=\"tomcat.1\" cannot be the node name"), e.getMessage());

        ManagerAttributes secret = new ManagerAttributes();
        secret.set("cluster-key", "hunter2");
        e = assertThrows(IllegalArgumentException.class, () -> secret.toConfig(null));
        assertTrue(!e.getMessage().contains("hunter2") && e.getMessage().contains("clusterKey"), e.getMessage());
    }

    @Test
    void metricsAttributeIsCheckedLikeTheOthers() {
        ReplicatedSessionManager manager = new ReplicatedSessionManager();
        manager.setMetrics("prometheus");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> managerAttributes(manager).toConfig("web-1"));
        assertEquals("Manager attribute metrics=\"prometheus\" (option metrics): 'prometheus' is not allowed;"
                + " expected one of jmx, none", e.getMessage());
        manager.setMetrics("none");
        assertEquals(MetricsExport.NONE, managerAttributes(manager).toConfig("web-1").metrics());
    }

    @Test
    void unknownAttributesAreErrors() {
        ReplicatedSessionManager manager = new ReplicatedSessionManager();
        assertTrue(manager.setProperty("writeQouta", "2"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> managerAttributes(manager).toConfig(null));
        assertTrue(e.getMessage().startsWith("Manager attribute writeQouta=\"2\" is unknown"), e.getMessage());
    }

    private static ManagerAttributes managerAttributes(ReplicatedSessionManager manager) {
        return manager.attributes();
    }
}
