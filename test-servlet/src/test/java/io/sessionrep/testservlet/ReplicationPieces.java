package io.sessionrep.testservlet;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.jetty.ReplicatedSessions;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.junit.jupiter.api.Assumptions;

import java.util.Map;

/**
 * Replicated tests need the config parser and the Jetty integration, built in parallel with this module.
 * While either is still the stub (it throws {@link UnsupportedOperationException}) those tests are
 * reported as skipped, not passed; any other failure of the pieces fails the tests as usual.
 */
final class ReplicationPieces {

    private ReplicationPieces() {
    }

    /** The config parser ({@code ReplicationConfig.fromMap}) is implemented. */
    static ReplicationConfig assumeConfigLanded() {
        try {
            return ReplicationConfig.fromMap(Map.of("node-name", "probe", "cluster-name",
                    "probe-" + ProcessHandle.current().pid()));
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("ReplicationConfig.fromMap is still a stub: " + e.getMessage());
            throw e;
        }
    }

    /** The config parser and the Jetty integration are implemented. */
    static void assumeLanded() {
        ReplicationConfig config = assumeConfigLanded();
        try {
            // never started: installing on a context that does not start must not start a node
            ReplicatedSessions.install(new ServletContextHandler(ServletContextHandler.SESSIONS), config,
                    new SimpleMeterRegistry());
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("ReplicatedSessions.install is still a stub: " + e.getMessage());
        } catch (RuntimeException e) {
            // it may want a server or a started context; the node processes will show real problems
        }
    }
}
