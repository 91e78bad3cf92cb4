package io.sessionrep.transport.jgroups;

import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.core.transport.TransportProvider;

/** Registers {@link JGroupsTransport} with the core's {@link TransportProvider} service (filter installs). */
public final class JGroupsTransportProvider implements TransportProvider {
    @Override
    public ReplicationTransport create(ReplicationConfig config) {
        return new JGroupsTransport(config);
    }
}
