package io.sessionrep.core.config;

/**
 * {@code dynamic-discovery}: how {@code discovery=dynamic} finds its peers at run time (docs/discovery.md).
 * Replication traffic is TCP in every case; only the way a starting node finds the others differs.
 */
public enum DynamicDiscovery {
    /** IP multicast on {@code multicast-address}:{@code multicast-port} (JGroups MPING). The default. */
    MULTICAST("multicast"),
    /**
     * A directory every node can read and write ({@code discovery-directory}: NFS, a shared volume), in which
     * each cluster's coordinator keeps the members' addresses (JGroups FILE_PING). Works without multicast.
     */
    FILE("file"),
    /**
     * A DNS name ({@code dns-query}) that resolves to the nodes, e.g. a Kubernetes headless service
     * (JGroups DNS_PING). Works without multicast.
     */
    DNS("dns");

    private final String optionValue;

    DynamicDiscovery(String optionValue) {
        this.optionValue = optionValue;
    }

    /** The spelling used in configuration files. */
    public String optionValue() {
        return optionValue;
    }
}
