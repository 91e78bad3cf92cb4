package io.sessionrep.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.sessionrep.jetty.ReplicatedContext;
import org.eclipse.jetty.ee11.webapp.WebAppContext;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.jetty.servlet.JettyServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;

/**
 * Embedded Jetty: the application's context (Boot's ee11 web application context) gets the replicated session
 * cache and data store ({@link ReplicatedContext}) before it starts, and the meters go to the application's
 * {@link MeterRegistry}.
 */
final class JettyReplication implements WebServerFactoryCustomizer<JettyServletWebServerFactory> {

    private final LocalNode node;
    private final ObjectProvider<MeterRegistry> meters;

    JettyReplication(LocalNode node, ObjectProvider<MeterRegistry> meters) {
        this.node = node;
        this.meters = meters;
    }

    @Override
    public void customize(JettyServletWebServerFactory factory) {
        factory.addServerCustomizers(server -> {
            WebAppContext context = server.getDescendant(WebAppContext.class);
            if (context == null) {
                throw new IllegalStateException("no web application context in the embedded Jetty server " + server);
            }
            ReplicatedContext installed = ReplicatedContext.install(context, context.getSessionHandler(),
                    node.settings().config(), meters.getIfAvailable());
            node.attach(LocalNode.of(installed::readiness, installed::replicator, installed::sessionAdmin));
        });
    }
}
