package io.sessionrep.core.config;

import static io.sessionrep.core.config.OptionParsers.GIB;
import static io.sessionrep.core.config.OptionParsers.KIB;
import static io.sessionrep.core.config.OptionParsers.MIB;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The replication options: the one table every integration is derived from. Each row declares the
 * canonical name ({@link #key()}), whether the core or the transport uses it ({@link #layer()}), its type
 * with parser, check and default ({@link OptionSpec}: text parsing, {@link ReplicationConfig.Builder}
 * checks, the start-up description, {@code --help}) and one line of documentation ({@link #doc()}).
 *
 * <p>Derived from it: {@link ReplicationConfig#fromMap} / {@code fromProperties} (every text source:
 * container XML attributes, Jetty module properties, filter init-params, system properties, the launcher's
 * flags), {@link ReplicationConfig#describe()}, the Tomcat {@code <Manager>} attributes (camelCase,
 * {@link #attributeName()}), the launcher's {@code --help}. The Jetty module files, the README's and the
 * Tomcat guide's tables are checked against it by drift tests. Adding an option: one row here, one getter
 * (and builder setter) on {@link ReplicationConfig}, and the code that uses the value.
 *
 * <p>Rows are in documentation order. Rules between options ({@code peers} only with
 * {@code discovery=static}, ...) are in {@link ReplicationConfig.Builder#build()}.
 */
public enum ConfigOption {
    NODE_NAME("node-name", Layer.CORE, OptionSpec.text("NAME", "[A-Za-z0-9_-]{1,64}", OptionParsers::nodeName)
            .byDefault(() -> ReplicationConfig.defaultNodeName(ReplicationConfig.LocalHost.NAME,
                    ThreadLocalRandom.current().nextInt()), "host name + - + 4 hex"),
            "unique node name, also the route suffix of session ids (<id>.<node-name>)"),
    REPLICATION_MODE("replication-mode", Layer.CORE,
            OptionSpec.choice(ReplicationMode.values(), ReplicationMode::optionValue).byDefault(ReplicationMode.ASYNC),
            "sync: the request waits for the first backup's acknowledgement, at most sync-timeout"),
    SYNC_TIMEOUT("sync-timeout", Layer.CORE,
            OptionSpec.duration(60, "500ms").byDefault(Duration.ofMillis(500)),
            "how long a sync request waits for a backup's acknowledgement; then it proceeds (counted)"),
    DATA_LANE("data-lane", Layer.TRANSPORT, OptionSpec.bool().byDefault(true),
            "session updates go to backups over a TCP connection of their own beside the channel (sync: the update to"
                    + " the first backup, written and read by the request thread; async: each batch, by the sender thread);"
                    + " TLS with tls-keystore; false, or with jgroups-config: the channel carries them"),
    DATA_LANE_PORT("data-lane-port", Layer.STACK, OptionSpec.integer(0, 65535).byDefault(0)
            .documentedDefault("0 (auto: a free port)").shownAs(p -> p == 0 ? "0 (auto)" : null),
            "port of the data lane on bind-address (open it between nodes like bind-port)"),
    ASYNC_LANE("async-lane", Layer.TRANSPORT, OptionSpec.bool().byDefault(true),
            "async mode: the sender's batches take the data lane too, written without waiting for the backup's answer"
                    + " (false: the JGroups channel)"),
    OWNERSHIP_TIMEOUT("ownership-timeout", Layer.CORE,
            OptionSpec.duration(60, "5s").byDefault(Duration.ofSeconds(5)),
            "how long a request waits for another live node to hand the session over; then 503"),
    IGNORED_PATHS("ignored-paths", Layer.CORE, OptionSpec.ignoredPaths().byDefault(IgnoredPaths.DEFAULT),
            "requests whose path inside the context matches this Java regular expression neither move the session"
                    + " nor replicate it (they see this node's live copy, if any); none: every request takes part"),
    REPLICATION_TRIGGER("replication-trigger", Layer.CORE,
            OptionSpec.choice(ReplicationTrigger.values(), ReplicationTrigger::optionValue)
                    .byDefault(ReplicationTrigger.ON_REQUEST_END),
            "when state is sent: at request end, at each attribute change, or only at orderly shutdown"),
    WRITE_QUOTA("write-quota", Layer.CORE, OptionSpec.integer(0, 64).byDefault(1),
            "backup copies per session; 0 = no replication"),
    ALLOW_COLOCATION("allow-colocation", Layer.CORE, OptionSpec.bool().byDefault(true),
            "whether a backup may live on the same machine-id as the primary"),
    MACHINE_ID("machine-id", Layer.CORE, OptionSpec.text("ID", "string", OptionParsers::text)
            .byDefault(() -> ReplicationConfig.defaultMachineId(ReplicationConfig.LocalHost.NAME), "host name"),
            "what \"same machine\" means for allow-colocation"),
    DISCOVERY("discovery", Layer.STACK,
            OptionSpec.choice(DiscoveryMode.values(), DiscoveryMode::optionValue).byDefault(DiscoveryMode.STATIC),
            "how nodes find each other"),
    CLUSTER_NAME("cluster-name", Layer.TRANSPORT, OptionSpec.text("NAME", "string", OptionParsers::text)
            .byDefault("sessions"), "nodes with different names never see each other"),
    BIND_ADDRESS("bind-address", Layer.STACK, OptionSpec.text("HOST", "host or IP", (o, v) -> OptionParsers.host(o,
            OptionSpec.nonNull(o, v, "a host"), "a host name, IPv4 address or IPv6 literal")).byDefault("127.0.0.1"),
            "where this node listens for replication traffic"),
    BIND_PORT("bind-port", Layer.STACK, OptionSpec.integer(0, 65535)
            .checkedBy((o, v) -> {
                if (OptionSpec.nonNull(o, v, "a port") < 0 || v > 65535) {
                    throw OptionParsers.notAllowed(o, String.valueOf(v), "0 (auto) or a port from 1 to 65535");
                }
                return v;
            })
            .byDefault(0).documentedDefault("0 (auto: first free from 7800)")
            .shownAs(p -> p == 0 ? "0 (auto)" : null),
            "replication port (TCP for static and dynamic discovery)"),
    PEERS("peers", Layer.STACK, OptionSpec.<HostPort>list("HOST:PORT,...", "host:port[,host:port...]",
            OptionParsers::hostPort, (o, v) -> {
                for (HostPort p : OptionSpec.nonNull(o, v, "a list of host:port")) {
                    OptionParsers.hostPort(o, OptionSpec.nonNull(o, p, "host:port").toString());
                }
                return List.copyOf(v);
            }), "discovery=static: the nodes this node knows (a ring is enough)"),
    MULTICAST_ADDRESS("multicast-address", Layer.STACK, OptionSpec.text("ADDRESS",
            "IPv4 224.0.0.0/4 or IPv6 ff00::/8", OptionParsers::multicastAddress).byDefault("228.8.8.8"),
            "discovery=multicast or dynamic-discovery=multicast only"),
    MULTICAST_PORT("multicast-port", Layer.STACK, OptionSpec.integer(1, 65535).byDefault(45588),
            "discovery=multicast or dynamic-discovery=multicast only"),
    DYNAMIC_DISCOVERY("dynamic-discovery", Layer.STACK,
            OptionSpec.choice(DynamicDiscovery.values(), DynamicDiscovery::optionValue)
                    .byDefault(DynamicDiscovery.MULTICAST),
            "discovery=dynamic: multicast probes, a shared directory or DNS"),
    DISCOVERY_DIRECTORY("discovery-directory", Layer.STACK, OptionSpec.text("DIR", "absolute path",
            (o, v) -> OptionParsers.absolutePath(o, v, "the absolute path of a directory that every node can read"
                    + " and write, such as /mnt/shared/sessionrep")),
            "dynamic-discovery=file: a directory every node can read and write"),
    DNS_QUERY("dns-query", Layer.STACK, OptionSpec.<String>list("NAME,...", "DNS name(s)", (o, v) -> v, (o, v) -> {
        String expected = "one or more DNS names separated by commas, such as sessions.shop.svc.cluster.local";
        if (OptionSpec.nonNull(o, v, expected).isEmpty()) {
            throw OptionParsers.notAllowed(o, "an empty list", expected);
        }
        return v.stream().map(name -> OptionParsers.dnsName(o, name, expected)).toList();
    }).documentedDefault("none").shownAs(l -> l.isEmpty() ? "(not set)" : null),
            "dynamic-discovery=dns: DNS name(s) resolving to the nodes (e.g. a headless service)"),
    DNS_RECORD_TYPE("dns-record-type", Layer.STACK,
            OptionSpec.choice(DnsRecordType.values(), DnsRecordType::optionValue).byDefault(DnsRecordType.A),
            "dynamic-discovery=dns: A (addresses) or SRV (host and port per node)"),
    JGROUPS_CONFIG("jgroups-config", Layer.TRANSPORT, OptionSpec.text("FILE", "path to a JGroups XML stack",
            (o, v) -> OptionParsers.path(o, v, "the path of a JGroups XML stack file, such as /etc/sessionrep/stack.xml")),
            "experts: a JGroups XML stack replacing the generated one (then no discovery options)"),
    MAX_SESSION_SIZE("max-session-size", Layer.CORE,
            OptionSpec.size(KIB, 2 * GIB, "a size from 1KiB to 2GiB", "size, 1KiB..2GiB").byDefault(MIB),
            "larger sessions are not replicated (warned once per session, counted); backups refuse larger copies,"
                    + " also when deltas would grow one past it"),
    MAX_BACKUP_BYTES("max-backup-bytes", Layer.CORE, OptionSpec.size(MIB, 1024 * GIB,
                    "a size from 1MiB to 1TiB (default: half the heap)", "size, 1MiB..1TiB")
            .byDefault(() -> Math.max(MIB, Runtime.getRuntime().maxMemory() / 2), "half the JVM's max heap"),
            "heap held at most as backups of other nodes' sessions (values, ids, names, per-copy overhead); then new"
                    + " copies are refused, and a copy an update would grow past it is dropped"),
    CLUSTER_KEY("cluster-key", Layer.TRANSPORT, OptionSpec.text("SECRET", "secret of ≥ 16 characters, or file:/path",
            OptionParsers::clusterKey).secret(),
            "shared secret: encrypts and authenticates all traffic; nodes without it cannot join"),
    TLS_KEYSTORE("tls-keystore", Layer.TRANSPORT, OptionSpec.text("FILE", "path", OptionParsers::storePath),
            "mutual TLS between nodes: this node's key store (needs tls-truststore and both passwords)"),
    TLS_KEYSTORE_PASSWORD("tls-keystore-password", Layer.TRANSPORT, OptionSpec.text("PASSWORD",
            "password, or file:/path", OptionParsers::storePassword).secret(), "password of tls-keystore"),
    TLS_KEYSTORE_TYPE("tls-keystore-type", Layer.TRANSPORT, OptionSpec.text("pkcs12|jks", "pkcs12, jks",
            OptionParsers::storeType).byDefault("pkcs12"), "type of tls-keystore"),
    TLS_TRUSTSTORE("tls-truststore", Layer.TRANSPORT, OptionSpec.text("FILE", "path", OptionParsers::storePath),
            "the certificates (or CA) of the peers this node accepts"),
    TLS_TRUSTSTORE_PASSWORD("tls-truststore-password", Layer.TRANSPORT, OptionSpec.text("PASSWORD",
            "password, or file:/path", OptionParsers::storePassword).secret(), "password of tls-truststore"),
    TLS_TRUSTSTORE_TYPE("tls-truststore-type", Layer.TRANSPORT, OptionSpec.text("pkcs12|jks", "pkcs12, jks",
            OptionParsers::storeType).byDefault("pkcs12"), "type of tls-truststore"),
    INSECURE_CLUSTER("insecure-cluster", Layer.TRANSPORT, OptionSpec.bool().byDefault(false),
            "true: start on a non-loopback bind-address without cluster-key or TLS"),
    SERIALIZATION_ALLOWLIST("serialization-allowlist", Layer.CORE, OptionSpec.<String>list("PREFIX,...",
            "com.example. / com.example.* / class names", (o, v) -> v,
            (o, v) -> OptionSpec.nonNull(o, v, "a list of packages or classes").stream()
                    .map(e -> OptionParsers.allowlistEntry(o, e)).toList()),
            "application classes that may be deserialized: package prefixes ending in '.' or class names"),
    ASYNC_QUEUE_ENTRIES("async-queue-entries", Layer.CORE, OptionSpec.integer(1, Integer.MAX_VALUE).byDefault(10_000),
            "bound of the async sender's queue, in updates"),
    ASYNC_QUEUE_BYTES("async-queue-bytes", Layer.CORE,
            OptionSpec.size(64 * KIB, Long.MAX_VALUE, "a size of at least 64KiB", "≥ 64KiB").byDefault(64 * MIB),
            "bound of the async sender's queue, in bytes"),
    ASYNC_BATCH_WINDOW("async-batch-window", Layer.CORE, OptionSpec.shortDuration(100, "1ms").byDefault(Duration.ofMillis(1)),
            "how long the async sender lets updates gather before it sends them together; 0 sends each at once"),
    METRICS("metrics", Layer.CORE,
            OptionSpec.choice(MetricsExport.values(), MetricsExport::optionValue).byDefault(MetricsExport.JMX),
            "jmx: the meters are also MBeans of the platform MBeanServer, domain sessionrep");

    /** Who uses an option. */
    public enum Layer {
        /** The replication engine (container-neutral core). */
        CORE,
        /** The transport between nodes (JGroups channel, security), whatever the stack. */
        TRANSPORT,
        /** The transport's generated JGroups stack: refused with {@code jgroups-config}, whose XML says it all. */
        STACK
    }

    private final String key;
    private final Layer layer;
    private final OptionSpec<?> spec;
    private final String doc;

    ConfigOption(String key, Layer layer, OptionSpec<?> spec, String doc) {
        this.key = key;
        this.layer = layer;
        this.spec = spec;
        this.doc = doc;
    }

    /** The canonical spelling, e.g. {@code write-quota}. */
    public String key() {
        return key;
    }

    /** Whether the core or the transport uses it. */
    public Layer layer() {
        return layer;
    }

    /** One line of documentation (for {@code --help} and generated descriptions). */
    public String doc() {
        return doc;
    }

    /** The default as documented: {@code 500ms}, {@code empty}, {@code none}, {@code host name}, ... */
    public String defaultDoc() {
        return spec.defaultDoc();
    }

    /** The allowed values as documented: {@code 0..64}, {@code async, sync}, {@code duration, > 0, ≤ 60s}, ... */
    public String allowedValues() {
        return spec.values();
    }

    /** A placeholder for the value in usage texts: {@code N}, {@code DURATION}, {@code async|sync}, ... */
    public String metavar() {
        return spec.metavar();
    }

    /** Whether the value is a secret (never echoed, masked in the start-up description). */
    public boolean secret() {
        return spec.isSecret();
    }

    /** The camelCase spelling of container attributes (Tomcat's {@code <Manager>}): {@code writeQuota}. */
    public String attributeName() {
        StringBuilder name = new StringBuilder();
        boolean upper = false;
        for (char c : key.toCharArray()) {
            if (c == '-') {
                upper = true;
            } else {
                name.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return name.toString();
    }

    /** The option whose camelCase attribute name is exactly {@code attribute}, or empty. */
    public static Optional<ConfigOption> forAttributeName(String attribute) {
        return Arrays.stream(values()).filter(o -> o.attributeName().equals(attribute)).findFirst();
    }

    /**
     * The usage text of every option, one {@code <prefix><key>=<metavar>  <doc> (default <default>)} line each
     * (continued on an indented line when long), in documentation order: the launcher's {@code --help}.
     */
    public static String usage(String prefix, String indent) {
        int column = indent.length() + 34;
        int width = 100;
        StringBuilder out = new StringBuilder();
        for (ConfigOption o : values()) {
            String flag = indent + prefix + o.key + "=" + o.metavar();
            String text = o.doc + (o.defaultDoc().equals("none") ? "" : " (default: " + o.defaultDoc() + ")");
            StringBuilder line = new StringBuilder(flag.length() < column ? String.format("%-" + column + "s", flag)
                    : flag + "\n" + " ".repeat(column));
            int lineStart = line.lastIndexOf("\n") + 1;
            boolean first = true;
            for (String word : text.split(" ")) {
                if (!first && line.length() - lineStart + 1 + word.length() > width) {
                    line.append('\n').append(" ".repeat(column));
                    lineStart = line.length() - column;
                } else if (!first) {
                    line.append(' ');
                }
                line.append(word);
                first = false;
            }
            out.append(line).append('\n');
        }
        return out.toString();
    }

    /** The row's typed half (package-private: the builder parses and checks through it). */
    OptionSpec<?> spec() {
        return spec;
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
