package io.sessionrep.core.config;

/** {@code discovery}: how nodes find each other (docs/discovery.md). */
public enum DiscoveryMode {
    /** IP multicast for discovery and replication traffic (JGroups UDP stack). */
    MULTICAST("multicast"),
    /** TCP with a configured peer list; a ring of peers is enough. The default. */
    STATIC("static"),
    /** Peers found at run time without listing them. */
    DYNAMIC("dynamic");

    private final String optionValue;

    DiscoveryMode(String optionValue) {
        this.optionValue = optionValue;
    }

    public String optionValue() {
        return optionValue;
    }
}
