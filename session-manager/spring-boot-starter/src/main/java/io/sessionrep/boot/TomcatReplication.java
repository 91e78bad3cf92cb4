package io.sessionrep.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.sessionrep.core.config.ConfigOption;
import io.sessionrep.tomcat.ReplicatedSessionManager;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;

/**
 * Embedded Tomcat: the application's context gets a {@link ReplicatedSessionManager} configured with the
 * {@code sessionrep.*} options (as the {@code <Manager>} element of a standalone Tomcat would be), and the meters
 * go to the application's {@link MeterRegistry}.
 */
final class TomcatReplication implements WebServerFactoryCustomizer<TomcatServletWebServerFactory> {

    private final LocalNode node;
    private final ObjectProvider<MeterRegistry> meters;

    TomcatReplication(LocalNode node, ObjectProvider<MeterRegistry> meters) {
        this.node = node;
        this.meters = meters;
    }

    @Override
    public void customize(TomcatServletWebServerFactory factory) {
        factory.addContextCustomizers(context -> {
            ReplicatedSessionManager manager = new ReplicatedSessionManager();
            node.settings().options().forEach((option, value) ->
                    manager.setProperty(ConfigOption.forKey(option).orElseThrow().attributeName(), value));
            manager.setMeterRegistry(meters.getIfAvailable());
            context.setManager(manager);
            node.attach(LocalNode.of(manager::readiness, manager::replicator, manager::sessionAdmin));
        });
    }
}
