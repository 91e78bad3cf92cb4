package io.sessionrep.testservlet.discovery;

import io.sessionrep.testservlet.NodeProcess;
import io.sessionrep.testservlet.NonStickyLoad;
import io.sessionrep.testservlet.SessionClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A static ring started all at once (a full restart, a StatefulSet started in parallel): eight node JVMs on
 * 127.0.0.1, each listing only its predecessor in {@code peers}, launched together. They must be one view
 * within {@link #ONE_VIEW_AFTER_READY} of the last READY line, and then round robin over the eight (every
 * request of a session on the next node) must find every session. A cluster split in two halves answers
 * 404 for the sessions of the other half, which this counts as lost.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ColdStartRingIT {

    static final int NODES = 8;
    /** Measured on an idle 2-core machine: see docs/discovery.md; the rest is margin for a loaded CI machine. */
    static final Duration ONE_VIEW_AFTER_READY = Duration.ofSeconds(10);
    private static final Duration LOAD = Duration.ofSeconds(6);

    private ColdStart start;

    @AfterEach
    void stop() {
        if (start != null) {
            start.close();
        }
    }

    @Test
    void ringStartedTogetherFormsOneViewAndLosesNoSession() throws Exception {
        start = ColdStart.launch(Scenario.cluster(NODES).jvmArgs(ColdStart.NODE_JVM).readyTimeout(Duration.ofSeconds(90)));
        long oneView = start.awaitOneView(ONE_VIEW_AFTER_READY);
        System.out.println("[cold start] " + NODES + " nodes READY " + start.readyMs() + " ms after the launch, views"
                + " then " + start.viewsAtReady() + "; one view " + oneView + " ms after the launch ("
                + (oneView - start.readyMs()) + " ms after the last READY)");

        List<URI> nodes = start.cluster().nodes().stream().map(NodeProcess::sessionUri).toList();
        NonStickyLoad.Result result = NonStickyLoad.roundRobin(nodes, SessionClient.COOKIE, 4, LOAD, NODES - 1);
        System.out.println("[cold start] round robin over " + NODES + " nodes: " + result);
        assertTrue(result.sessions() >= 8, "the load ran: " + result);
        assertEquals(0, result.lost(), "every session found with every update: " + result);
        assertEquals(0, result.errors(), "no request failed (a 404 is a session not found): " + result);
    }
}
