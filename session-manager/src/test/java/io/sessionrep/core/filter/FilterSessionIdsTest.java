package io.sessionrep.core.filter;

import io.sessionrep.core.ReplicationNode;
import org.junit.jupiter.api.Test;

import java.security.SecureRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The filter reads the route of its cookies by the core's one rule ({@link ReplicationNode#clusterId}, which
 * Tomcat's manager uses too): every value it read before (cut at the last dot) reads the same, and a value
 * with a further suffix now finds its session too.
 */
class FilterSessionIdsTest {
    @Test
    void theFiltersCookieValuesReadAsTomcatsIds() {
        String id = new SessionIds(new SecureRandom()).next();
        String cookie = SessionIds.cookieValue(id, "node-a");
        assertEquals(id + ".node-a", cookie);
        assertEquals(id, SessionIds.clusterId(cookie));
        assertEquals(ReplicationNode.clusterId(cookie), SessionIds.clusterId(cookie), "the same rule as Tomcat's");
        assertEquals(id, SessionIds.clusterId(id), "no route");
        assertEquals(id, SessionIds.clusterId(cookie + ".lb1"), "a suffix a balancer appended (was: not found)");
        assertNull(SessionIds.clusterId("." + id), "nothing before the dot");
        assertNull(SessionIds.clusterId(id.substring(1) + ".node-a"), "too short");
        assertNull(SessionIds.clusterId("a.b." + id), "an id is never found after a dot");
    }
}
