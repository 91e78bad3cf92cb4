package io.sessionrep.core.config;

import static io.sessionrep.core.config.ConfigOption.ALLOW_COLOCATION;
import static io.sessionrep.core.config.ConfigOption.ASYNC_BATCH_WINDOW;
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
import static io.sessionrep.core.config.ConfigOption.DATA_LANE;
import static io.sessionrep.core.config.ConfigOption.DATA_LANE_PORT;
import static io.sessionrep.core.config.ConfigOption.ASYNC_LANE;
import static io.sessionrep.core.config.ConfigOption.SYNC_TIMEOUT;
import static io.sessionrep.core.config.ConfigOption.OWNERSHIP_TIMEOUT;
import static io.sessionrep.core.config.ConfigOption.IGNORED_PATHS;
import static io.sessionrep.core.config.ConfigOption.INSECURE_CLUSTER;
import static io.sessionrep.core.config.ConfigOption.TLS_KEYSTORE;
import static io.sessionrep.core.config.ConfigOption.TLS_KEYSTORE_PASSWORD;
import static io.sessionrep.core.config.ConfigOption.TLS_KEYSTORE_TYPE;
import static io.sessionrep.core.config.ConfigOption.TLS_TRUSTSTORE;
import static io.sessionrep.core.config.ConfigOption.TLS_TRUSTSTORE_PASSWORD;
import static io.sessionrep.core.config.ConfigOption.TLS_TRUSTSTORE_TYPE;
import static io.sessionrep.core.config.ConfigOption.WRITE_QUOTA;
import static io.sessionrep.core.config.OptionParsers.quote;

import java.net.InetAddress;
import java.net.UnknownHostException;
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
import java.util.stream.Collectors;

/**
 * The one validated option set (the configuration reference of the README), the same for every integration.
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
 * <p>Each option is declared once, as a row of {@link ConfigOption} (name, type, parser, check, default,
 * documentation); this class holds the values in an array indexed by that table's rows, and keeps a
 * typed getter and builder setter per option for programmatic users. The rules between options are in
 * {@link Builder#build()}.
 *
 * <p>Log {@link #describe()} and every line of {@link #notYetActive()} at start-up.
 */
public final class ReplicationConfig {

    /** The canonical option names, in documentation order (the keys {@link #fromMap(Map)} accepts). */
    public static final List<String> OPTION_NAMES =
            Arrays.stream(ConfigOption.values()).map(ConfigOption::key).toList();

    /** Shortest accepted {@code cluster-key} secret. */
    public static final int MIN_CLUSTER_KEY_LENGTH = OptionParsers.MIN_CLUSTER_KEY_LENGTH;

    /**
     * Every option's value as held, by {@link ConfigOption#ordinal()} (typed as its row declares; null = not
     * set). An array: some getters run several times per request, and a map look-up cost more there.
     */
    private final Object[] values;
    /** The options set by a source (the others are defaults). */
    private final Set<ConfigOption> explicit;

