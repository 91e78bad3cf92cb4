package io.sessionrep.tomcat;

import io.sessionrep.core.config.MetricsExport;
import io.sessionrep.core.config.ReplicationConfig;
import org.apache.tomcat.util.IntrospectionUtils;
import org.junit.jupiter.api.Test;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Manager's attributes are the canonical options, 1:1, in camelCase. No Tomcat started. */
class ManagerAttributesTest {

    /**
     * Set the way Tomcat's digester sets {@code <Manager>} attributes ({@link IntrospectionUtils#setProperty},
     * which falls back to the manager's generic {@code setProperty(name, value)}): every option in camelCase
     * reaches the option, none is taken by a setter of {@link org.apache.catalina.session.ManagerBase}.
     */
    @Test
    void everyCanonicalOptionIsAnAttributeOfTheManager() {
        for (String option : ReplicationConfig.OPTION_NAMES) {
            String attribute = ManagerAttributes.attributeName(option);
            ReplicatedSessionManager manager = new ReplicatedSessionManager();
            assertTrue(IntrospectionUtils.setProperty(manager, attribute, "x"), attribute);
            assertEquals("x", managerAttributes(manager).get(option), attribute + " sets " + option);
        }
    }

    @Test
    void tomcatsOwnAttributesKeepTheirSetters() {
        ReplicatedSessionManager manager = new ReplicatedSessionManager();
        assertTrue(IntrospectionUtils.setProperty(manager, "maxActiveSessions", "7"));
        assertEquals(7, manager.getMaxActiveSessions());
        assertTrue(IntrospectionUtils.setProperty(manager, "pathname", ""));
        assertEquals("web-1", managerAttributes(manager).toConfig("web-1").nodeName(), "no unknown attribute");
    }

    @Test
    void canonicalSpellingIsNotAnAttribute() {
        ReplicatedSessionManager manager = new ReplicatedSessionManager();
        IntrospectionUtils.setProperty(manager, "write-quota", "2");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> managerAttributes(manager).toConfig(null));
        assertTrue(e.getMessage().startsWith("Manager attribute write-quota=\"2\" is unknown"), e.getMessage());
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
        manager.setProperty("metrics", "prometheus");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> managerAttributes(manager).toConfig("web-1"));
        assertEquals("Manager attribute metrics=\"prometheus\" (option metrics): 'prometheus' is not allowed;"
                + " expected one of jmx, none", e.getMessage());
        manager.setProperty("metrics", "none");
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
