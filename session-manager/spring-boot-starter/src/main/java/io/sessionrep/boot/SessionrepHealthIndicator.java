package io.sessionrep.boot;

import io.sessionrep.core.Readiness;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code sessionrep} component of {@code /actuator/health}: UP when the node is settled in its cluster
 * ({@link Readiness}), OUT_OF_SERVICE with the reasons otherwise. Its state also reaches Boot's readiness state
 * ({@link ReadinessPublisher}), so the {@code readiness} probe refuses traffic while the node is not ready.
 */
final class SessionrepHealthIndicator implements HealthIndicator {

    private final LocalNode node;

    SessionrepHealthIndicator(LocalNode node) {
        this.node = node;
    }

    @Override
    public Health health() {
        if (!node.isInstalled()) {
            return Health.unknown().withDetail("reason", "no embedded web server installed session replication").build();
        }
        NodeReport report = NodeReport.of(node);
        Health.Builder health = report.ready() ? Health.up() : Health.outOfService();
        health.withDetail("node", report.node()).withDetail("members", report.members())
                .withDetail("sessionsOwned", report.sessionsOwned())
                .withDetail("sessionsBackedUp", report.sessionsBackedUp())
                .withDetail("sessionsBelowQuota", report.sessionsBelowQuota());
        if (!report.ready()) {
            health.withDetail("notReadyReasons", report.notReadyReasons());
        }
        return health.build();
    }
}