    private ReplicationConfig(Builder b) {
        this.values = new Object[ConfigOption.values().length];
        b.values.forEach((option, value) -> values[option.ordinal()] = value);
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
    public String nodeName() { return get(NODE_NAME); }

    /**
     * {@code replication-mode}: {@code async} (the request thread only snapshots; never waits on the network)
     * or {@code sync} (the request waits for the first backup's acknowledgement, at most {@link #syncTimeout()}).
     * Default {@code async}.
     */
    public ReplicationMode replicationMode() { return get(REPLICATION_MODE); }

    /**
     * {@code sync-timeout}: how long a sync request waits for a backup's acknowledgement before it proceeds
     * (the miss is counted). Greater than 0 and at most 60s. Default {@code 500ms}.
     */
    public Duration syncTimeout() { return get(SYNC_TIMEOUT); }

    /** {@code data-lane}: sync request ends send over a connection of their own (TLS with tls-keystore; not with jgroups-config). */
    public boolean dataLane() { return get(DATA_LANE); }

    /** {@code data-lane-port}: 0 picks a free port. */
    public int dataLanePort() { return get(DATA_LANE_PORT); }

    /** {@code async-lane}: async batches over the data lane as well. */
    public boolean asyncLane() { return get(ASYNC_LANE); }

    /**
     * {@code ownership-timeout}: how long a request for a session owned by another live node waits for that
     * node to hand the session over (its running requests on the session finish first). When it passes,
     * the request is refused with 503 (Jetty: before the application; Tomcat and the filter: from the
     * application's first session lookup). Greater than 0 and at most 60s.
     * Default {@code 5s}.
     */
    public Duration ownershipTimeout() { return get(OWNERSHIP_TIMEOUT); }

    /**
     * {@code ignored-paths}: requests whose path inside the context (URI without the context path) matches this
     * Java regular expression take no part in session ownership: they neither wait for nor move the session,
     * and what they change in it is not replicated by them. Default: usual static files by extension
     * ({@link IgnoredPaths#DEFAULT_EXPRESSION}); {@code none}: every request takes part.
     */
    public IgnoredPaths ignoredPaths() { return get(IGNORED_PATHS); }

    /**
     * {@code replication-trigger}: {@code on-request-end}, {@code on-attribute-modify} or {@code on-shutdown}.
     * Default {@code on-request-end}. {@code on-attribute-modify}: each setAttribute/removeAttribute is
     * replicated before it returns; {@code on-shutdown}: nothing is sent until an orderly shutdown hands
     * every live session over to its backups.
     */
    public ReplicationTrigger replicationTrigger() { return get(REPLICATION_TRIGGER); }

    /** {@code write-quota}: backup copies per session, 0 to 64; 0 = no replication. Default 1. */
    public int writeQuota() { return get(WRITE_QUOTA); }

    /**
     * {@code allow-colocation}: {@code true} or {@code false}; whether a backup may live on the same machine
     * ({@link #machineId()}) as the primary when no other machine is available. Default {@code true}.
     */
    public boolean allowColocation() { return get(ALLOW_COLOCATION); }

    /**
     * {@code machine-id}: what "same machine" means for {@link #allowColocation()}; 1 to 128 characters,
     * not blank, no control characters. Default: the host name ({@code localhost} when it cannot be found).
     */
    public String machineId() { return get(MACHINE_ID); }

    /** {@code discovery}: {@code multicast}, {@code static} or {@code dynamic} (docs/discovery.md). Default {@code static}. */
    public DiscoveryMode discovery() { return get(DISCOVERY); }

    /**
     * {@code cluster-name}: nodes with different names never see each other; 1 to 128 characters, not blank,
     * no control characters. Default {@code sessions}.
     */
    public String clusterName() { return get(CLUSTER_NAME); }

    /**
     * {@code bind-address}: where this node listens for replication traffic; a host name, IPv4 address or
     * IPv6 literal (held without brackets). Not resolved during validation. Default {@code 127.0.0.1}.
     */
    public String bindAddress() { return get(BIND_ADDRESS); }

    /** {@code bind-port}: 1 to 65535, or 0 = auto (first free port from 7800). Default 0. */
    public int bindPort() { return get(BIND_PORT); }

    /**
     * {@code peers}: the nodes this node knows, for {@code discovery=static} only (a ring is enough);
     * {@code host:port}, IPv6 as {@code [::1]:7800}, port 1 to 65535. The list may contain this node's own
     * address, so every node can be given the same list. Default: empty.
     */
    public List<HostPort> peers() { return get(PEERS); }

    /**
     * {@code multicast-address}: an IPv4 multicast address (224.0.0.0/4) or IPv6 multicast address
     * (ff00::/8) for {@code discovery=multicast} or {@code dynamic}. Default {@code 228.8.8.8}.
     */
    public String multicastAddress() { return get(MULTICAST_ADDRESS); }

    /** {@code multicast-port}: 1 to 65535, for {@code discovery=multicast} or {@code dynamic}. Default 45588. */
    public int multicastPort() { return get(MULTICAST_PORT); }

    /**
     * {@code dynamic-discovery}: how {@code discovery=dynamic} finds peers: {@code multicast} (IP multicast on
     * {@code multicast-address}:{@code multicast-port}), {@code file} (a shared {@code discovery-directory}) or
     * {@code dns} ({@code dns-query}). Only with {@code discovery=dynamic}. Default {@code multicast}.
     */
    public DynamicDiscovery dynamicDiscovery() { return get(DYNAMIC_DISCOVERY); }

    /**
     * {@code discovery-directory}: for {@code dynamic-discovery=file} (required there, refused elsewhere): the
     * absolute path of a directory every node of the cluster can read and write (a shared volume or NFS
     * mount); created if missing. Null when not set.
     */
    public String discoveryDirectory() { return get(DISCOVERY_DIRECTORY); }

    /**
     * {@code dns-query}: for {@code dynamic-discovery=dns} (required there, refused elsewhere): one or more DNS
     * names, separated by commas, that resolve to the nodes, e.g. a Kubernetes headless service
     * {@code sessions.shop.svc.cluster.local}. Empty when not set.
     */
    public List<String> dnsQuery() { return get(DNS_QUERY); }

    /**
     * {@code dns-record-type}: {@code A} (addresses; each probed on the replication port) or {@code SRV}
     * (host and port per node), for {@code dynamic-discovery=dns} only. Default {@code A}.
     */
    public DnsRecordType dnsRecordType() { return get(DNS_RECORD_TYPE); }

    /**
     * {@code jgroups-config}: path of a JGroups XML stack file that replaces the generated stack (for experts).
     * The file must exist and parse when the node starts. With it, the options that shape the generated stack
     * ({@code discovery}, {@code bind-address}, {@code bind-port}, {@code peers}, {@code multicast-*},
     * {@code dynamic-discovery}, {@code discovery-directory}, {@code dns-*}) are refused: the XML says all of
     * that. {@code cluster-name}, {@code node-name} and {@code machine-id} still apply. Null when not set.
     */
    public String jgroupsConfig() { return get(JGROUPS_CONFIG); }

    /** {@code max-session-size} in bytes: larger sessions are not replicated; 1KiB to 2GiB. Default 1MiB. */
    public long maxSessionSize() { return get(MAX_SESSION_SIZE); }

    /**
     * {@code max-backup-bytes}: the attribute bytes this node holds at most as backups of other nodes'
     * sessions. When reached, copies of sessions not held yet are refused (counted, logged once a minute);
     * copies held keep being updated. 1MiB to 1TiB. Default: half of this JVM's maximum heap.
     */
    public long maxBackupBytes() { return get(MAX_BACKUP_BYTES); }

    /**
     * {@code cluster-key}: the shared secret of the cluster, or null. Every frame between nodes is then
     * encrypted and authenticated (AES-256-GCM with a key derived from the secret) and accepted once and only
     * while fresh; a node without the secret can neither join, read, inject nor replay. The README's security
     * section lists what stays plain. Never logged.
     */
    public String clusterKey() { return get(CLUSTER_KEY); }

    /**
     * {@code tls-keystore}: path of this node's key store (its private key and certificate) for TLS between
     * nodes, or null (no TLS). With it, the TCP transport speaks TLS and requires a certificate from every
     * peer (mutual authentication) that {@code tls-truststore} trusts. Needs {@code tls-truststore} and
     * both passwords; refused with {@code discovery=multicast} and {@code dynamic-discovery=multicast}
     * (multicast is not carried over TLS) and with {@code jgroups-config}. The file is checked at start-up.
     */
    public String tlsKeystore() { return get(TLS_KEYSTORE); }

    /** {@code tls-keystore-password}: the password of {@code tls-keystore} (or {@code file:/path}); never logged. */
    public String tlsKeystorePassword() { return get(TLS_KEYSTORE_PASSWORD); }

    /** {@code tls-keystore-type}: {@code pkcs12} or {@code jks}. Default {@code pkcs12}. */
    public String tlsKeystoreType() { return get(TLS_KEYSTORE_TYPE); }

    /**
     * {@code tls-truststore}: path of the trust store holding the certificates (or the CA certificate) of the
     * peers this node accepts, or null. Any peer whose certificate chains to one of them is a member: use a
     * CA dedicated to this cluster.
     */
    public String tlsTruststore() { return get(TLS_TRUSTSTORE); }

    /** {@code tls-truststore-password}: the password of {@code tls-truststore} (or {@code file:/path}); never logged. */
    public String tlsTruststorePassword() { return get(TLS_TRUSTSTORE_PASSWORD); }

    /** {@code tls-truststore-type}: {@code pkcs12} or {@code jks}. Default {@code pkcs12}. */
    public String tlsTruststoreType() { return get(TLS_TRUSTSTORE_TYPE); }

    /** Whether TLS between nodes is configured ({@code tls-keystore} and {@code tls-truststore}). */
    public boolean tlsEnabled() { return tlsKeystore() != null; }

    /**
     * {@code insecure-cluster}: {@code true} lets a node start on a non-loopback {@code bind-address} with
     * neither {@code cluster-key} nor TLS, accepting that anyone who reaches its port can read and forge
     * sessions (for a network that is private by other means). Refused together with a credential.
     * Default {@code false}.
     */
    public boolean insecureCluster() { return get(INSECURE_CLUSTER); }

    /**
     * {@code serialization-allowlist}: the application classes that may be deserialized, besides the
     * serializer's built-in safe types. Each entry is a package prefix ending in {@code .} (matches every
     * class in the package and its sub-packages; {@code com.example.*} is read as {@code com.example.}) or
     * a fully qualified class name ({@code com.example.Cart}). Wildcards over everything ({@code *}) or over
     * JDK packages ({@code java.}, {@code javax.}, {@code jdk.}, {@code sun.}, {@code com.sun.}) are refused:
     * they would allow gadget classes. Default: empty.
     */
    public List<String> serializationAllowlist() { return get(SERIALIZATION_ALLOWLIST); }

    /** {@code async-queue-entries}: bound of the async sender's queue in updates; at least 1. Default 10000. */
    public int asyncQueueEntries() { return get(ASYNC_QUEUE_ENTRIES); }

    /** {@code async-queue-bytes}: bound of the async sender's queue in bytes; at least 64KiB. Default 64MiB. */
    public long asyncQueueBytes() { return get(ASYNC_QUEUE_BYTES); }

    /**
     * {@code async-batch-window}: after the first update queued since the async sender last sent, it waits this
     * long before sending what gathered, so that updates to one backup reach the transport together and share its bundling,
     * and a session's updates in that time travel as one. It is added to how far a backup lags; sync mode does
     * not use it. From 0 (send at once) to 100ms. Default 1ms.
     */
    public Duration asyncBatchWindow() { return get(ASYNC_BATCH_WINDOW); }

    /**
     * {@code metrics}: {@code jmx} or {@code none}; where the container installs (Jetty module, Tomcat
     * {@code <Manager>}, {@code web.xml} filter) export the meters. {@code jmx}: MBeans in the platform
     * MBeanServer, domain {@code sessionrep}, one per meter, named by cluster, context, node and meter, and
     * unregistered when the web application stops. A {@code MeterRegistry} passed in by an embedding
     * application gets the meters either way. Default {@code jmx}.
     */
    public MetricsExport metrics() { return get(METRICS); }

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
        return option.spec().show(values[option.ordinal()]);
    }

