package io.sessionrep.tomcat;

import io.sessionrep.core.RestoredSession;
import org.apache.catalina.Session;
import org.apache.catalina.session.StandardSession;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * A session brought here from another node is a new Tomcat session object, and the requests of this node
 * that wait for it all find it at once. Tomcat creates a session's {@code HttpSession} facade lazily and
 * without a lock: if the facade were made after publication, two of those requests could each get their
 * own, and an application that synchronizes on its {@code HttpSession} would not exclude them from each
 * other (the perf runner's scenario 9 lost version increments that way). No Tomcat started.
 */
class RestoredSessionFacadeTest {

    @Test
    void theFacadeExistsBeforeTheRestoredSessionIsPublished() throws Exception {
        Field facade = StandardSession.class.getDeclaredField("facade");
        facade.setAccessible(true);
        List<Object> facadeAtPublication = new ArrayList<>();
        ReplicatedSessionManager manager = new ReplicatedSessionManager() {
            @Override
            public void add(Session session) {
                try {
                    facadeAtPublication.add(facade.get(session));
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
                super.add(session);
            }
        };
        ReplicatedSession session = new ReplicatedSession(manager);
        long now = System.currentTimeMillis();
        session.restore(new RestoredSession("abc", now, now, 1800, Map.of("k", "v"), 3), "abc.node-a");

        assertEquals(1, facadeAtPublication.size(), "published once, under its local id");
        assertNotNull(facadeAtPublication.get(0), "the facade was made before other threads could find the session");
        assertSame(facadeAtPublication.get(0), session.getSession(), "every request gets that one facade");
        assertSame(session, manager.findSession("abc.node-a"));
    }
}
