package io.sessionrep.core;

import io.sessionrep.core.transport.ForwardingTransport;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link ReadinessContract} over the in-memory network, and what the transport reports as a partial cluster. */
class InMemoryReadinessTest extends ReadinessContract {
    private static volatile List<String> signsOfA = List.of();

    InMemoryReadinessTest() {
        super(ContractNetwork.inMemory().wrapping("a", t -> new ForwardingTransport(t) {
            @Override
            public List<String> partialClusterSigns() {
                return signsOfA;
            }
        }));
    }

    @Test
    void whatTheTransportSeesOfAPartialClusterIsAReason() {
        SessionReplicator a = node("a");
        await().atMost(Duration.ofSeconds(10)).until(() -> a.readiness().ready());
        signsOfA = List.of("configured peer 10.0.0.2:7800 is up (accepts connections) but not in this node's view");
        try {
            assertEquals(Readiness.notReady(signsOfA.get(0)), a.readiness());
        } finally {
            signsOfA = List.of();
        }
        assertEquals(Readiness.READY, a.readiness());
    }
}
