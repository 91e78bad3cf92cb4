package io.sessionrep.core.testing;

import com.sun.tools.attach.VirtualMachine;

import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.Set;

/**
 * Reads a node's meters the way an operator does: as MBeans of domain {@code sessionrep} (see
 * {@code io.sessionrep.core.metrics.JmxExport} for the object names), in this JVM's platform MBeanServer or,
 * like jconsole, in another local JVM attached by its process id.
 */
public final class JmxMeters implements AutoCloseable {
    private final MBeanServerConnection server;
    private final String scope;
    private final JMXConnector connector;

    private JmxMeters(MBeanServerConnection server, String scope, JMXConnector connector) {
        this.server = server;
        this.scope = scope;
        this.connector = connector;
    }

    /** Node {@code node} of cluster {@code cluster} in this JVM. */
    public JmxMeters(String cluster, String node) {
        this(ManagementFactory.getPlatformMBeanServer(), "cluster=" + quoted(cluster) + ",node=" + quoted(node),
                null);
    }

    /** Node {@code node} (any cluster) in the local JVM {@code pid}, through its local JMX agent. Close it. */
    public static JmxMeters attach(long pid, String node) throws IOException {
        String address;
        try {
            VirtualMachine vm = VirtualMachine.attach(String.valueOf(pid));
            try {
                address = vm.startLocalManagementAgent();
            } finally {
                vm.detach();
            }
        } catch (com.sun.tools.attach.AttachNotSupportedException e) {
            throw new IOException("cannot attach to process " + pid, e);
        }
        JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address));
        return new JmxMeters(connector.getMBeanServerConnection(), "node=" + quoted(node), connector);
    }

    /** Every MBean of this node, in any context. */
    public Set<ObjectName> names() {
        return query("sessionrep:" + scope + ",*");
    }

    /**
     * The value of meter {@code meter} (a Micrometer name such as {@code sessionrep.sessions.primary}) with
     * the extra tags {@code tags} (key, value, ...): a gauge's {@code Value}, a counter's {@code Count};
     * -1 when there is no such MBean.
     */
    public double value(String meter, String... tags) {
        StringBuilder pattern = new StringBuilder("sessionrep:" + scope + ",name=" + meter);
        for (int i = 0; i < tags.length; i += 2) {
            pattern.append(',').append(tags[i]).append('=').append(tags[i + 1]);
        }
        Set<ObjectName> found = query(pattern + ",*");
        if (found.isEmpty()) {
            return -1;
        }
        if (found.size() > 1) {
            throw new IllegalStateException("more than one MBean matches " + pattern + ": " + found);
        }
        ObjectName mbean = found.iterator().next();
        try {
            String attribute = "gauges".equals(mbean.getKeyProperty("type")) ? "Value" : "Count";
            return ((Number) server.getAttribute(mbean, attribute)).doubleValue();
        } catch (JMException | IOException e) {
            throw new IllegalStateException("cannot read " + mbean, e);
        }
    }

    private Set<ObjectName> query(String pattern) {
        try {
            return server.queryNames(new ObjectName(pattern), null);
        } catch (JMException | IOException e) {
            throw new IllegalStateException("cannot query " + pattern, e);
        }
    }

    private static String quoted(String value) {
        return value.matches("[A-Za-z0-9_./-]+") ? value : ObjectName.quote(value);
    }

    @Override
    public void close() throws IOException {
        if (connector != null) {
            connector.close();
        }
    }
}
