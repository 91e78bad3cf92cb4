package io.sessionrep.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.sessionrep.tomcat.ReplicatedSessionManager;
import org.apache.catalina.startup.Tomcat;
import org.eclipse.jetty.ee11.webapp.WebAppContext;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jetty.servlet.JettyServletWebServerFactory;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.security.core.session.SessionRegistry;

/**
 * Replicated sessions for a servlet application on embedded Tomcat or embedded Jetty, configured by the
 * {@code sessionrep.*} properties (the option table's names, {@link PropertyOptions}). A bad value stops start-up
 * naming the property ({@link ConfigFailureAnalyzer}). With Micrometer's registry in the application the meters go
 * there; with the actuator, {@code /actuator/sessionrep} and the {@code sessionrep} health component (also part
 * of the readiness state) show the node.
 */
@AutoConfiguration(after = ApplicationAvailabilityAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public class SessionReplicationAutoConfiguration {

    /** The validated options of this node. */
    @Bean
    @ConditionalOnMissingBean
    ReplicationSettings sessionrepSettings(Environment environment) {
        return ReplicationSettings.of(PropertyOptions.read(environment));
    }

    @Bean
    @ConditionalOnMissingBean
    LocalNode sessionrepNode(ReplicationSettings settings) {
        return new LocalNode(settings);
    }

    /** Spring Security's concurrent-session control across the cluster ({@link ClusterSessionRegistry}). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(SessionRegistry.class)
    static class SpringSecurity {
        @Bean
        @ConditionalOnMissingBean(SessionRegistry.class)
        ClusterSessionRegistry sessionrepSessionRegistry(LocalNode node) {
            return new ClusterSessionRegistry(node);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({Tomcat.class, TomcatServletWebServerFactory.class, ReplicatedSessionManager.class})
    static class EmbeddedTomcat {
        @Bean
        TomcatReplication sessionrepTomcatCustomizer(LocalNode node, ObjectProvider<MeterRegistry> meters) {
            return new TomcatReplication(node, meters);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({WebAppContext.class, JettyServletWebServerFactory.class})
    static class EmbeddedJetty {
        @Bean
        JettyReplication sessionrepJettyCustomizer(LocalNode node, ObjectProvider<MeterRegistry> meters) {
            return new JettyReplication(node, meters);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(ApplicationAvailability.class)
    static class Readiness {
        @Bean
        ReadinessPublisher sessionrepReadinessPublisher(LocalNode node, ApplicationAvailability availability,
                                                        ApplicationEventPublisher events) {
            return new ReadinessPublisher(node, availability, events);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
    @ConditionalOnEnabledHealthIndicator("sessionrep")
    static class Health {
        @Bean
        HealthIndicator sessionrepHealthIndicator(LocalNode node) {
            return new SessionrepHealthIndicator(node);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
    static class Actuator {
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint(SessionrepEndpoint.class)
        SessionrepEndpoint sessionrepEndpoint(LocalNode node) {
            return new SessionrepEndpoint(node);
        }
    }
}
