package io.sessionrep.core.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The one validated option set of SPEC section 2, the same for every integration.
 *
 * <p>Built with {@link #builder()} (programmatic users) or {@link #fromMap(Map)} (container XML attributes,
 * module properties, filter init-params, system properties: the canonical option names are the keys).
 * Instances are immutable and always valid: a bad value stops {@link Builder#build()} with a
 * {@link ConfigException} naming the option, the value and what is allowed.
 *
 * <p>SKELETON: the parsing and validation are being completed; getters and defaults are final.
 */
public final class ReplicationConfig {

    private final String nodeName;
    private final ReplicationMode replicationMode;
    private final Duration syncTimeout;
    private final ReplicationTrigger replicationTrigger;
    private final int writeQuota;
    private final boolean allowColocation;
    private final String machineId;
    private final DiscoveryMode discovery;
    private final String clusterName;
    private final String bindAddress;
    private final int bindPort;
    private final List<HostPort> peers;
    private final String multicastAddress;
    private final int multicastPort;
    private final long maxSessionSize;
    private final String clusterKey;
    private final List<String> serializationAllowlist;
    private final int asyncQueueEntries;
    private final long asyncQueueBytes;

    private ReplicationConfig(Builder b) {
        this.nodeName = b.nodeName;
        this.replicationMode = b.replicationMode;
        this.syncTimeout = b.syncTimeout;
        this.replicationTrigger = b.replicationTrigger;
        this.writeQuota = b.writeQuota;
        this.allowColocation = b.allowColocation;
        this.machineId = b.machineId;
        this.discovery = b.discovery;
        this.clusterName = b.clusterName;
        this.bindAddress = b.bindAddress;
        this.bindPort = b.bindPort;
        this.peers = List.copyOf(b.peers);
        this.multicastAddress = b.multicastAddress;
        this.multicastPort = b.multicastPort;
        this.maxSessionSize = b.maxSessionSize;
        this.clusterKey = b.clusterKey;
        this.serializationAllowlist = List.copyOf(b.serializationAllowlist);
        this.asyncQueueEntries = b.asyncQueueEntries;
        this.asyncQueueBytes = b.asyncQueueBytes;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Parses canonical option names ({@code write-quota}, ...) to values. Unknown keys are an error. */
    public static ReplicationConfig fromMap(Map<String, String> options) {
        throw new UnsupportedOperationException("being implemented");
    }

    /** {@code node-name}: unique per node, the route suffix of session ids. Default: host name + random. */
    public String nodeName() { return nodeName; }
    /** {@code replication-mode}. Default async. */
    public ReplicationMode replicationMode() { return replicationMode; }
    /** {@code sync-timeout}. Default 500ms. */
    public Duration syncTimeout() { return syncTimeout; }
    /** {@code replication-trigger}. Default on-request-end. */
    public ReplicationTrigger replicationTrigger() { return replicationTrigger; }
    /** {@code write-quota}: backups per session, 0 = no replication. Default 1. */
    public int writeQuota() { return writeQuota; }
    /** {@code allow-colocation}. Default true. */
    public boolean allowColocation() { return allowColocation; }
    /** {@code machine-id}. Default: the host name. */
    public String machineId() { return machineId; }
    /** {@code discovery}. Default static. */
    public DiscoveryMode discovery() { return discovery; }
    /** {@code cluster-name}. Default sessions. */
    public String clusterName() { return clusterName; }
    /** {@code bind-address}. Default 127.0.0.1. */
    public String bindAddress() { return bindAddress; }
    /** {@code bind-port}; 0 = auto (first free port from 7800). */
    public int bindPort() { return bindPort; }
    /** {@code peers}: static discovery. */
    public List<HostPort> peers() { return peers; }
    /** {@code multicast-address}. Default 228.8.8.8. */
    public String multicastAddress() { return multicastAddress; }
    /** {@code multicast-port}. Default 45588. */
    public int multicastPort() { return multicastPort; }
    /** {@code max-session-size} in bytes. Default 1 MiB. */
    public long maxSessionSize() { return maxSessionSize; }
    /** {@code cluster-key}; null when not set. */
    public String clusterKey() { return clusterKey; }
    /** {@code serialization-allowlist}: application packages ({@code com.example.}) and class names. */
    public List<String> serializationAllowlist() { return serializationAllowlist; }
    /** {@code async-queue-entries}: bound of the async sender's queue. Default 10000. */
    public int asyncQueueEntries() { return asyncQueueEntries; }
    /** {@code async-queue-bytes}: bound of the async sender's queue in bytes. Default 64 MiB. */
    public long asyncQueueBytes() { return asyncQueueBytes; }

    /** Warnings for accepted options that are not active yet (logged at start-up). */
    public List<String> notYetActive() {
        return List.of();
    }

    /** Mutable, validating builder. */
    public static final class Builder {
        private String nodeName = "node-" + Long.toHexString(System.nanoTime() & 0xffffL);
        private ReplicationMode replicationMode = ReplicationMode.ASYNC;
        private Duration syncTimeout = Duration.ofMillis(500);
        private ReplicationTrigger replicationTrigger = ReplicationTrigger.ON_REQUEST_END;
        private int writeQuota = 1;
        private boolean allowColocation = true;
        private String machineId = "localhost";
        private DiscoveryMode discovery = DiscoveryMode.STATIC;
        private String clusterName = "sessions";
        private String bindAddress = "127.0.0.1";
        private int bindPort = 0;
        private List<HostPort> peers = List.of();
        private String multicastAddress = "228.8.8.8";
        private int multicastPort = 45588;
        private long maxSessionSize = 1024 * 1024;
        private String clusterKey;
        private List<String> serializationAllowlist = List.of();
        private int asyncQueueEntries = 10_000;
        private long asyncQueueBytes = 64L * 1024 * 1024;

        private Builder() {
        }

        public Builder nodeName(String v) { this.nodeName = v; return this; }
        public Builder replicationMode(ReplicationMode v) { this.replicationMode = v; return this; }
        public Builder syncTimeout(Duration v) { this.syncTimeout = v; return this; }
        public Builder replicationTrigger(ReplicationTrigger v) { this.replicationTrigger = v; return this; }
        public Builder writeQuota(int v) { this.writeQuota = v; return this; }
        public Builder allowColocation(boolean v) { this.allowColocation = v; return this; }
        public Builder machineId(String v) { this.machineId = v; return this; }
        public Builder discovery(DiscoveryMode v) { this.discovery = v; return this; }
        public Builder clusterName(String v) { this.clusterName = v; return this; }
        public Builder bindAddress(String v) { this.bindAddress = v; return this; }
        public Builder bindPort(int v) { this.bindPort = v; return this; }
        public Builder peers(List<HostPort> v) { this.peers = v; return this; }
        public Builder multicastAddress(String v) { this.multicastAddress = v; return this; }
        public Builder multicastPort(int v) { this.multicastPort = v; return this; }
        public Builder maxSessionSize(long v) { this.maxSessionSize = v; return this; }
        public Builder clusterKey(String v) { this.clusterKey = v; return this; }
        public Builder serializationAllowlist(List<String> v) { this.serializationAllowlist = v; return this; }
        public Builder asyncQueueEntries(int v) { this.asyncQueueEntries = v; return this; }
        public Builder asyncQueueBytes(long v) { this.asyncQueueBytes = v; return this; }

        public ReplicationConfig build() {
            return new ReplicationConfig(this);
        }
    }
}
