package io.sessionrep.boot;

import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Makes the node's readiness ({@link io.sessionrep.core.Readiness}: in a cluster view, write-quota restored,
 * no sessions of a departed node waiting) part of Boot's readiness state, the one behind
 * {@code /actuator/health/readiness}: once the application is ready, it checks the node every
 * {@link #INTERVAL} and publishes {@link ReadinessState#REFUSING_TRAFFIC} while the node is not ready, then
 * {@link ReadinessState#ACCEPTING_TRAFFIC} again when it is (only to undo its own refusal: a refusal published
 * by another part of the application is left alone). Nothing while no embedded container has installed the node.
 */
final class ReadinessPublisher {

    /** How often the node is checked (the check reads every owned session: meant for seconds, not requests). */
    static final Duration INTERVAL = Duration.ofSeconds(1);

    private final LocalNode node;
    private final ApplicationAvailability availability;
    private final ApplicationEventPublisher events;
    private ScheduledExecutorService checks;
    /** Whether the current refusal is this publisher's. */
    private boolean refusing;

    ReadinessPublisher(LocalNode node, ApplicationAvailability availability, ApplicationEventPublisher events) {
        this.node = node;
        this.availability = availability;
        this.events = events;
    }

    @EventListener(ApplicationReadyEvent.class)
    public synchronized void start() {
        if (checks == null) {
            checks = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "sessionrep-readiness");
                thread.setDaemon(true);
                return thread;
            });
            checks.scheduleWithFixedDelay(this::check, 0, INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @EventListener(ContextClosedEvent.class)
    public synchronized void stop() {
        if (checks != null) {
            checks.shutdownNow();
            checks = null;
        }
    }

    /** One check: refuse while the node is not ready, accept again once it is. */
    synchronized void check() {
        if (!node.isInstalled()) {
            return; // no embedded container installed it: nothing of this node to report
        }
        boolean ready = node.readiness().ready();
        ReadinessState state = availability.getReadinessState();
        if (!ready && state == ReadinessState.ACCEPTING_TRAFFIC) {
            refusing = true;
            AvailabilityChangeEvent.publish(events, this, ReadinessState.REFUSING_TRAFFIC);
        } else if (ready && refusing) {
            refusing = false;
            if (state == ReadinessState.REFUSING_TRAFFIC) {
                AvailabilityChangeEvent.publish(events, this, ReadinessState.ACCEPTING_TRAFFIC);
            }
        }
    }
}
