package io.sessionrep.core.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * The options of SPEC section 2 under their canonical names ({@link #key()}), in documentation order.
 * Every integration (container XML attributes, module properties, filter init-params, system properties)
 * uses these keys, or maps its own attribute spelling 1:1 onto them. Meaning, default and allowed values
 * of each option are documented on the matching {@link ReplicationConfig} getter.
 */
public enum ConfigOption {
    NODE_NAME("node-name"),
    REPLICATION_MODE("replication-mode"),
    SYNC_TIMEOUT("sync-timeout"),
    OWNERSHIP_TIMEOUT("ownership-timeout"),
    REPLICATION_TRIGGER("replication-trigger"),
    WRITE_QUOTA("write-quota"),
    ALLOW_COLOCATION("allow-colocation"),
    MACHINE_ID("machine-id"),
    DISCOVERY("discovery"),
    CLUSTER_NAME("cluster-name"),
    BIND_ADDRESS("bind-address"),
    BIND_PORT("bind-port"),
    PEERS("peers"),
    MULTICAST_ADDRESS("multicast-address"),
    MULTICAST_PORT("multicast-port"),
    DYNAMIC_DISCOVERY("dynamic-discovery"),
    DISCOVERY_DIRECTORY("discovery-directory"),
    DNS_QUERY("dns-query"),
    DNS_RECORD_TYPE("dns-record-type"),
    JGROUPS_CONFIG("jgroups-config"),
    MAX_SESSION_SIZE("max-session-size"),
    MAX_BACKUP_BYTES("max-backup-bytes"),
    CLUSTER_KEY("cluster-key"),
    TLS_KEYSTORE("tls-keystore"),
    TLS_KEYSTORE_PASSWORD("tls-keystore-password"),
    TLS_KEYSTORE_TYPE("tls-keystore-type"),
    TLS_TRUSTSTORE("tls-truststore"),
    TLS_TRUSTSTORE_PASSWORD("tls-truststore-password"),
    TLS_TRUSTSTORE_TYPE("tls-truststore-type"),
    INSECURE_CLUSTER("insecure-cluster"),
    SERIALIZATION_ALLOWLIST("serialization-allowlist"),
    ASYNC_QUEUE_ENTRIES("async-queue-entries"),
    ASYNC_QUEUE_BYTES("async-queue-bytes"),
    METRICS("metrics");

    private final String key;

    ConfigOption(String key) {
        this.key = key;
    }

    /** The canonical spelling, e.g. {@code write-quota}. */
    public String key() {
        return key;
    }

    /** The option spelled exactly {@code key} (canonical spelling, case-sensitive), or empty. */
    public static Optional<ConfigOption> forKey(String key) {
        return Arrays.stream(values()).filter(o -> o.key.equals(key)).findFirst();
    }

    /**
     * The option a misspelled key most likely meant: the same name in another case or in camelCase /
     * snake_case ({@code writeQuota}), or the canonical name within a small edit distance
     * ({@code write-qouta}). Empty when nothing is close.
     */
    static Optional<ConfigOption> closest(String key) {
        String normalized = key.replaceAll("([a-z0-9])([A-Z])", "$1-$2").replace('_', '-').replace('.', '-')
                .toLowerCase(Locale.ROOT);
        ConfigOption best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (ConfigOption o : values()) {
            int d = distance(normalized, o.key);
            if (d < bestDistance) {
                best = o;
                bestDistance = d;
            }
        }
        return bestDistance <= Math.max(2, best.key.length() / 4) ? Optional.of(best) : Optional.empty();
    }

    /** Levenshtein distance. */
    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(substitution, Math.min(prev[j], cur[j - 1]) + 1);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
