package io.sessionrep.core.config;

import static io.sessionrep.core.config.ConfigOption.ALLOW_COLOCATION;
import static io.sessionrep.core.config.ConfigOption.ASYNC_QUEUE_BYTES;
import static io.sessionrep.core.config.ConfigOption.ASYNC_QUEUE_ENTRIES;
import static io.sessionrep.core.config.ConfigOption.BIND_ADDRESS;
import static io.sessionrep.core.config.ConfigOption.BIND_PORT;
import static io.sessionrep.core.config.ConfigOption.CLUSTER_KEY;
import static io.sessionrep.core.config.ConfigOption.CLUSTER_NAME;
import static io.sessionrep.core.config.ConfigOption.DISCOVERY;
import static io.sessionrep.core.config.ConfigOption.DISCOVERY_DIRECTORY;
import static io.sessionrep.core.config.ConfigOption.DNS_QUERY;
import static io.sessionrep.core.config.ConfigOption.DNS_RECORD_TYPE;
import static io.sessionrep.core.config.ConfigOption.DYNAMIC_DISCOVERY;
import static io.sessionrep.core.config.ConfigOption.JGROUPS_CONFIG;
import static io.sessionrep.core.config.ConfigOption.MACHINE_ID;
import static io.sessionrep.core.config.ConfigOption.MAX_SESSION_SIZE;
import static io.sessionrep.core.config.ConfigOption.MAX_BACKUP_BYTES;
import static io.sessionrep.core.config.ConfigOption.METRICS;
import static io.sessionrep.core.config.ConfigOption.MULTICAST_ADDRESS;
import static io.sessionrep.core.config.ConfigOption.MULTICAST_PORT;
import static io.sessionrep.core.config.ConfigOption.NODE_NAME;
import static io.sessionrep.core.config.ConfigOption.PEERS;
import static io.sessionrep.core.config.ConfigOption.REPLICATION_MODE;
import static io.sessionrep.core.config.ConfigOption.REPLICATION_TRIGGER;
import static io.sessionrep.core.config.ConfigOption.SERIALIZATION_ALLOWLIST;
import static io.sessionrep.core.config.ConfigOption.SYNC_TIMEOUT;
import static io.sessionrep.core.config.ConfigOption.OWNERSHIP_TIMEOUT;
import static io.sessionrep.core.config.ConfigOption.INSECURE_CLUSTER;
import static io.sessionrep.core.config.ConfigOption.TLS_KEYSTORE;
import static io.sessionrep.core.config.ConfigOption.TLS_KEYSTORE_PASSWORD;
import static io.sessionrep.core.config.ConfigOption.TLS_KEYSTORE_TYPE;
import static io.sessionrep.core.config.ConfigOption.TLS_TRUSTSTORE;
import static io.sessionrep.core.config.ConfigOption.TLS_TRUSTSTORE_PASSWORD;
import static io.sessionrep.core.config.ConfigOption.TLS_TRUSTSTORE_TYPE;
import static io.sessionrep.core.config.ConfigOption.WRITE_QUOTA;
import static io.sessionrep.core.config.OptionParsers.GIB;
import static io.sessionrep.core.config.OptionParsers.KIB;
import static io.sessionrep.core.config.OptionParsers.MIB;
import static io.sessionrep.core.config.OptionParsers.checkRange;
import static io.sessionrep.core.config.OptionParsers.formatDuration;
import static io.sessionrep.core.config.OptionParsers.formatSize;
import static io.sessionrep.core.config.OptionParsers.notAllowed;
import static io.sessionrep.core.config.OptionParsers.quote;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The one validated option set of SPEC section 2, the same for every integration.
 *
 * <p>Built with {@link #builder()} (programmatic users) or {@link #fromMap(Map)} /
 * {@link #fromProperties(Properties, String)} (container XML attributes, module properties, filter
 * init-params, system properties: the canonical option names of {@link ConfigOption} are the keys).
 * Sources are layered with {@link Builder#apply(Map)}: each applied source overrides what came before,
 * so apply the most specific source last. Instances are immutable and always valid: a bad value stops
 * the builder with a {@link ConfigException} naming the option, the value and what is allowed.
 *
 * <p>Text values: durations {@code 500ms}, {@code 2s}, {@code 1m}, a
 * plain number of milliseconds ({@code 1500}) or ISO-8601 ({@code PT0.5S}); sizes in bytes
 * ({@code 1048576}), 1024-based {@code 512KiB}, {@code 1MiB}, {@code 1GiB} or 1000-based {@code 64KB},
 * {@code 1MB}; booleans exactly {@code true} or {@code false} (any case); choices by their option
 * spelling ({@code async}, {@code on-request-end}, {@code static}; any case); lists separated by commas
 * and/or whitespace. A blank value means "not set here" (the default, or what an earlier source set).
 *
 * <p>Log {@link #describe()} and every line of {@link #notYetActive()} at start-up.
 */
public final class ReplicationConfig {

    /** The canonical option names, in documentation order (the keys {@link #fromMap(Map)} accepts). */
    public static final List<String> OPTION_NAMES =
            Arrays.stream(ConfigOption.values()).map(ConfigOption::key).toList();

    /** Shortest accepted {@code cluster-key} secret. */
    public static final int MIN_CLUSTER_KEY_LENGTH = 16;

    private final String nodeName;
    private final ReplicationMode replicationMode;
    private final Duration syncTimeout;
    private final Duration ownershipTimeout;
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
    private final DynamicDiscovery dynamicDiscovery;
    private final String discoveryDirectory;
    private final List<String> dnsQuery;
    private final DnsRecordType dnsRecordType;
    private final String jgroupsConfig;
    private final long maxSessionSize;
    private final long maxBackupBytes;
    private final String clusterKey;
    private final String tlsKeystore;
    private final String tlsKeystorePassword;
    private final String tlsKeystoreType;
    private final String tlsTruststore;
    private final String tlsTruststorePassword;
    private final String tlsTruststoreType;
    private final boolean insecureCluster;
    private final List<String> serializationAllowlist;
    private final int asyncQueueEntries;
    private final long asyncQueueBytes;
    private final MetricsExport metrics;
    private final Set<ConfigOption> explicit;

    private ReplicationConfig(Builder b) {
        this.nodeName = b.nodeName;
        this.replicationMode = b.replicationMode;
        this.syncTimeout = b.syncTimeout;
        this.ownershipTimeout = b.ownershipTimeout;
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
        this.dynamicDiscovery = b.dynamicDiscovery;
        this.discoveryDirectory = b.discoveryDirectory;
        this.dnsQuery = List.copyOf(b.dnsQuery);
        this.dnsRecordType = b.dnsRecordType;
        this.jgroupsConfig = b.jgroupsConfig;
        this.maxSessionSize = b.maxSessionSize;
        this.maxBackupBytes = b.maxBackupBytes;
        this.clusterKey = b.clusterKey;
        this.tlsKeystore = b.tlsKeystore;
        this.tlsKeystorePassword = b.tlsKeystorePassword;
        this.tlsKeystoreType = b.tlsKeystoreType;
        this.tlsTruststore = b.tlsTruststore;
        this.tlsTruststorePassword = b.tlsTruststorePassword;
        this.tlsTruststoreType = b.tlsTruststoreType;
        this.insecureCluster = b.insecureCluster;
        this.serializationAllowlist = List.copyOf(b.serializationAllowlist);
        this.asyncQueueEntries = b.asyncQueueEntries;
        this.asyncQueueBytes = b.asyncQueueBytes;
        this.metrics = b.metrics;
        this.explicit = Set.copyOf(b.explicit);
    }

    /** A builder holding the defaults (a fresh random {@code node-name} suffix per builder). */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The configuration of canonical option names ({@code write-quota}, ...) to text values. Unknown keys
     * are an error (naming the closest known option); blank or null values mean the default.
     */
    public static ReplicationConfig fromMap(Map<String, String> options) {
        return builder().apply(options).build();
    }

    /**
     * The configuration from the properties whose names start with {@code prefix}, e.g.
     * {@code fromProperties(System.getProperties(), "sessionrep.")} reads {@code -Dsessionrep.write-quota=2}.
     * Other properties are ignored; an unknown name under the prefix is an error.
     */
    public static ReplicationConfig fromProperties(Properties properties, String prefix) {
        return builder().apply(properties, prefix).build();
    }

    /**
     * {@code node-name}: unique per node; the route suffix of session ids ({@code .node-a}), so it is 1 to 64
     * characters from {@code A-Z a-z 0-9 _ -}. Default: the short host name (sanitized) plus {@code -} and
     * four random hex digits, e.g. {@code web1-3fa2}.
     */
    public String nodeName() { return nodeName; }

    /**
     * {@code replication-mode}: {@code async} (the request thread only snapshots; never waits on the network)
     * or {@code sync} (the request waits for the first backup's acknowledgement, at most {@link #syncTimeout()}).
     * Default {@code async}.
     */
    public ReplicationMode replicationMode() { return replicationMode; }

    /**
     * {@code sync-timeout}: how long a sync request waits for a backup's acknowledgement before it proceeds
     * (the miss is counted). Greater than 0 and at most 60s. Default {@code 500ms}.
     */
    public Duration syncTimeout() { return syncTimeout; }

    /**
     * {@code ownership-timeout}: how long a request for a session owned by another live node waits for that
     * node to hand the session over (its running requests on the session finish first). When it passes,
     * the request is refused with 503 and runs no application code. Greater than 0 and at most 60s.
     * Default {@code 5s}.
     */
    public Duration ownershipTimeout() { return ownershipTimeout; }

    /**
     * {@code replication-trigger}: {@code on-request-end}, {@code on-attribute-modify} or {@code on-shutdown}.
     * Default {@code on-request-end}. {@code on-attribute-modify}: each setAttribute/removeAttribute is
     * replicated before it returns; {@code on-shutdown}: nothing is sent until an orderly shutdown hands
     * every live session over to its backups.
     */
    public ReplicationTrigger replicationTrigger() { return replicationTrigger; }

    /** {@code write-quota}: backup copies per session, 0 to 64; 0 = no replication. Default 1. */
    public int writeQuota() { return writeQuota; }

    /**
     * {@code allow-colocation}: {@code true} or {@code false}; whether a backup may live on the same machine
     * ({@link #machineId()}) as the primary when no other machine is available. Default {@code true}.
     */
    public boolean allowColocation() { return allowColocation; }

    /**
     * {@code machine-id}: what "same machine" means for {@link #allowColocation()}; 1 to 128 characters,
     * not blank, no control characters. Default: the host name ({@code localhost} when it cannot be found).
     */
    public String machineId() { return machineId; }

    /** {@code discovery}: {@code multicast}, {@code static} or {@code dynamic} (SPEC section 4). Default {@code static}. */
    public DiscoveryMode discovery() { return discovery; }

    /**
     * {@code cluster-name}: nodes with different names never see each other; 1 to 128 characters, not blank,
     * no control characters. Default {@code sessions}.
     */
    public String clusterName() { return clusterName; }

    /**
     * {@code bind-address}: where this node listens for replication traffic; a host name, IPv4 address or
     * IPv6 literal (held without brackets). Not resolved during validation. Default {@code 127.0.0.1}.
     */
    public String bindAddress() { return bindAddress; }

    /** {@code bind-port}: 1 to 65535, or 0 = auto (first free port from 7800). Default 0. */
    public int bindPort() { return bindPort; }

    /**
     * {@code peers}: the nodes this node knows, for {@code discovery=static} only (a ring is enough);
     * {@code host:port}, IPv6 as {@code [::1]:7800}, port 1 to 65535. The list may contain this node's own
     * address, so every node can be given the same list. Default: empty.
     */
    public List<HostPort> peers() { return peers; }

    /**
     * {@code multicast-address}: an IPv4 multicast address (224.0.0.0/4) or IPv6 multicast address
     * (ff00::/8) for {@code discovery=multicast} or {@code dynamic}. Default {@code 228.8.8.8}.
     */
    public String multicastAddress() { return multicastAddress; }

    /** {@code multicast-port}: 1 to 65535, for {@code discovery=multicast} or {@code dynamic}. Default 45588. */
    public int multicastPort() { return multicastPort; }

    /**
     * {@code dynamic-discovery}: how {@code discovery=dynamic} finds peers: {@code multicast} (IP multicast on
     * {@code multicast-address}:{@code multicast-port}), {@code file} (a shared {@code discovery-directory}) or
     * {@code dns} ({@code dns-query}). Only with {@code discovery=dynamic}. Default {@code multicast}.
     */
    public DynamicDiscovery dynamicDiscovery() { return dynamicDiscovery; }

    /**
     * {@code discovery-directory}: for {@code dynamic-discovery=file} (required there, refused elsewhere): the
     * absolute path of a directory every node of the cluster can read and write (a shared volume or NFS
     * mount); created if missing. Null when not set.
     */
    public String discoveryDirectory() { return discoveryDirectory; }

    /**
     * {@code dns-query}: for {@code dynamic-discovery=dns} (required there, refused elsewhere): one or more DNS
     * names, separated by commas, that resolve to the nodes, e.g. a Kubernetes headless service
     * {@code sessions.shop.svc.cluster.local}. Empty when not set.
     */
    public List<String> dnsQuery() { return dnsQuery; }

    /**
     * {@code dns-record-type}: {@code A} (addresses; each probed on the replication port) or {@code SRV}
     * (host and port per node), for {@code dynamic-discovery=dns} only. Default {@code A}.
     */
    public DnsRecordType dnsRecordType() { return dnsRecordType; }

    /**
     * {@code jgroups-config}: path of a JGroups XML stack file that replaces the generated stack (for experts).
     * The file must exist and parse when the node starts. With it, the options that shape the generated stack
     * ({@code discovery}, {@code bind-address}, {@code bind-port}, {@code peers}, {@code multicast-*},
     * {@code dynamic-discovery}, {@code discovery-directory}, {@code dns-*}) are refused: the XML says all of
     * that. {@code cluster-name}, {@code node-name} and {@code machine-id} still apply. Null when not set.
     */
    public String jgroupsConfig() { return jgroupsConfig; }

    /** {@code max-session-size} in bytes: larger sessions are not replicated; 1KiB to 2GiB. Default 1MiB. */
    public long maxSessionSize() { return maxSessionSize; }

    /**
     * {@code max-backup-bytes}: the attribute bytes this node holds at most as backups of other nodes'
     * sessions. When reached, copies of sessions not held yet are refused (counted, logged once a minute);
     * copies held keep being updated. 1MiB to 1TiB. Default: half of this JVM's maximum heap.
     */
    public long maxBackupBytes() { return maxBackupBytes; }

    /**
     * {@code cluster-key}: the shared secret of the cluster, or null. Every frame between nodes is then
     * encrypted and authenticated (AES-256-GCM with a key derived from the secret) and accepted once and only
     * while fresh; a node without the secret can neither join, read, inject nor replay. The README's security
     * section lists what stays plain. Never logged.
     */
    public String clusterKey() { return clusterKey; }

    /**
     * {@code tls-keystore}: path of this node's key store (its private key and certificate) for TLS between
     * nodes, or null (no TLS). With it, the TCP transport speaks TLS and requires a certificate from every
     * peer (mutual authentication) that {@code tls-truststore} trusts. Needs {@code tls-truststore} and
     * both passwords; refused with {@code discovery=multicast} and {@code dynamic-discovery=multicast}
     * (multicast is not carried over TLS) and with {@code jgroups-config}. The file is checked at start-up.
     */
    public String tlsKeystore() { return tlsKeystore; }

    /** {@code tls-keystore-password}: the password of {@code tls-keystore} (or {@code file:/path}); never logged. */
    public String tlsKeystorePassword() { return tlsKeystorePassword; }

    /** {@code tls-keystore-type}: {@code pkcs12} or {@code jks}. Default {@code pkcs12}. */
    public String tlsKeystoreType() { return tlsKeystoreType; }

    /**
     * {@code tls-truststore}: path of the trust store holding the certificates (or the CA certificate) of the
     * peers this node accepts, or null. Any peer whose certificate chains to one of them is a member: use a
     * CA dedicated to this cluster.
     */
    public String tlsTruststore() { return tlsTruststore; }

    /** {@code tls-truststore-password}: the password of {@code tls-truststore} (or {@code file:/path}); never logged. */
    public String tlsTruststorePassword() { return tlsTruststorePassword; }

    /** {@code tls-truststore-type}: {@code pkcs12} or {@code jks}. Default {@code pkcs12}. */
    public String tlsTruststoreType() { return tlsTruststoreType; }

    /** Whether TLS between nodes is configured ({@code tls-keystore} and {@code tls-truststore}). */
    public boolean tlsEnabled() { return tlsKeystore != null; }

    /**
     * {@code insecure-cluster}: {@code true} lets a node start on a non-loopback {@code bind-address} with
     * neither {@code cluster-key} nor TLS, accepting that anyone who reaches its port can read and forge
     * sessions (for a network that is private by other means). Refused together with a credential.
     * Default {@code false}.
     */
    public boolean insecureCluster() { return insecureCluster; }

    /**
     * {@code serialization-allowlist}: the application classes that may be deserialized, besides the
     * serializer's built-in safe types. Each entry is a package prefix ending in {@code .} (matches every
     * class in the package and its sub-packages; {@code com.example.*} is read as {@code com.example.}) or
     * a fully qualified class name ({@code com.example.Cart}). Wildcards over everything ({@code *}) or over
     * JDK packages ({@code java.}, {@code javax.}, {@code jdk.}, {@code sun.}, {@code com.sun.}) are refused:
     * they would allow gadget classes. Default: empty.
     */
    public List<String> serializationAllowlist() { return serializationAllowlist; }

    /** {@code async-queue-entries}: bound of the async sender's queue in updates; at least 1. Default 10000. */
    public int asyncQueueEntries() { return asyncQueueEntries; }

    /** {@code async-queue-bytes}: bound of the async sender's queue in bytes; at least 64KiB. Default 64MiB. */
    public long asyncQueueBytes() { return asyncQueueBytes; }

    /**
     * {@code metrics}: {@code jmx} or {@code none}; where the container installs (Jetty module, Tomcat
     * {@code <Manager>}, {@code web.xml} filter) export the meters. {@code jmx}: MBeans in the platform
     * MBeanServer, domain {@code sessionrep}, one per meter, named by cluster, context, node and meter, and
     * unregistered when the web application stops. A {@code MeterRegistry} passed in by an embedding
     * application gets the meters either way. Default {@code jmx}.
     */
    public MetricsExport metrics() { return metrics; }

    /**
     * One human-readable warning per setting that is accepted but has no effect yet in this version (empty
     * when there is none). Integrations log each line at start-up, so nothing is silently ignored.
     */
    public List<String> notYetActive() {
        return List.of(); // every accepted option is active

    }

    /**
     * The effective options for the start-up log: one {@code option = value} line each, in documentation
     * order and canonical spelling, defaults marked {@code (default)}; {@code cluster-key} is masked.
     */
    public String describe() {
        int width = OPTION_NAMES.stream().mapToInt(String::length).max().orElse(0);
        return Arrays.stream(ConfigOption.values())
                .map(o -> String.format("%-" + width + "s = %s%s", o.key(), show(o),
                        explicit.contains(o) ? "" : " (default)"))
                .collect(Collectors.joining("\n"));
    }

    /** {@code ReplicationConfig{node-name=web1-3fa2, replication-mode=async, ...}}; cluster-key masked. */
    @Override
    public String toString() {
        return Arrays.stream(ConfigOption.values()).map(o -> o.key() + "=" + show(o))
                .collect(Collectors.joining(", ", "ReplicationConfig{", "}"));
    }

    private String show(ConfigOption option) {
        return switch (option) {
            case NODE_NAME -> nodeName;
            case REPLICATION_MODE -> replicationMode.optionValue();
            case SYNC_TIMEOUT -> formatDuration(syncTimeout);
            case OWNERSHIP_TIMEOUT -> formatDuration(ownershipTimeout);
            case REPLICATION_TRIGGER -> replicationTrigger.optionValue();
            case WRITE_QUOTA -> String.valueOf(writeQuota);
            case ALLOW_COLOCATION -> String.valueOf(allowColocation);
            case MACHINE_ID -> machineId;
            case DISCOVERY -> discovery.optionValue();
            case CLUSTER_NAME -> clusterName;
            case BIND_ADDRESS -> bindAddress;
            case BIND_PORT -> bindPort == 0 ? "0 (auto)" : String.valueOf(bindPort);
            case PEERS -> peers.isEmpty() ? "(none)"
                    : peers.stream().map(HostPort::toString).collect(Collectors.joining(","));
            case MULTICAST_ADDRESS -> multicastAddress;
            case MULTICAST_PORT -> String.valueOf(multicastPort);
            case DYNAMIC_DISCOVERY -> dynamicDiscovery.optionValue();
            case DISCOVERY_DIRECTORY -> discoveryDirectory == null ? "(not set)" : discoveryDirectory;
            case DNS_QUERY -> dnsQuery.isEmpty() ? "(not set)" : String.join(",", dnsQuery);
            case DNS_RECORD_TYPE -> dnsRecordType.optionValue();
            case JGROUPS_CONFIG -> jgroupsConfig == null ? "(not set)" : jgroupsConfig;
            case MAX_SESSION_SIZE -> formatSize(maxSessionSize);
            case MAX_BACKUP_BYTES -> formatSize(maxBackupBytes);
            case CLUSTER_KEY -> clusterKey == null ? "(not set)" : "****";
            case TLS_KEYSTORE -> tlsKeystore == null ? "(not set)" : tlsKeystore;
            case TLS_KEYSTORE_PASSWORD -> tlsKeystorePassword == null ? "(not set)" : "****";
            case TLS_KEYSTORE_TYPE -> tlsKeystoreType;
            case TLS_TRUSTSTORE -> tlsTruststore == null ? "(not set)" : tlsTruststore;
            case TLS_TRUSTSTORE_PASSWORD -> tlsTruststorePassword == null ? "(not set)" : "****";
            case TLS_TRUSTSTORE_TYPE -> tlsTruststoreType;
            case INSECURE_CLUSTER -> String.valueOf(insecureCluster);
            case SERIALIZATION_ALLOWLIST -> serializationAllowlist.isEmpty() ? "(none)"
                    : String.join(",", serializationAllowlist);
            case ASYNC_QUEUE_ENTRIES -> String.valueOf(asyncQueueEntries);
            case ASYNC_QUEUE_BYTES -> formatSize(asyncQueueBytes);
            case METRICS -> metrics.optionValue();
        };
    }

    /** {@code web1.example.com} becomes {@code web1-3fa2}: allowed characters only, at most 64 of them. */
    static String defaultNodeName(String hostName, int random) {
        String shortName = hostName.split("\\.", 2)[0].replaceAll("[^A-Za-z0-9_-]", "-");
        shortName = shortName.isEmpty() ? "node" : shortName.substring(0, Math.min(shortName.length(), 59));
        return shortName + "-" + String.format("%04x", random & 0xffff);
    }

    /** The host name made a valid {@code machine-id}. */
    static String defaultMachineId(String hostName) {
        String id = hostName.replaceAll("\\p{Cntrl}", "").strip();
        return id.isEmpty() ? "localhost" : id.substring(0, Math.min(id.length(), 128));
    }

    /** The local host name, looked up once (the lookup may be slow when DNS is misconfigured). */
    private static final class LocalHost {
        static final String NAME = lookup();

        private static String lookup() {
            try {
                return InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException | SecurityException e) {
                return "localhost"; // documented fallback of machine-id
            }
        }
    }

    /**
     * Mutable builder that validates each value as it is set and the rules between options in
     * {@link #build()}. Every failure is a {@link ConfigException}; the option getters of
     * {@link ReplicationConfig} document defaults and allowed values.
     */
    public static final class Builder {
        private static final Pattern NODE_NAME_PATTERN = Pattern.compile("[A-Za-z0-9_-]{1,64}");
        private static final int MAX_WRITE_QUOTA = 64;
        private static final Duration MAX_SYNC_TIMEOUT = Duration.ofSeconds(60);
        private static final long MIN_SESSION_SIZE = KIB;
        private static final long MAX_SESSION_SIZE_LIMIT = 2 * GIB;
        private static final long MIN_QUEUE_BYTES = 64 * KIB;

        private String nodeName = defaultNodeName(LocalHost.NAME, ThreadLocalRandom.current().nextInt());
        private ReplicationMode replicationMode = ReplicationMode.ASYNC;
        private Duration syncTimeout = Duration.ofMillis(500);
        private Duration ownershipTimeout = Duration.ofSeconds(5);
        private ReplicationTrigger replicationTrigger = ReplicationTrigger.ON_REQUEST_END;
        private int writeQuota = 1;
        private boolean allowColocation = true;
        private String machineId = defaultMachineId(LocalHost.NAME);
        private DiscoveryMode discovery = DiscoveryMode.STATIC;
        private String clusterName = "sessions";
        private String bindAddress = "127.0.0.1";
        private int bindPort = 0;
        private List<HostPort> peers = List.of();
        private String multicastAddress = "228.8.8.8";
        private int multicastPort = 45588;
        private DynamicDiscovery dynamicDiscovery = DynamicDiscovery.MULTICAST;
        private String discoveryDirectory;
        private List<String> dnsQuery = List.of();
        private DnsRecordType dnsRecordType = DnsRecordType.A;
        private String jgroupsConfig;
        private long maxSessionSize = MIB;
        private long maxBackupBytes = Math.max(MIB, Runtime.getRuntime().maxMemory() / 2);
        private String clusterKey;
        private String tlsKeystore;
        private String tlsKeystorePassword;
        private String tlsKeystoreType = "pkcs12";
        private String tlsTruststore;
        private String tlsTruststorePassword;
        private String tlsTruststoreType = "pkcs12";
        private boolean insecureCluster;
        private List<String> serializationAllowlist = List.of();
        private int asyncQueueEntries = 10_000;
        private long asyncQueueBytes = 64 * MIB;
        private MetricsExport metrics = MetricsExport.JMX;
        private final Set<ConfigOption> explicit = EnumSet.noneOf(ConfigOption.class);

        private Builder() {
        }

        public Builder nodeName(String v) {
            if (v == null || !NODE_NAME_PATTERN.matcher(v).matches()) {
                throw notAllowed(NODE_NAME, v == null ? "null" : quote(v), "1 to 64 characters from A-Z, a-z,"
                        + " 0-9, '_' and '-' (the node name becomes the route suffix of session ids)");
            }
            this.nodeName = v;
            return set(NODE_NAME);
        }

        public Builder replicationMode(ReplicationMode v) {
            this.replicationMode = required(REPLICATION_MODE, v, "async or sync");
            return set(REPLICATION_MODE);
        }

        public Builder syncTimeout(Duration v) {
            String expected = "a duration greater than 0 and at most 60s, such as 500ms";
            if (required(SYNC_TIMEOUT, v, expected).isNegative() || v.isZero() || v.compareTo(MAX_SYNC_TIMEOUT) > 0) {
                throw notAllowed(SYNC_TIMEOUT, formatDuration(v), expected);
            }
            this.syncTimeout = v;
            return set(SYNC_TIMEOUT);
        }

        public Builder ownershipTimeout(Duration v) {
            String expected = "a duration greater than 0 and at most 60s, such as 5s";
            if (required(OWNERSHIP_TIMEOUT, v, expected).isNegative() || v.isZero() || v.compareTo(MAX_SYNC_TIMEOUT) > 0) {
                throw notAllowed(OWNERSHIP_TIMEOUT, formatDuration(v), expected);
            }
            this.ownershipTimeout = v;
            return set(OWNERSHIP_TIMEOUT);
        }

        public Builder replicationTrigger(ReplicationTrigger v) {
            this.replicationTrigger = required(REPLICATION_TRIGGER, v,
                    "on-request-end, on-attribute-modify or on-shutdown");
            return set(REPLICATION_TRIGGER);
        }

        public Builder writeQuota(int v) {
            this.writeQuota = checkRange(WRITE_QUOTA, v, 0, MAX_WRITE_QUOTA);
            return set(WRITE_QUOTA);
        }

        public Builder allowColocation(boolean v) {
            this.allowColocation = v;
            return set(ALLOW_COLOCATION);
        }

        public Builder machineId(String v) {
            this.machineId = OptionParsers.text(MACHINE_ID, v);
            return set(MACHINE_ID);
        }

        public Builder discovery(DiscoveryMode v) {
            this.discovery = required(DISCOVERY, v, "multicast, static or dynamic");
            return set(DISCOVERY);
        }

        public Builder clusterName(String v) {
            this.clusterName = OptionParsers.text(CLUSTER_NAME, v);
            return set(CLUSTER_NAME);
        }

        public Builder bindAddress(String v) {
            this.bindAddress = OptionParsers.host(BIND_ADDRESS, required(BIND_ADDRESS, v, "a host"),
                    "a host name, IPv4 address or IPv6 literal");
            return set(BIND_ADDRESS);
        }

        public Builder bindPort(int v) {
            if (v < 0 || v > 65535) {
                throw notAllowed(BIND_PORT, String.valueOf(v), "0 (auto) or a port from 1 to 65535");
            }
            this.bindPort = v;
            return set(BIND_PORT);
        }

        public Builder peers(List<HostPort> v) {
            for (HostPort p : required(PEERS, v, "a list of host:port")) {
                OptionParsers.hostPort(PEERS, required(PEERS, p, "host:port").toString());
            }
            this.peers = List.copyOf(v);
            return set(PEERS);
        }

        public Builder multicastAddress(String v) {
            String address = required(MULTICAST_ADDRESS, v, "a multicast address").strip();
            address = address.startsWith("[") && address.endsWith("]")
                    ? address.substring(1, address.length() - 1) : address;
            if (!OptionParsers.isMulticastLiteral(address)) {
                throw new ConfigException(MULTICAST_ADDRESS.key(), quote(v) + " is not a multicast address; expected"
                        + " an IPv4 multicast address in 224.0.0.0/4 (224.0.0.0 to 239.255.255.255) or an IPv6"
                        + " multicast address in ff00::/8, such as 228.8.8.8");
            }
            this.multicastAddress = address;
            return set(MULTICAST_ADDRESS);
        }

        public Builder multicastPort(int v) {
            this.multicastPort = checkRange(MULTICAST_PORT, v, 1, 65535);
            return set(MULTICAST_PORT);
        }

        public Builder dynamicDiscovery(DynamicDiscovery v) {
            this.dynamicDiscovery = required(DYNAMIC_DISCOVERY, v, "multicast, file or dns");
            return set(DYNAMIC_DISCOVERY);
        }

        public Builder discoveryDirectory(String v) {
            this.discoveryDirectory = absolutePath(DISCOVERY_DIRECTORY, v, "the absolute path of a directory that"
                    + " every node can read and write, such as /mnt/shared/sessionrep");
            return set(DISCOVERY_DIRECTORY);
        }

        public Builder dnsQuery(List<String> v) {
            String expected = "one or more DNS names separated by commas, such as sessions.shop.svc.cluster.local";
            if (required(DNS_QUERY, v, expected).isEmpty()) {
                throw notAllowed(DNS_QUERY, "an empty list", expected);
            }
            this.dnsQuery = v.stream().map(name -> OptionParsers.dnsName(DNS_QUERY, name, expected)).toList();
            return set(DNS_QUERY);
        }

        public Builder dnsRecordType(DnsRecordType v) {
            this.dnsRecordType = required(DNS_RECORD_TYPE, v, "A or SRV");
            return set(DNS_RECORD_TYPE);
        }

        public Builder jgroupsConfig(String v) {
            String expected = "the path of a JGroups XML stack file, such as /etc/sessionrep/stack.xml";
            if (v == null || v.isBlank() || v.length() > 4096 || v.chars().anyMatch(Character::isISOControl)) {
                throw notAllowed(JGROUPS_CONFIG, v == null ? "null" : quote(v), expected);
            }
            try {
                Path.of(v);
            } catch (InvalidPathException e) {
                throw notAllowed(JGROUPS_CONFIG, quote(v), expected);
            }
            this.jgroupsConfig = v;
            return set(JGROUPS_CONFIG);
        }

        public Builder maxSessionSize(long v) {
            if (v < MIN_SESSION_SIZE || v > MAX_SESSION_SIZE_LIMIT) {
                throw notAllowed(MAX_SESSION_SIZE, formatSize(v), "a size from 1KiB to 2GiB");
            }
            this.maxSessionSize = v;
            return set(MAX_SESSION_SIZE);
        }

        public Builder maxBackupBytes(long v) {
            if (v < MIB || v > 1024 * GIB) {
                throw notAllowed(MAX_BACKUP_BYTES, formatSize(v), "a size from 1MiB to 1TiB (default: half the heap)");
            }
            this.maxBackupBytes = v;
            return set(MAX_BACKUP_BYTES);
        }

        /**
         * The shared secret that encrypts replication traffic and keeps nodes without it out: at least
         * {@value #MIN_CLUSTER_KEY_LENGTH} characters, or {@code file:/path} to read it from a file (first
         * line, so the secret need not appear in container XML). Null or blank = no key (plain traffic).
         * The value is never echoed in messages or logs.
         */
        public Builder clusterKey(String v) {
            if (v == null || v.isBlank()) {
                this.clusterKey = null;
                return this;
            }
            String secret = v.startsWith("file:") ? readSecretFile(CLUSTER_KEY, v.substring("file:".length())) : v;
            if (secret.length() < MIN_CLUSTER_KEY_LENGTH) {
                throw new ConfigException(CLUSTER_KEY.key(), "the secret is " + secret.length()
                        + " characters long; expected at least " + MIN_CLUSTER_KEY_LENGTH
                        + " (a random secret, e.g. the output of 'openssl rand -base64 32'), or file:/path/to/secret");
            }
            this.clusterKey = secret;
            return set(CLUSTER_KEY);
        }

        private static String readSecretFile(ConfigOption option, String path) {
            try {
                List<String> lines = java.nio.file.Files.readAllLines(java.nio.file.Path.of(path));
                return lines.isEmpty() ? "" : lines.get(0).strip();
            } catch (java.io.IOException | java.nio.file.InvalidPathException e) {
                throw new ConfigException(option.key(), "file:" + path + " cannot be read ("
                        + e.getClass().getSimpleName() + "); expected a readable file whose first line is the secret");
            }
        }

        /** {@code tls-keystore}: a path (checked when the node starts); null or blank = no TLS. */
        public Builder tlsKeystore(String v) {
            this.tlsKeystore = storePath(TLS_KEYSTORE, v);
            return set(TLS_KEYSTORE);
        }

        /** {@code tls-keystore-password}: the password, or {@code file:/path} (first line); never echoed. */
        public Builder tlsKeystorePassword(String v) {
            this.tlsKeystorePassword = storePassword(TLS_KEYSTORE_PASSWORD, v);
            return set(TLS_KEYSTORE_PASSWORD);
        }

        /** {@code tls-keystore-type}: {@code pkcs12} or {@code jks} (any case). */
        public Builder tlsKeystoreType(String v) {
            this.tlsKeystoreType = storeType(TLS_KEYSTORE_TYPE, v);
            return set(TLS_KEYSTORE_TYPE);
        }

        /** {@code tls-truststore}: a path (checked when the node starts); null or blank = not set. */
        public Builder tlsTruststore(String v) {
            this.tlsTruststore = storePath(TLS_TRUSTSTORE, v);
            return set(TLS_TRUSTSTORE);
        }

        /** {@code tls-truststore-password}: the password, or {@code file:/path} (first line); never echoed. */
        public Builder tlsTruststorePassword(String v) {
            this.tlsTruststorePassword = storePassword(TLS_TRUSTSTORE_PASSWORD, v);
            return set(TLS_TRUSTSTORE_PASSWORD);
        }

        /** {@code tls-truststore-type}: {@code pkcs12} or {@code jks} (any case). */
        public Builder tlsTruststoreType(String v) {
            this.tlsTruststoreType = storeType(TLS_TRUSTSTORE_TYPE, v);
            return set(TLS_TRUSTSTORE_TYPE);
        }

        /** {@code insecure-cluster}: allow a non-loopback {@code bind-address} without credentials. */
        public Builder insecureCluster(boolean v) {
            this.insecureCluster = v;
            return set(INSECURE_CLUSTER);
        }

        private static String storePath(ConfigOption option, String v) {
            if (v == null || v.isBlank()) {
                return null;
            }
            String expected = "the path of a key store file";
            if (v.length() > 4096 || v.chars().anyMatch(Character::isISOControl)) {
                throw notAllowed(option, quote(v), expected);
            }
            try {
                Path.of(v);
            } catch (InvalidPathException e) {
                throw notAllowed(option, quote(v), expected);
            }
            return v;
        }

        private static String storePassword(ConfigOption option, String v) {
            if (v == null || v.isEmpty()) {
                return null;
            }
            String password = v.startsWith("file:") ? readSecretFile(option, v.substring("file:".length())) : v;
            if (password.isEmpty()) {
                throw new ConfigException(option.key(), "the password is empty; expected the key store's password"
                        + " or file:/path/to/password");
            }
            return password;
        }

        private static String storeType(ConfigOption option, String v) {
            String type = v == null ? "" : v.strip().toLowerCase(java.util.Locale.ROOT);
            if (!type.equals("pkcs12") && !type.equals("jks")) {
                throw notAllowed(option, v == null ? "null" : quote(v), "pkcs12 or jks");
            }
            return type;
        }

        public Builder serializationAllowlist(List<String> v) {
            this.serializationAllowlist = required(SERIALIZATION_ALLOWLIST, v, "a list of packages or classes")
                    .stream().map(e -> OptionParsers.allowlistEntry(SERIALIZATION_ALLOWLIST, e)).toList();
            return set(SERIALIZATION_ALLOWLIST);
        }

        public Builder asyncQueueEntries(int v) {
            this.asyncQueueEntries = checkRange(ASYNC_QUEUE_ENTRIES, v, 1, Integer.MAX_VALUE);
            return set(ASYNC_QUEUE_ENTRIES);
        }

        public Builder asyncQueueBytes(long v) {
            if (v < MIN_QUEUE_BYTES) {
                throw notAllowed(ASYNC_QUEUE_BYTES, formatSize(v), "a size of at least 64KiB");
            }
            this.asyncQueueBytes = v;
            return set(ASYNC_QUEUE_BYTES);
        }

        public Builder metrics(MetricsExport v) {
            this.metrics = required(METRICS, v, "jmx or none");
            return set(METRICS);
        }

        /**
         * Applies canonical option names to text values; each value overrides what was set before, so
         * sources are layered by applying them in order of precedence, lowest first. Blank or null values
         * leave the option as it is. Fails on the first unknown key (in sorted order), suggesting the closest
         * option, or on the first bad value.
         */
        public Builder apply(Map<String, String> options) {
            return apply(options, "");
        }

        /**
         * Applies the properties whose names start with {@code prefix} (e.g. {@code "sessionrep."}), as
         * {@link #apply(Map)} with the prefix removed. Other properties are ignored.
         */
        public Builder apply(Properties properties, String prefix) {
            Map<String, String> options = new HashMap<>();
            for (String name : properties.stringPropertyNames()) {
                if (name.startsWith(prefix)) {
                    options.put(name.substring(prefix.length()), properties.getProperty(name));
                }
            }
            return apply(options, prefix);
        }

        private Builder apply(Map<String, String> options, String prefix) {
            Map<ConfigOption, String> values = new EnumMap<>(ConfigOption.class);
            List<String> keys = new ArrayList<>(options.keySet());
            keys.sort(Comparator.nullsFirst(Comparator.naturalOrder()));
            for (String key : keys) {
                String k = String.valueOf(key);
                ConfigOption option = ConfigOption.forKey(k).orElseThrow(() -> new ConfigException(prefix + k,
                        "unknown option" + ConfigOption.closest(k).map(o -> " (did you mean " + prefix + o.key() + "?)")
                                .orElse("") + "; known options: " + String.join(", ", OPTION_NAMES)));
                String value = options.get(key);
                if (value != null && !value.isBlank()) {
                    values.put(option, value.strip());
                }
            }
            values.forEach(this::parse);
            return this;
        }

        /** Parses one text value into its typed setter. */
        private void parse(ConfigOption option, String v) {
            try {
                Builder unused = switch (option) {
                    case NODE_NAME -> nodeName(v);
                    case REPLICATION_MODE -> replicationMode(
                            OptionParsers.choice(option, v, ReplicationMode.values(), ReplicationMode::optionValue));
                    case SYNC_TIMEOUT -> syncTimeout(OptionParsers.duration(option, v));
                    case OWNERSHIP_TIMEOUT -> ownershipTimeout(OptionParsers.duration(option, v));
                    case REPLICATION_TRIGGER -> replicationTrigger(OptionParsers.choice(option, v,
                            ReplicationTrigger.values(), ReplicationTrigger::optionValue));
                    case WRITE_QUOTA -> writeQuota(OptionParsers.integer(option, v, 0, MAX_WRITE_QUOTA));
                    case ALLOW_COLOCATION -> allowColocation(OptionParsers.bool(option, v));
                    case MACHINE_ID -> machineId(v);
                    case DISCOVERY -> discovery(
                            OptionParsers.choice(option, v, DiscoveryMode.values(), DiscoveryMode::optionValue));
                    case CLUSTER_NAME -> clusterName(v);
                    case BIND_ADDRESS -> bindAddress(v);
                    case BIND_PORT -> bindPort(OptionParsers.integer(option, v, 0, 65535));
                    case PEERS -> peers(OptionParsers.hostPorts(option, v));
                    case MULTICAST_ADDRESS -> multicastAddress(v);
                    case MULTICAST_PORT -> multicastPort(OptionParsers.integer(option, v, 1, 65535));
                    case DYNAMIC_DISCOVERY -> dynamicDiscovery(OptionParsers.choice(option, v,
                            DynamicDiscovery.values(), DynamicDiscovery::optionValue));
                    case DISCOVERY_DIRECTORY -> discoveryDirectory(v);
                    case DNS_QUERY -> dnsQuery(OptionParsers.list(v));
                    case DNS_RECORD_TYPE -> dnsRecordType(OptionParsers.choice(option, v, DnsRecordType.values(),
                            DnsRecordType::optionValue));
                    case JGROUPS_CONFIG -> jgroupsConfig(v);
                    case MAX_SESSION_SIZE -> maxSessionSize(OptionParsers.size(option, v));
                    case MAX_BACKUP_BYTES -> maxBackupBytes(OptionParsers.size(option, v));
                    case CLUSTER_KEY -> clusterKey(v);
                    case TLS_KEYSTORE -> tlsKeystore(v);
                    case TLS_KEYSTORE_PASSWORD -> tlsKeystorePassword(v);
                    case TLS_KEYSTORE_TYPE -> tlsKeystoreType(v);
                    case TLS_TRUSTSTORE -> tlsTruststore(v);
                    case TLS_TRUSTSTORE_PASSWORD -> tlsTruststorePassword(v);
                    case TLS_TRUSTSTORE_TYPE -> tlsTruststoreType(v);
                    case INSECURE_CLUSTER -> insecureCluster(OptionParsers.bool(option, v));
                    case SERIALIZATION_ALLOWLIST -> serializationAllowlist(OptionParsers.list(v));
                    case ASYNC_QUEUE_ENTRIES -> asyncQueueEntries(OptionParsers.integer(option, v, 1, Integer.MAX_VALUE));
                    case ASYNC_QUEUE_BYTES -> asyncQueueBytes(OptionParsers.size(option, v));
                    case METRICS -> metrics(
                            OptionParsers.choice(option, v, MetricsExport.values(), MetricsExport::optionValue));
                };
            } catch (ConfigException e) {
                if (SECRETS.contains(option) || e.getMessage().contains(v)) {
                    throw e; // never echo a secret; no need to repeat a value the message already shows
                }
                throw new ConfigException(option.key(), e.getMessage().substring(option.key().length() + 2)
                        + " (configured as " + quote(v) + ")");
            }
        }

        /** The options that shape the generated JGroups stack, which {@code jgroups-config} replaces. */
        private static final List<ConfigOption> STACK_OPTIONS = List.of(DISCOVERY, BIND_ADDRESS, BIND_PORT, PEERS,
                MULTICAST_ADDRESS, MULTICAST_PORT, DYNAMIC_DISCOVERY, DISCOVERY_DIRECTORY, DNS_QUERY, DNS_RECORD_TYPE);

        /** Options whose values are secrets: never echoed in messages. */
        private static final Set<ConfigOption> SECRETS = EnumSet.of(CLUSTER_KEY, TLS_KEYSTORE_PASSWORD,
                TLS_TRUSTSTORE_PASSWORD);

        /** Checks the rules between options, then returns the immutable configuration. */
        public ReplicationConfig build() {
            checkSecurityOptions();
            if (jgroupsConfig != null && clusterKey != null) {
                throw new ConfigException(CLUSTER_KEY.key(), "is set, but jgroups-config (" + quote(jgroupsConfig)
                        + ") replaces the generated JGroups stack, where cluster-key adds encryption; expected"
                        + " cluster-key without jgroups-config, or jgroups-config alone with TLS on its TCP"
                        + " transport inside the XML file");
            }
            if (jgroupsConfig != null) {
                for (ConfigOption o : STACK_OPTIONS) {
                    if (explicit.contains(o)) {
                        throw new ConfigException(o.key(), quote(text(o)) + " is set, but jgroups-config ("
                                + quote(jgroupsConfig) + ") replaces the generated JGroups stack, so " + o.key()
                                + " would have no effect; expected either " + o.key() + " without jgroups-config,"
                                + " or jgroups-config alone with that setting inside the XML file");
                    }
                }
            }
            String mode = "discovery is " + discovery.optionValue();
            if (!peers.isEmpty() && discovery != DiscoveryMode.STATIC) {
                throw mixedModes(PEERS, "discovery=static", mode, "no peers with discovery="
                        + discovery.optionValue() + ", or discovery=static");
            }
            boolean dynamic = discovery == DiscoveryMode.DYNAMIC;
            for (ConfigOption o : List.of(MULTICAST_ADDRESS, MULTICAST_PORT)) {
                if (discovery == DiscoveryMode.STATIC && explicit.contains(o)) {
                    throw mixedModes(o, "discovery=multicast or dynamic", mode,
                            "no " + o.key() + " with discovery=static, or discovery=multicast or dynamic");
                }
                if (dynamic && dynamicDiscovery != DynamicDiscovery.MULTICAST && explicit.contains(o)) {
                    throw mixedModes(o, "discovery=multicast, or discovery=dynamic with dynamic-discovery=multicast",
                            "dynamic-discovery is " + dynamicDiscovery.optionValue(), "no " + o.key()
                                    + " with dynamic-discovery=" + dynamicDiscovery.optionValue()
                                    + ", or dynamic-discovery=multicast");
                }
            }
            if (!dynamic && explicit.contains(DYNAMIC_DISCOVERY)) {
                throw mixedModes(DYNAMIC_DISCOVERY, "discovery=dynamic", mode, "no dynamic-discovery with discovery="
                        + discovery.optionValue() + ", or discovery=dynamic");
            }
            subModeOptions(DynamicDiscovery.FILE, DISCOVERY_DIRECTORY);
            subModeOptions(DynamicDiscovery.DNS, DNS_QUERY, DNS_RECORD_TYPE);
            if (dynamic && dynamicDiscovery == DynamicDiscovery.FILE && discoveryDirectory == null) {
                throw new ConfigException(DISCOVERY_DIRECTORY.key(), "not set, but dynamic-discovery=file needs it;"
                        + " expected the absolute path of a directory that every node can read and write, such as"
                        + " /mnt/shared/sessionrep");
            }
            if (dynamic && dynamicDiscovery == DynamicDiscovery.DNS && dnsQuery.isEmpty()) {
                throw new ConfigException(DNS_QUERY.key(), "not set, but dynamic-discovery=dns needs it; expected"
                        + " one or more DNS names that resolve to the nodes, such as sessions.shop.svc.cluster.local");
            }
            return new ReplicationConfig(this);
        }

        /** The rules between cluster-key, the tls-* options and insecure-cluster. */
        private void checkSecurityOptions() {
            requiresStore(tlsKeystorePassword != null || explicit.contains(TLS_KEYSTORE_TYPE), tlsKeystore,
                    explicit.contains(TLS_KEYSTORE_TYPE) ? TLS_KEYSTORE_TYPE : TLS_KEYSTORE_PASSWORD, TLS_KEYSTORE);
            requiresStore(tlsTruststorePassword != null || explicit.contains(TLS_TRUSTSTORE_TYPE), tlsTruststore,
                    explicit.contains(TLS_TRUSTSTORE_TYPE) ? TLS_TRUSTSTORE_TYPE : TLS_TRUSTSTORE_PASSWORD,
                    TLS_TRUSTSTORE);
            boolean tls = tlsKeystore != null || tlsTruststore != null;
            if (tls) {
                String both = "; TLS between nodes needs tls-keystore (this node's key and certificate),"
                        + " tls-truststore (the certificates of the peers it accepts) and their passwords";
                if (tlsKeystore == null) {
                    throw new ConfigException(TLS_KEYSTORE.key(), "not set, but tls-truststore is" + both);
                }
                if (tlsTruststore == null) {
                    throw new ConfigException(TLS_TRUSTSTORE.key(), "not set, but tls-keystore is" + both);
                }
                if (tlsKeystorePassword == null) {
                    throw new ConfigException(TLS_KEYSTORE_PASSWORD.key(), "not set, but tls-keystore is" + both);
                }
                if (tlsTruststorePassword == null) {
                    throw new ConfigException(TLS_TRUSTSTORE_PASSWORD.key(), "not set, but tls-truststore is" + both);
                }
                if (jgroupsConfig != null) {
                    throw new ConfigException(TLS_KEYSTORE.key(), "is set, but jgroups-config (" + quote(jgroupsConfig)
                            + ") replaces the generated JGroups stack, where tls-keystore enables TLS; expected"
                            + " tls-* without jgroups-config, or jgroups-config alone with TLS inside the XML file");
                }
                boolean multicast = discovery == DiscoveryMode.MULTICAST
                        || discovery == DiscoveryMode.DYNAMIC && dynamicDiscovery == DynamicDiscovery.MULTICAST;
                if (multicast) {
                    throw new ConfigException(TLS_KEYSTORE.key(), "is set, but TLS is not supported with multicast"
                            + " discovery (" + (discovery == DiscoveryMode.MULTICAST ? "discovery=multicast sends"
                            + " everything by UDP" : "dynamic-discovery=multicast discovers by plain UDP multicast")
                            + "); expected discovery=static, or discovery=dynamic with dynamic-discovery=file or dns,"
                            + " or cluster-key instead of TLS");
                }
            }
            if (insecureCluster && (clusterKey != null || tls)) {
                throw new ConfigException(INSECURE_CLUSTER.key(), "true, but " + (clusterKey != null ? "cluster-key"
                        : "tls-keystore") + " is set, so the cluster is not insecure; expected insecure-cluster=false"
                        + " (the default) with credentials, or insecure-cluster=true without any");
            }
        }

        private void requiresStore(boolean used, String store, ConfigOption usedOption, ConfigOption storeOption) {
            if (used && store == null) {
                throw new ConfigException(usedOption.key(), "is set, but " + storeOption.key() + " is not; expected "
                        + usedOption.key() + " together with " + storeOption.key());
            }
        }

        /** Options of one dynamic sub-mode are refused with another discovery or sub-mode. */
        private void subModeOptions(DynamicDiscovery subMode, ConfigOption... options) {
            boolean active = discovery == DiscoveryMode.DYNAMIC && dynamicDiscovery == subMode;
            for (ConfigOption o : options) {
                if (!active && explicit.contains(o)) {
                    String actual = discovery == DiscoveryMode.DYNAMIC
                            ? "dynamic-discovery is " + dynamicDiscovery.optionValue()
                            : "discovery is " + discovery.optionValue();
                    throw mixedModes(o, "discovery=dynamic with dynamic-discovery=" + subMode.optionValue(), actual,
                            "no " + o.key() + " there, or discovery=dynamic with dynamic-discovery="
                                    + subMode.optionValue());
                }
            }
        }

        private ConfigException mixedModes(ConfigOption option, String belongsTo, String actual, String expected) {
            return new ConfigException(option.key(), quote(text(option)) + " is set, but " + option.key()
                    + " is an option of " + belongsTo + " and " + actual + " (mixing options of different modes);"
                    + " expected " + expected);
        }

        /** The value of a stack option as configured, for messages. */
        private String text(ConfigOption option) {
            return switch (option) {
                case DISCOVERY -> discovery.optionValue();
                case BIND_ADDRESS -> bindAddress;
                case BIND_PORT -> String.valueOf(bindPort);
                case PEERS -> peers.stream().map(HostPort::toString).collect(Collectors.joining(","));
                case MULTICAST_ADDRESS -> multicastAddress;
                case MULTICAST_PORT -> String.valueOf(multicastPort);
                case DYNAMIC_DISCOVERY -> dynamicDiscovery.optionValue();
                case DISCOVERY_DIRECTORY -> String.valueOf(discoveryDirectory);
                case DNS_QUERY -> String.join(",", dnsQuery);
                case DNS_RECORD_TYPE -> dnsRecordType.optionValue();
                default -> throw new IllegalArgumentException(option.key());
            };
        }

        /** An absolute path (as given, not resolved): not blank, no control characters. */
        private static String absolutePath(ConfigOption option, String v, String expected) {
            if (v == null || v.isBlank() || v.length() > 4096 || v.chars().anyMatch(Character::isISOControl)) {
                throw notAllowed(option, v == null ? "null" : quote(v), expected);
            }
            try {
                if (Path.of(v).isAbsolute()) {
                    return v;
                }
            } catch (InvalidPathException e) {
                // reported below
            }
            throw notAllowed(option, quote(v), expected);
        }

        private static <T> T required(ConfigOption option, T value, String expected) {
            if (value == null) {
                throw notAllowed(option, "null", expected);
            }
            return value;
        }

        private Builder set(ConfigOption option) {
            explicit.add(option);
            return this;
        }
    }
}
