package io.sessionrep.core.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.jmx.JmxMeterRegistry;
import io.sessionrep.core.Readiness;
import io.sessionrep.core.config.MetricsExport;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.admin.SessionAdminMBean;
import io.sessionrep.core.health.ReadinessMBean;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.NotCompliantMBeanException;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import java.lang.management.ManagementFactory;
import java.util.function.Supplier;

/**
 * The registry one replicating web application counts into, as the integrations (Jetty store, Tomcat
 * manager, {@code web.xml} filter) open it when the application starts and close it when it stops:
 * <ul>
 *   <li>the registry the embedding application passed in, if any (Spring Boot's, the test node's
 *       Prometheus registry): it gets the meters as they are;</li>
 *   <li>with {@code metrics=jmx} (the default), also a JMX registry of this application's own, whose
 *       MBeans ({@link JmxExport}) are unregistered by {@link #close()}; none if another application of
 *       the JVM has the same names (warned);</li>
 *   <li>with {@code metrics=none} and no registry passed in, a {@link SimpleMeterRegistry} that exports
 *       nothing (the meters can still be read through {@link #registry()}).</li>
 * </ul>
 * Hand {@link #registry()} to {@code SessionReplicator.start}; close the replicator (which removes its
 * meters) before this. With JMX, the node's readiness is an MBean beside the meters ({@link #exportReadiness}).
 */
public final class NodeMeters implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(NodeMeters.class.getName());

    private final MeterRegistry registry;
    private final JmxMeterRegistry jmx;
    /** Where the readiness MBean goes when the meters go to JMX; null otherwise. */
    private final ObjectName readinessName;
    private volatile boolean readinessRegistered;
    /** Where the session admin MBean goes when the meters go to JMX; null otherwise. */
    private final ObjectName adminName;
    private volatile boolean adminRegistered;

    private NodeMeters(MeterRegistry registry, JmxMeterRegistry jmx, ObjectName readinessName, ObjectName adminName) {
        this.registry = registry;
        this.jmx = jmx;
        this.readinessName = readinessName;
        this.adminName = adminName;
    }

    /**
     * Opens the registry of the node {@code config} describes, serving the web application at
     * {@code contextPath} ({@code ""} and {@code null} are the root, {@code /}).
     *
     * @param application the embedding application's registry, or null
     */
    public static NodeMeters open(ReplicationConfig config, String contextPath, MeterRegistry application) {
        String context = contextPath == null || contextPath.isEmpty() ? "/" : contextPath;
        if (config.metrics() == MetricsExport.NONE || jmxNamesTaken(config, context)) {
            return new NodeMeters(application != null ? application : new SimpleMeterRegistry(), null, null, null);
        }
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        JmxMeterRegistry jmx = JmxExport.registry(config.clusterName(), context, server);
        ObjectName readiness = JmxExport.readinessName(config.clusterName(), context, config.nodeName());
        ObjectName admin = JmxExport.adminName(config.clusterName(), context, config.nodeName());
        if (application == null) {
            return new NodeMeters(jmx, jmx, readiness, admin);
        }
        CompositeMeterRegistry both = new CompositeMeterRegistry();
        both.add(application);
        both.add(jmx);
        return new NodeMeters(both, jmx, readiness, admin);
    }

    /**
     * Whether another web application of this JVM exports under the same names (same cluster-name, context
     * path and node-name: a misconfiguration). Its MBeans are left alone: a second JMX registry could neither
     * register its own nor close without unregistering the other's.
     */
    private static boolean jmxNamesTaken(ReplicationConfig config, String context) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        if (server.queryNames(JmxExport.nodePattern(config.clusterName(), context, config.nodeName()), null)
                .isEmpty()) {
            return false;
        }
        LOG.log(System.Logger.Level.WARNING, "metrics=jmx: MBeans of cluster '" + config.clusterName()
                + "', context '" + context + "', node '" + config.nodeName() + "' are registered already by another"
                + " web application of this JVM; this one's meters are not exported to JMX (give each replicated"
                + " application its own cluster-name)");
        return true;
    }

    /** Where the node's meters go. */
    public MeterRegistry registry() {
        return registry;
    }

    /**
     * With the meters in JMX, registers the node's readiness as the MBean
     * {@code sessionrep:cluster=..,context=..,node=..,type=readiness} (attributes {@code Ready} and
     * {@code NotReadyReasons}, {@link ReadinessMBean}), which asks {@code readiness} at each read; unregistered by
     * {@link #close()}. Without JMX export (metrics=none, or names taken by another application) nothing.
     */
    public void exportReadiness(Supplier<Readiness> readiness) {
        if (readinessName == null) {
            return;
        }
        ReadinessMBean view = new ReadinessMBean() {
            @Override
            public boolean isReady() {
                return readiness.get().ready();
            }

            @Override
            public String getNotReadyReasons() {
                return String.join("; ", readiness.get().reasons());
            }
        };
        try {
            ManagementFactory.getPlatformMBeanServer()
                    .registerMBean(new StandardMBean(view, ReadinessMBean.class), readinessName);
            readinessRegistered = true;
        } catch (NotCompliantMBeanException e) {
            throw new IllegalStateException(e);
        } catch (JMException e) { // the meters' own names were free a moment ago: another application raced us
            LOG.log(System.Logger.Level.WARNING, "metrics=jmx: the readiness MBean " + readinessName + " is not"
                    + " registered: " + e);
        }
    }

    /**
     * With the meters in JMX, registers the node's session operations as the MBean
     * {@code sessionrep:cluster=..,context=..,node=..,type=sessions} ({@link SessionAdminMBean}); unregistered by
     * {@link #close()}. Without JMX export nothing.
     */
    public void exportAdmin(SessionAdminMBean view) {
        if (adminName == null) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer()
                    .registerMBean(new StandardMBean(view, SessionAdminMBean.class), adminName);
            adminRegistered = true;
        } catch (NotCompliantMBeanException e) {
            throw new IllegalStateException(e);
        } catch (JMException e) {
            LOG.log(System.Logger.Level.WARNING, "metrics=jmx: the session admin MBean " + adminName + " is not"
                    + " registered: " + e);
        }
    }

    /**
     * Unregisters the JMX MBeans, the readiness and session admin MBeans included (idempotent). The application's registry stays open: it is not ours (and a
     * composite would close it with itself, so the composite is left as it is).
     */
    @Override
    public void close() {
        if (readinessRegistered) {
            readinessRegistered = false;
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(readinessName);
            } catch (JMException e) {
                LOG.log(System.Logger.Level.DEBUG, "readiness MBean " + readinessName + " was gone already: " + e);
            }
        }
        if (adminRegistered) {
            adminRegistered = false;
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(adminName);
            } catch (JMException e) {
                LOG.log(System.Logger.Level.DEBUG, "session admin MBean " + adminName + " was gone already: " + e);
            }
        }
        if (jmx != null) {
            jmx.close();
        }
    }
}
