package io.sessionrep.jetty;

import io.micrometer.core.instrument.MeterRegistry;
import io.sessionrep.core.config.ConfigOption;
import io.sessionrep.core.config.ReplicationConfig;
import org.eclipse.jetty.server.Context;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.session.AbstractSessionDataStoreFactory;
import org.eclipse.jetty.session.AbstractSessionManager;
import org.eclipse.jetty.session.SessionDataStore;
import org.eclipse.jetty.session.SessionIdManager;
import org.eclipse.jetty.session.SessionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Makes a {@link ReplicatedSessionDataStore} for the context of a server that has this factory as a bean.
 * Programmatic users pass a {@link ReplicationConfig}; Jetty XML (and the {@code sessionrep} Jetty module,
 * {@code etc/sessionrep.xml}) passes the canonical option names of the configuration reference (README) one by one
 * ({@code <Call name="setOption"><Arg>write-quota</Arg><Arg>1</Arg></Call>}; a null or blank value means
 * the default) and then calls {@link #validate()}, so a bad value stops the server's start-up with a
 * message naming the option.
 *
 * <p>{@code node-name}, when not set, is the server's session id manager's {@code workerName} (the route
 * suffix of session ids, which must equal it). One factory serves one web application: every context it
 * serves would join the cluster under the same node name, cluster name and ports, so a second context
 * path is refused at its start (a context that restarts, a redeploy, is fine).
 */
public class ReplicatedSessionDataStoreFactory extends AbstractSessionDataStoreFactory {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedSessionDataStoreFactory.class);

    private final Map<String, String> options = new LinkedHashMap<>();
    private ReplicationConfig config;
    private MeterRegistry meters;
    private String contextPath;

    /**
     * For Jetty XML: options are set with {@link #setOption}; the meters are exported as the {@code metrics}
     * option says (JMX by default).
     */
    public ReplicatedSessionDataStoreFactory() {
    }

    /** Meters go to {@code meters} (null: none of the application's) and as {@code metrics} says. */
    public ReplicatedSessionDataStoreFactory(ReplicationConfig config, MeterRegistry meters) {
        this.config = Objects.requireNonNull(config, "config");
        this.meters = meters;
    }

    /** One option by its canonical name ({@code replication-mode}, {@code peers}, ...); null or blank: default. */
    public void setOption(String name, String value) {
        if (config != null) {
            throw new IllegalStateException("configured with a ReplicationConfig already");
        }
        options.put(name, value);
    }

    /** A registry of the embedding application that also gets the meters (besides JMX, if on). */
    public void setMeterRegistry(MeterRegistry meters) {
        this.meters = meters;
    }

    /**
     * Checks the options set so far (Jetty XML calls it after the last {@code setOption}).
     *
     * @throws io.sessionrep.core.config.ConfigException naming the first bad option
     */
    public void validate() {
        synchronized (this) {
            if (config == null) {
                ReplicationConfig.fromMap(options);
            }
        }
    }

    @Override
    public SessionDataStore getSessionDataStore(SessionManager manager) {
        String path = contextPath(manager);
        ReplicationConfig resolved;
        synchronized (this) {
            if (contextPath == null) {
                contextPath = path;
            } else if (!contextPath.equals(path)) {
                throw new IllegalStateException("the sessionrep session store replicates one web application per"
                        + " server, and it serves '" + contextPath + "' already; context '" + path + "' cannot use it"
                        + " (deploy one replicated application per Jetty base, or use the web.xml filter install)");
            }
            if (config == null) {
                Map<String, String> effective = new LinkedHashMap<>(options);
                String nodeName = effective.get(ConfigOption.NODE_NAME.key());
                if (nodeName == null || nodeName.isBlank()) {
                    String workerName = workerName(manager);
                    if (workerName != null) {
                        effective.put(ConfigOption.NODE_NAME.key(), workerName);
                        LOG.info("node-name not set: using the session id manager's workerName '{}'", workerName);
                    }
                }
                config = ReplicationConfig.fromMap(effective);
            }
            resolved = config;
        }
        ReplicatedSessionDataStore store = new ReplicatedSessionDataStore(resolved, meters);
        store.setGracePeriodSec(getGracePeriodSec());
        store.setSavePeriodSec(getSavePeriodSec());
        return store;
    }

    private static String contextPath(SessionManager manager) {
        Context context = manager.getContext();
        return context == null ? "/" : context.getContextPath();
    }

    /** The workerName the context will use: its own id manager's, else the server's (set up first). */
    private static String workerName(SessionManager manager) {
        SessionIdManager ids = manager.getSessionIdManager();
        if (ids == null && manager instanceof AbstractSessionManager managed) {
            Server server = managed.getServer();
            ids = server == null ? null : server.getBean(SessionIdManager.class);
        }
        return ids == null ? null : ids.getWorkerName();
    }
}
