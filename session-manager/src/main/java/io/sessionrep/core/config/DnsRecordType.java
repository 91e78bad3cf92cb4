package io.sessionrep.core.config;

/** {@code dns-record-type}: which DNS records {@code dynamic-discovery=dns} asks for. */
public enum DnsRecordType {
    /**
     * A records: the name resolves to the nodes' addresses; each is probed on this node's replication port
     * ({@code bind-port}, or the auto range 7800 to 7849 when it is 0). The default.
     */
    A("A"),
    /** SRV records: the name resolves to host:port pairs, so nodes may listen on different ports. */
    SRV("SRV");

    private final String optionValue;

    DnsRecordType(String optionValue) {
        this.optionValue = optionValue;
    }

    /** The spelling used in configuration files. */
    public String optionValue() {
        return optionValue;
    }
}
