package io.sessionrep.boot;

import io.sessionrep.core.Readiness;
import org.junit.jupiter.api.Test;
import org.springframework.boot.availability.ApplicationAvailabilityBean;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationEventPublisher;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The node's readiness reaches Boot's readiness state, and only its own refusal is undone. */
class ReadinessPublisherTest {

    private final ApplicationAvailabilityBean availability = new ApplicationAvailabilityBean();
    private final ApplicationEventPublisher events =
            event -> availability.onApplicationEvent((AvailabilityChangeEvent<?>) event);
    private final AtomicReference<Readiness> nodeReadiness = new AtomicReference<>(Readiness.READY);
    private final LocalNode node = new LocalNode(ReplicationSettings.of(Map.of("node-name", "a")));
    private final ReadinessPublisher publisher = new ReadinessPublisher(node, availability, events);

    ReadinessPublisherTest() {
        node.attach(LocalNode.of(nodeReadiness::get, () -> null, () -> null));
        AvailabilityChangeEvent.publish(events, this, ReadinessState.ACCEPTING_TRAFFIC); // the application is ready
    }

    @Test
    void aNodeNotReadyRefusesTrafficUntilItIsReadyAgain() {
        publisher.check();
        assertEquals(ReadinessState.ACCEPTING_TRAFFIC, availability.getReadinessState());

        nodeReadiness.set(Readiness.notReady("restoring write-quota 1 after the last view change"));
        publisher.check();
        assertEquals(ReadinessState.REFUSING_TRAFFIC, availability.getReadinessState());
        publisher.check();
        assertEquals(ReadinessState.REFUSING_TRAFFIC, availability.getReadinessState());

        nodeReadiness.set(Readiness.READY);
        publisher.check();
        assertEquals(ReadinessState.ACCEPTING_TRAFFIC, availability.getReadinessState());
    }

    @Test
    void aRefusalOfAnotherPartIsLeftAlone() {
        AvailabilityChangeEvent.publish(events, this, ReadinessState.REFUSING_TRAFFIC);
        publisher.check();
        assertEquals(ReadinessState.REFUSING_TRAFFIC, availability.getReadinessState());
    }

    @Test
    void withoutAnEmbeddedContainerNothingIsPublished() {
        LocalNode notInstalled = new LocalNode(ReplicationSettings.of(Map.of("node-name", "b")));
        new ReadinessPublisher(notInstalled, availability, events).check();
        assertEquals(ReadinessState.ACCEPTING_TRAFFIC, availability.getReadinessState());
    }
}
