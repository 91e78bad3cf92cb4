package io.sessionrep.jetty;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.sessionrep.core.config.ReplicationConfig;
import org.eclipse.jetty.session.AbstractSessionDataStoreFactory;
import org.eclipse.jetty.session.SessionDataStore;
import org.eclipse.jetty.session.SessionManager;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Makes a {@link ReplicatedSessionDataStore} for every context of a server that has this factory as a
 * bean. Programmatic users pass a {@link ReplicationConfig}; Jetty XML passes the canonical option names
 * of SPEC section 2 one by one ({@code <Call name="setOption"><Arg>write-quota</Arg><Arg>1</Arg></Call>}),
 * parsed with {@link ReplicationConfig#fromMap} when the first context starts, so a bad value stops that
 * start with a message naming the option.
 *
 * <p>Every context made from one factory joins the cluster with the same {@code node-name} (it must equal
 * the server's {@code DefaultSessionIdManager} workerName, the route suffix); give each replicated context
 * its own {@code cluster-name} if a server runs more than one.
 */
public class ReplicatedSessionDataStoreFactory extends AbstractSessionDataStoreFactory {
    private final Map<String, String> options = new LinkedHashMap<>();
    private ReplicationConfig config;
    private MeterRegistry meters;

    /** For Jetty XML: options are set with {@link #setOption}; meters go to Micrometer's global registry. */
    public ReplicatedSessionDataStoreFactory() {
    }

    public ReplicatedSessionDataStoreFactory(ReplicationConfig config, MeterRegistry meters) {
        this.config = Objects.requireNonNull(config, "config");
        this.meters = Objects.requireNonNull(meters, "meters");
    }

    /** One option by its canonical name ({@code replication-mode}, {@code peers}, ...). */
    public void setOption(String name, String value) {
        if (config != null) {
            throw new IllegalStateException("configured with a ReplicationConfig already");
        }
        options.put(name, value);
    }

    public void setMeterRegistry(MeterRegistry meters) {
        this.meters = meters;
    }

    @Override
    public SessionDataStore getSessionDataStore(SessionManager manager) {
        synchronized (this) {
            if (config == null) {
                config = ReplicationConfig.fromMap(options);
            }
        }
        ReplicatedSessionDataStore store = new ReplicatedSessionDataStore(config,
                meters != null ? meters : Metrics.globalRegistry);
        store.setGracePeriodSec(getGracePeriodSec());
        store.setSavePeriodSec(getSavePeriodSec());
        return store;
    }
}
