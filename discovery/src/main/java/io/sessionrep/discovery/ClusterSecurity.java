package io.sessionrep.discovery;

import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ReplicationConfig;

import java.net.InetAddress;

/**
 * Secure by default: a node whose {@code bind-address} is reachable from other hosts (not a loopback
 * address; the wildcard counts as reachable) refuses to start without credentials ({@code cluster-key} or
 * {@code tls-keystore}), because anyone who reaches its port could then read and forge sessions, unless
 * {@code insecure-cluster=true} accepts that risk. On a loopback address it starts (the session manager
 * logs a warning). Stacks of {@code jgroups-config} are the operator's own and not checked.
 */
final class ClusterSecurity {

    private ClusterSecurity() {
    }

    /**
     * @throws ConfigException naming {@code insecure-cluster} when {@code bindAddress} is reachable from
     *                         other hosts and the configuration has no credentials
     */
    static void check(ReplicationConfig config, InetAddress bindAddress) {
        boolean credentials = config.clusterKey() != null || config.tlsEnabled();
        if (credentials || config.insecureCluster() || bindAddress.isLoopbackAddress()) {
            return;
        }
        throw new ConfigException("insecure-cluster", "false, and bind-address " + config.bindAddress()
                + (bindAddress.isAnyLocalAddress() ? " (every interface)" : "") + " is reachable from other hosts"
                + " while neither cluster-key nor tls-keystore is set: anyone who can reach its port could read"
                + " and forge sessions and join the cluster; expected cluster-key (a shared secret), or tls-keystore"
                + " and tls-truststore (certificates), or insecure-cluster=true if the replication network is"
                + " private by other means");
    }
}
