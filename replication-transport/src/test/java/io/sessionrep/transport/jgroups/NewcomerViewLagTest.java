package io.sessionrep.transport.jgroups;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.RestoredSession;
import io.sessionrep.core.SessionEvents;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.transport.Member;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node that has just joined sends to a member that installs the new view late (its view messages are
 * delayed by {@link ViewDelay}, as on a busy machine): the member must handle the newcomer's messages as
 * a member's, not refuse them as a stranger's (docs/operations.md, 5.8).
 */
@Timeout(60)
class NewcomerViewLagTest {

    private static final long VIEW_DELAY_MS = 1_500;

    private final TestNodes nodes = new TestNodes();
    private final List<SessionReplicator> engines = new ArrayList<>();

    @AfterEach
    void close() {
        engines.forEach(SessionReplicator::close);
        nodes.close();
    }

    @Test
    void aJoinersFirstRequestReachesTheMemberOnlyOnceThatMembersViewHoldsTheJoiner() throws Exception {
        int[] ports = TestNodes.freePorts(3);
        AtomicReference<JGroupsTransport> bRef = new AtomicReference<>();
        AtomicBoolean joinerInViewAtDelivery = new AtomicBoolean();
        RecordingReceiver onB = new RecordingReceiver().answering((sender, message) -> {
            joinerInViewAtDelivery.set(bRef.get().members().stream().anyMatch(m -> m.name().equals("c")));
            return message;
        });
        JGroupsTransport a = nodes.start(nodes.staticNode("a", ports[0], ports[1]), new RecordingReceiver());
        JGroupsTransport b = nodes.start(nodes.staticNode("b", ports[1], ports[0]), onB);
        bRef.set(b);
        await().atMost(Duration.ofSeconds(20)).until(() -> a.members().size() == 2 && b.members().size() == 2);
        ViewDelay.install(b.channel(), VIEW_DELAY_MS);

        JGroupsTransport c = nodes.start(nodes.staticNode("c", ports[2], ports[0], ports[1]), new RecordingReceiver());
        assertEquals(3, c.members().size(), "the joiner has the new view from its join response");
        Member memberB = c.members().stream().filter(m -> m.name().equals("b")).findFirst().orElseThrow();
        byte[] sent = {1, 2, 3};
        byte[] reply = c.request(memberB, sent, Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);

        assertArrayEquals(sent, reply);
        assertTrue(joinerInViewAtDelivery.get(), "b's receiver saw c's request only once b's view held c");
        assertTrue(b.counters().heldForView() >= 1, "b held c's request for its view: " + b.counters());
        assertEquals(0, b.counters().heldInVain());
    }

    @Test
    void aJoinerTakesOverASessionFromAnOwnerWhoseViewLags() throws Exception {
        int[] ports = TestNodes.freePorts(3);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ReplicationConfig configA = nodes.staticNode("a", ports[0], ports[1]);
        ReplicationConfig configB = nodes.staticNode("b", ports[1], ports[0]);
        JGroupsTransport transportB = new JGroupsTransport(configB);
        SessionReplicator a = engine(configA, new JGroupsTransport(configA), meters);
        SessionReplicator b = engine(configB, transportB, meters);
        await().atMost(Duration.ofSeconds(20)).until(() -> a.members().size() == 2 && b.members().size() == 2);
        TestSession session = new TestSession("s-lag", System.currentTimeMillis()).set("count", 7);
        b.requestEnd(session, session.tracker); // b owns the session
        ViewDelay.install(transportB.channel(), VIEW_DELAY_MS);

        ReplicationConfig configC = nodes.staticNode("c", ports[2], ports[0], ports[1]);
        SessionReplicator c = engine(configC, new JGroupsTransport(configC), meters);
        Optional<RestoredSession> taken = c.takeOver("s-lag"); // ownership-timeout: 5 s

        assertTrue(taken.isPresent(), "c found the session");
        assertEquals(7, taken.get().attributes().get("count"), "with its state");
        assertTrue(c.isPrimary("s-lag"));
        assertEquals(0, meters.find(ReplicationMetrics.OWNERSHIP_TIMEOUTS).counters().stream()
                .mapToDouble(x -> x.count()).sum(), "no request would have been refused with 503");
        assertTrue(transportB.counters().heldForView() >= 1, "b held c's request for its view: " + transportB.counters());
    }

    private SessionReplicator engine(ReplicationConfig config, JGroupsTransport transport, SimpleMeterRegistry meters) {
        nodes.track(transport);
        SessionReplicator engine = SessionReplicator.start(config, transport, getClass().getClassLoader(), meters,
                SessionEvents.NONE);
        engines.add(engine);
        return engine;
    }
}
