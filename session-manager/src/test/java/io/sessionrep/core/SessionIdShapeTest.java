package io.sessionrep.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionIdShapeTest {
    private final SessionIdShape tomcat = SessionIdShape.exactly(32, SessionIdShape.UPPER_HEX);

    @Test
    void anIdOfTheIssuedShapeWithANodeNameAsRouteMatches() {
        assertTrue(tomcat.matches("0123456789ABCDEF0123456789ABCDEF.node-a"));
        assertEquals("node-a", SessionIdShape.route("0123456789ABCDEF0123456789ABCDEF.node-a"));
    }

    @Test
    void everyOtherShapeIsRefused() {
        String id = "0123456789ABCDEF0123456789ABCDEF";
        assertFalse(tomcat.matches(id), "no route");
        assertFalse(tomcat.matches(id + "."), "empty route");
        assertFalse(tomcat.matches(id.toLowerCase() + ".node-a"), "alphabet");
        assertFalse(tomcat.matches(id.substring(1) + ".node-a"), "length");
        assertFalse(tomcat.matches(id + ".node-a.node-b"), "two routes");
        assertFalse(tomcat.matches(id + ".node~a"), "no node name");
        assertFalse(tomcat.matches(id + "." + "r".repeat(65)), "route too long");
        assertFalse(tomcat.matches(".node-a"));
        assertFalse(tomcat.matches("é".repeat(32) + ".node-a"));
        assertFalse(tomcat.matches("A".repeat(5000) + ".node-a"));
        assertFalse(tomcat.matches(null));
    }

    @Test
    void aRequestHasTheClusterAskedAboutTwoIdsAtMost() {
        try (RequestLookups lookups = RequestLookups.open(java.util.List.of("a.x", "b.x", "c.x"))) {
            assertEquals("b.x", lookups.named("b"));
            assertTrue(lookups.spend("a"));
            assertTrue(lookups.spend("b"));
            assertTrue(lookups.spend("a"), "the same id again");
            assertFalse(lookups.spend("c"));
            assertEquals(lookups, RequestLookups.current());
        }
        assertEquals(null, RequestLookups.current());
    }
}
