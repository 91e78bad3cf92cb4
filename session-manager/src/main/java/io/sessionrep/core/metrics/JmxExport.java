package io.sessionrep.core.metrics;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.SlidingWindowReservoir;
import com.codahale.metrics.Timer;
import com.codahale.metrics.jmx.JmxReporter;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.jmx.JmxConfig;
import io.micrometer.jmx.JmxMeterRegistry;

import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Micrometer's {@link JmxMeterRegistry} for one node of one web application, with object names that say
 * whose meter it is:
 * <pre>sessionrep:cluster=shop,context=/shop,node=node-a,name=sessionrep.sessions.primary,type=gauges</pre>
 * {@code cluster} and {@code context} come from the node (not from tags: the meters of an application's own
 * registry stay as they are), {@code node} and any further tag ({@code kind}, {@code reason},
 * {@code source}) from the meter, {@code type} from Dropwizard's JMX reporter ({@code gauges},
 * {@code meters} for counters, {@code timers}). Two web applications of one JVM never share a name as long
 * as they differ in cluster, context or node name.
 *
 * <p>A timer's percentiles are those of its last {@value #TIMER_SAMPLES} recordings ({@link RecentSamples}).
 */
final class JmxExport {
    /** How many of a timer's latest recordings its percentiles are computed from. */
    static final int TIMER_SAMPLES = 1028;
    static final String DOMAIN = "sessionrep";
    /** Key properties set from the node, never from a meter's tags. */
    private static final Set<String> RESERVED = Set.of("cluster", "context", "node", "name", "type");
    /** Characters that make an ObjectName value need quoting. */
    private static final Pattern NEEDS_QUOTING = Pattern.compile("[,=:\"*?\\\\\\n]");
    private static final JmxConfig CONFIG = new JmxConfig() {
        @Override
        public String get(String key) {
            return null; // every setting at its default
        }

        @Override
        public String domain() {
            return DOMAIN;
        }
    };

    private JmxExport() {
    }

    /** A registry whose meters appear in {@code server} until it is closed. */
    static JmxMeterRegistry registry(String cluster, String context, MBeanServer server) {
        MetricRegistry dropwizard = new RecentSamples();
        JmxReporter reporter = JmxReporter.forRegistry(dropwizard)
                .registerWith(server)
                .inDomain(DOMAIN)
                .createsObjectNamesWith((type, domain, keyProperties) ->
                        objectName(domain + ":" + keyProperties + ",type=" + type))
                .build();
        return new JmxMeterRegistry(CONFIG, Clock.SYSTEM, (id, convention) -> keyProperties(cluster, context, id),
                dropwizard, reporter);
    }

    /** The pattern that matches every MBean of one node: {@code sessionrep:cluster=..,context=..,node=..,*}. */
    static ObjectName nodePattern(String cluster, String context, String node) {
        return objectName(DOMAIN + ":cluster=" + value(cluster) + ",context=" + value(context) + ",node="
                + value(node) + ",*");
    }

    /** The node's readiness MBean: {@code sessionrep:cluster=..,context=..,node=..,type=readiness}. */
    static ObjectName readinessName(String cluster, String context, String node) {
        return objectName(DOMAIN + ":cluster=" + value(cluster) + ",context=" + value(context) + ",node="
                + value(node) + ",type=readiness");
    }

    /** The node's session admin MBean: {@code sessionrep:cluster=..,context=..,node=..,type=sessions}. */
    static ObjectName adminName(String cluster, String context, String node) {
        return objectName(DOMAIN + ":cluster=" + value(cluster) + ",context=" + value(context) + ",node="
                + value(node) + ",type=sessions");
    }

    /** {@code cluster=..,context=..,node=..,name=..[,tag=value...]}: Dropwizard's name for the meter. */
    static String keyProperties(String cluster, String context, Meter.Id id) {
        StringBuilder properties = new StringBuilder()
                .append("cluster=").append(value(cluster))
                .append(",context=").append(value(context));
        String node = id.getTag("node");
        if (node != null) {
            properties.append(",node=").append(value(node));
        }
        properties.append(",name=").append(value(id.getName()));
        for (Tag tag : id.getTagsAsIterable()) {
            if (!RESERVED.contains(tag.getKey())) {
                properties.append(',').append(tag.getKey()).append('=').append(value(tag.getValue()));
            }
        }
        return properties.toString();
    }

    private static ObjectName objectName(String name) {
        try {
            return new ObjectName(name);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("not a JMX object name: " + name, e);
        }
    }

    private static String value(String v) {
        return v.isEmpty() || NEEDS_QUOTING.matcher(v).find() ? ObjectName.quote(v) : v;
    }

    /**
     * Dropwizard's registry with timers that keep their latest {@value #TIMER_SAMPLES} recordings in a ring
     * (a short lock and an array store per recording) instead of the exponentially decaying reservoir
     * Micrometer gives them, which inserts into a skip list under a lock on every recording: the request-end
     * timer is recorded once per request, and that reservoir took 1.5 % of a replicating node's CPU in
     * run {@code profile-20261125e} (in git history).
     */
    private static final class RecentSamples extends MetricRegistry {
        @Override
        public Timer timer(String name, MetricSupplier<Timer> supplier) {
            return super.timer(name, () -> new Timer(new SlidingWindowReservoir(TIMER_SAMPLES)));
        }
    }
}