    /** The value of {@code option}, typed as its row declares (the getters' one implementation). */
    @SuppressWarnings("unchecked")
    private <T> T get(ConfigOption option) {
        return (T) values[option.ordinal()];
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
    static final class LocalHost {
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
     * Mutable builder that validates each value as it is set (through the option's {@link ConfigOption} row)
     * and the rules between options in {@link #build()}. Every failure is a {@link ConfigException}; the
     * option getters of {@link ReplicationConfig} document defaults and allowed values.
     */
    public static final class Builder {
        private final Map<ConfigOption, Object> values = new EnumMap<>(ConfigOption.class);
        private final Set<ConfigOption> explicit = EnumSet.noneOf(ConfigOption.class);

        private Builder() {
            for (ConfigOption option : ConfigOption.values()) {
                values.put(option, option.spec().defaultValue());
            }
        }

        // One setter per option, checked as its ConfigOption row says (the getter of the same name documents
        // it). For the optional text options (cluster-key, tls-*, ...) null or blank means "not set".
        public Builder nodeName(String v) { return set(NODE_NAME, v); }
        public Builder replicationMode(ReplicationMode v) { return set(REPLICATION_MODE, v); }
        public Builder syncTimeout(Duration v) { return set(SYNC_TIMEOUT, v); }
        public Builder dataLane(boolean v) { return set(DATA_LANE, v); }
        public Builder dataLanePort(int v) { return set(DATA_LANE_PORT, v); }
        public Builder asyncLane(boolean v) { return set(ASYNC_LANE, v); }
        public Builder ownershipTimeout(Duration v) { return set(OWNERSHIP_TIMEOUT, v); }
        public Builder ignoredPaths(IgnoredPaths v) { return set(IGNORED_PATHS, v); }
        public Builder replicationTrigger(ReplicationTrigger v) { return set(REPLICATION_TRIGGER, v); }
        public Builder writeQuota(int v) { return set(WRITE_QUOTA, v); }
        public Builder allowColocation(boolean v) { return set(ALLOW_COLOCATION, v); }
        public Builder machineId(String v) { return set(MACHINE_ID, v); }
        public Builder discovery(DiscoveryMode v) { return set(DISCOVERY, v); }
        public Builder clusterName(String v) { return set(CLUSTER_NAME, v); }
        public Builder bindAddress(String v) { return set(BIND_ADDRESS, v); }
        public Builder bindPort(int v) { return set(BIND_PORT, v); }
        public Builder peers(List<HostPort> v) { return set(PEERS, v); }
        public Builder multicastAddress(String v) { return set(MULTICAST_ADDRESS, v); }
        public Builder multicastPort(int v) { return set(MULTICAST_PORT, v); }
        public Builder dynamicDiscovery(DynamicDiscovery v) { return set(DYNAMIC_DISCOVERY, v); }
        public Builder discoveryDirectory(String v) { return set(DISCOVERY_DIRECTORY, v); }
        public Builder dnsQuery(List<String> v) { return set(DNS_QUERY, v); }
        public Builder dnsRecordType(DnsRecordType v) { return set(DNS_RECORD_TYPE, v); }
        public Builder jgroupsConfig(String v) { return set(JGROUPS_CONFIG, v); }
        public Builder maxSessionSize(long v) { return set(MAX_SESSION_SIZE, v); }
        public Builder maxBackupBytes(long v) { return set(MAX_BACKUP_BYTES, v); }
        public Builder clusterKey(String v) { return set(CLUSTER_KEY, v); }
        public Builder tlsKeystore(String v) { return set(TLS_KEYSTORE, v); }
        public Builder tlsKeystorePassword(String v) { return set(TLS_KEYSTORE_PASSWORD, v); }
        public Builder tlsKeystoreType(String v) { return set(TLS_KEYSTORE_TYPE, v); }
        public Builder tlsTruststore(String v) { return set(TLS_TRUSTSTORE, v); }
        public Builder tlsTruststorePassword(String v) { return set(TLS_TRUSTSTORE_PASSWORD, v); }
        public Builder tlsTruststoreType(String v) { return set(TLS_TRUSTSTORE_TYPE, v); }
        public Builder insecureCluster(boolean v) { return set(INSECURE_CLUSTER, v); }
        public Builder serializationAllowlist(List<String> v) { return set(SERIALIZATION_ALLOWLIST, v); }
        public Builder asyncQueueEntries(int v) { return set(ASYNC_QUEUE_ENTRIES, v); }
        public Builder asyncQueueBytes(long v) { return set(ASYNC_QUEUE_BYTES, v); }
        public Builder asyncBatchWindow(Duration v) { return set(ASYNC_BATCH_WINDOW, v); }
        public Builder metrics(MetricsExport v) { return set(METRICS, v); }

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

        /** Parses one text value and sets it through its row's check. */
        private void parse(ConfigOption option, String v) {
            try {
                set(option, spec(option).parse(option, v));
            } catch (ConfigException e) {
                if (option.secret() || e.getMessage().contains(v)) {
                    throw e; // never echo a secret; no need to repeat a value the message already shows
                }
                throw new ConfigException(option.key(), e.getMessage().substring(option.key().length() + 2)
                        + " (configured as " + quote(v) + ")");
            }
        }

        /** Checks the rules between options, then returns the immutable configuration. */
        public ReplicationConfig build() {
            String jgroupsConfig = get(JGROUPS_CONFIG);
            String clusterKey = get(CLUSTER_KEY);
            DiscoveryMode discovery = get(DISCOVERY);
            DynamicDiscovery dynamicDiscovery = get(DYNAMIC_DISCOVERY);
            List<HostPort> peers = get(PEERS);
            checkSecurityOptions();
            if (jgroupsConfig != null && clusterKey != null) {
                throw new ConfigException(CLUSTER_KEY.key(), "is set, but jgroups-config (" + quote(jgroupsConfig)
                        + ") replaces the generated JGroups stack, where cluster-key adds encryption; expected"
                        + " cluster-key without jgroups-config, or jgroups-config alone with TLS on its TCP"
                        + " transport inside the XML file");
            }
            if (jgroupsConfig != null) {
                for (ConfigOption o : explicit) {
                    if (o.layer() == ConfigOption.Layer.STACK) {
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
            if (dynamic && dynamicDiscovery == DynamicDiscovery.FILE && get(DISCOVERY_DIRECTORY) == null) {
                throw new ConfigException(DISCOVERY_DIRECTORY.key(), "not set, but dynamic-discovery=file needs it;"
                        + " expected the absolute path of a directory that every node can read and write, such as"
                        + " /mnt/shared/sessionrep");
            }
            if (dynamic && dynamicDiscovery == DynamicDiscovery.DNS && this.<List<String>>get(DNS_QUERY).isEmpty()) {
                throw new ConfigException(DNS_QUERY.key(), "not set, but dynamic-discovery=dns needs it; expected"
                        + " one or more DNS names that resolve to the nodes, such as sessions.shop.svc.cluster.local");
            }
            return new ReplicationConfig(this);
        }

        /** The rules between cluster-key, the tls-* options and insecure-cluster. */
        private void checkSecurityOptions() {
            String tlsKeystore = get(TLS_KEYSTORE);
            String tlsTruststore = get(TLS_TRUSTSTORE);
            String tlsKeystorePassword = get(TLS_KEYSTORE_PASSWORD);
            String tlsTruststorePassword = get(TLS_TRUSTSTORE_PASSWORD);
            String jgroupsConfig = get(JGROUPS_CONFIG);
            String clusterKey = get(CLUSTER_KEY);
            DiscoveryMode discovery = get(DISCOVERY);
            DynamicDiscovery dynamicDiscovery = get(DYNAMIC_DISCOVERY);
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
            if (this.<Boolean>get(INSECURE_CLUSTER) && (clusterKey != null || tls)) {
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
            DiscoveryMode discovery = get(DISCOVERY);
            DynamicDiscovery dynamicDiscovery = get(DYNAMIC_DISCOVERY);
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
            return spec(option).format(values.get(option));
        }

        @SuppressWarnings("unchecked")
        private <T> T get(ConfigOption option) {
            return (T) values.get(option);
        }

        @SuppressWarnings("unchecked")
        private static OptionSpec<Object> spec(ConfigOption option) {
            return (OptionSpec<Object>) option.spec();
        }

        /** Checks {@code value} by its row and holds it; a check's null result means "not set". */
        private Builder set(ConfigOption option, Object value) {
            Object held = spec(option).check(option, value);
            values.put(option, held);
            if (held == null) {
                explicit.remove(option);
            } else {
                explicit.add(option);
            }
            return this;
        }
    }
}
