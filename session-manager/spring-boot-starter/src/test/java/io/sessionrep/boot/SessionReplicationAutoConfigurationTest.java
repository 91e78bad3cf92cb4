package io.sessionrep.boot;

import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ReplicationMode;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the auto-configuration makes of {@code sessionrep.*} properties, without starting a web server. */
class SessionReplicationAutoConfigurationTest {

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SessionReplicationAutoConfiguration.class));

    @Test
    void propertiesBecomeTheNodesOptions() {
        web.withPropertyValues("sessionrep.write-quota=2", "sessionrep.replication-mode=sync",
                        "sessionrep.sync-timeout=750ms", "sessionrep.node-name=shop-1",
                        "sessionrep.peers=127.0.0.1:7800, 127.0.0.1:7801",
                        "sessionrep.serialization-allowlist=com.example.shop.",
                        "management.endpoints.web.exposure.include=health,sessionrep")
                .run(context -> {
                    ReplicationSettings settings = context.getBean(ReplicationSettings.class);
                    assertEquals(2, settings.config().writeQuota());
                    assertEquals(ReplicationMode.SYNC, settings.config().replicationMode());
                    assertEquals(Duration.ofMillis(750), settings.config().syncTimeout());
                    assertEquals("shop-1", settings.config().nodeName());
                    assertEquals(2, settings.config().peers().size());
                    assertEquals(List.of("com.example.shop."), settings.config().serializationAllowlist());
                    assertTrue(context.getBeansOfType(TomcatReplication.class).size() == 1, "Tomcat customizer");
                    assertTrue(context.getBeansOfType(JettyReplication.class).size() == 1, "Jetty customizer");
                    assertEquals(1, context.getBeansOfType(SessionrepEndpoint.class).size(), "actuator endpoint");
                });
    }

    @Test
    void relaxedNamesBindAsBootBindsThem() {
        web.withPropertyValues("sessionrep.writeQuota=3")
                .run(context -> {
                    ReplicationSettings settings = context.getBean(ReplicationSettings.class);
                    assertEquals(3, settings.config().writeQuota());
                });
    }

    @Test
    void onlyTheContainerOnTheClassPathIsCustomized() {
        web.withClassLoader(new FilteredClassLoader(org.eclipse.jetty.ee11.webapp.WebAppContext.class)).run(context -> {
            assertEquals(1, context.getBeansOfType(TomcatReplication.class).size());
            assertEquals(0, context.getBeansOfType(JettyReplication.class).size());
        });
        web.withClassLoader(new FilteredClassLoader(org.apache.catalina.startup.Tomcat.class)).run(context -> {
            assertEquals(0, context.getBeansOfType(TomcatReplication.class).size());
            assertEquals(1, context.getBeansOfType(JettyReplication.class).size());
        });
    }

    @Test
    void withoutTheActuatorReplicationStillWorks() {
        web.withClassLoader(new FilteredClassLoader(org.springframework.boot.health.contributor.HealthIndicator.class,
                        org.springframework.boot.actuate.endpoint.annotation.Endpoint.class))
                .withPropertyValues("management.endpoints.web.exposure.include=sessionrep")
                .run(context -> {
                    assertNull(context.getStartupFailure());
                    assertEquals(1, context.getBeansOfType(TomcatReplication.class).size());
                    assertFalse(context.containsBean("sessionrepHealthIndicator"));
                    assertEquals(0, context.getBeansOfType(SessionrepEndpoint.class).size());
                });
    }

    @Test
    void theClusterKeyIsNeverShown() {
        web.withPropertyValues("sessionrep.cluster-key=0123456789abcdef0123456789abcdef").run(context -> {
            ReplicationSettings settings = context.getBean(ReplicationSettings.class);
            assertEquals("0123456789abcdef0123456789abcdef", settings.config().clusterKey());
            assertFalse(settings.toString().contains("0123456789abcdef"), settings.toString());
        });
    }

    @Test
    void aListOptionMayBeAList() {
        web.withPropertyValues("sessionrep.peers[0]=127.0.0.1:7800", "sessionrep.peers[1]=127.0.0.1:7801")
                .run(context -> assertEquals(2, context.getBean(ReplicationSettings.class).config().peers().size()));
    }

    @Test
    void aMisspelledPropertyStopsStartUpNamingTheOptionItMeant() {
        web.withPropertyValues("sessionrep.write-qouta=2").run(context -> {
            Throwable failure = context.getStartupFailure();
            assertNotNull(failure, "a misspelled option is not silently ignored");
            FailureAnalysis analysis = new ConfigFailureAnalyzer().analyze(failure);
            assertTrue(analysis.getDescription().contains("sessionrep.write-qouta"), analysis.getDescription());
            assertTrue(analysis.getDescription().contains("did you mean write-quota?"), analysis.getDescription());
        });
    }

    @Test
    void theDefaultNodeNameIsDrawnOnceAndPassedToTheContainer() {
        web.run(context -> {
            ReplicationSettings settings = context.getBean(ReplicationSettings.class);
            assertEquals(settings.config().nodeName(), settings.options().get("node-name"));
        });
    }

    @Test
    void aBadValueStopsStartUpWithAnAnalysisNamingTheProperty() {
        for (String bad : List.of("-1", "abc")) {
            web.withPropertyValues("sessionrep.write-quota=" + bad).run(context -> {
                Throwable failure = context.getStartupFailure();
                assertNotNull(failure, "start-up must fail for write-quota=" + bad);
                FailureAnalysis analysis = new ConfigFailureAnalyzer().analyze(failure);
                assertNotNull(analysis, "analyzed: " + failure);
                assertTrue(analysis.getDescription().contains("sessionrep.write-quota"), analysis.getDescription());
                assertTrue(analysis.getDescription().contains(bad), analysis.getDescription());
                assertTrue(analysis.getDescription().contains("0 to 64"), analysis.getDescription());
                assertTrue(analysis.getAction().contains("0..64"), analysis.getAction());
                assertTrue(analysis.getCause() instanceof ConfigException);
            });
        }
    }

    @Test
    void notAWebApplicationNoReplication() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SessionReplicationAutoConfiguration.class))
                .run(context -> assertFalse(context.containsBean("sessionrepSettings")));
    }

    @Test
    void theEndpointExistsOnlyWhenExposed() {
        web.run(context -> assertEquals(0, context.getBeansOfType(SessionrepEndpoint.class).size()));
    }

    @Test
    void theNodeIsNotReadyBeforeTheContainerInstallsIt() {
        web.withPropertyValues("management.endpoints.web.exposure.include=sessionrep").run(context -> {
            NodeReport report = context.getBean(SessionrepEndpoint.class).node();
            assertFalse(report.ready());
            assertEquals(List.of("not started"), report.notReadyReasons());
            assertEquals(List.of(), report.members());
        });
    }

    @Test
    void theSessionOperationsRefuseAnUnknownCollectionAndAnswerNothingBeforeTheContainerInstallsTheNode() {
        web.withPropertyValues("management.endpoints.web.exposure.include=sessionrep").run(context -> {
            SessionrepEndpoint endpoint = context.getBean(SessionrepEndpoint.class);
            assertNull(endpoint.sessions("sessions", null, null), "not running: a read answers 404");
            assertNull(endpoint.sessionsOf("principals", "alice"));
            org.junit.jupiter.api.Assertions.assertThrows(
                    org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException.class,
                    () -> endpoint.sessions("users", null, null), "400: no such collection");
            org.junit.jupiter.api.Assertions.assertThrows(
                    org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException.class,
                    () -> endpoint.invalidate("principals", "alice"), "400: nothing to invalidate with");
        });
    }
}
