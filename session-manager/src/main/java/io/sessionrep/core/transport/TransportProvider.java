package io.sessionrep.core.transport;

import io.sessionrep.core.config.ReplicationConfig;

import java.util.Iterator;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * Makes the {@link ReplicationTransport} of a node, for installs that cannot name an implementation in
 * code (the {@code web.xml} filter). The core depends on no transport; an implementation registers itself
 * in {@code META-INF/services/io.sessionrep.core.transport.TransportProvider} (the JGroups one does).
 */
public interface TransportProvider {

    /** A new, not yet started transport for {@code config}. */
    ReplicationTransport create(ReplicationConfig config);

    /**
     * The first provider registered with {@code loader}.
     *
     * @throws IllegalStateException when none is registered (the transport jar is missing) or it cannot
     *                               be loaded
     */
    static TransportProvider load(ClassLoader loader) {
        try {
            Iterator<TransportProvider> providers = ServiceLoader.load(TransportProvider.class, loader).iterator();
            if (providers.hasNext()) {
                return providers.next();
            }
        } catch (ServiceConfigurationError e) {
            throw new IllegalStateException("cannot load the replication transport: " + e.getMessage(), e);
        }
        throw new IllegalStateException("no replication transport found: put the sessionrep transport"
                + " (sessionrep-filter.jar, which contains it) on the application's class path (WEB-INF/lib)");
    }
}
