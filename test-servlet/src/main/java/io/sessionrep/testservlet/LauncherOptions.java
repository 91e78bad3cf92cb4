package io.sessionrep.testservlet;

import io.sessionrep.core.config.ConfigException;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The command line of {@link NodeLauncher}: {@code --name=value} flags. Four are the launcher's own
 * ({@code --http-port}, {@code --http-host}, {@code --replication=on|off}, {@code --help}); every other flag is a replication
 * option under its canonical name (SPEC section 2), passed unchanged to {@code ReplicationConfig.fromMap},
 * which validates it.
 *
 * @param httpPort           HTTP port of the node; 0 picks a free one
 * @param httpHost           address the HTTP connector listens on (default 127.0.0.1)
 * @param replication        false runs a plain Jetty node (sessions stay local)
 * @param help               print {@link #usage()} and exit
 * @param replicationOptions canonical option name to value, in command-line order
 */
public record LauncherOptions(int httpPort, String httpHost, boolean replication, boolean help,
                              Map<String, String> replicationOptions) {

    public static final int DEFAULT_HTTP_PORT = 8080;

    /** The launcher's options without {@code --http-host} (HTTP on 127.0.0.1). */
    public LauncherOptions(int httpPort, boolean replication, boolean help, Map<String, String> replicationOptions) {
        this(httpPort, NodeServer.HOST, replication, help, replicationOptions);
    }

    public LauncherOptions {
        replicationOptions = Collections.unmodifiableMap(new LinkedHashMap<>(replicationOptions));
    }

    /** Parses the command line; a malformed flag or a bad launcher value is a {@link ConfigException}. */
    public static LauncherOptions parse(String... args) {
        int httpPort = DEFAULT_HTTP_PORT;
        String httpHost = NodeServer.HOST;
        boolean replication = true;
        boolean help = false;
        Map<String, String> options = new LinkedHashMap<>();
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                help = true;
                continue;
            }
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 3) {
                String name = arg.startsWith("--") ? arg.substring(2) : arg;
                throw new ConfigException(name, "'" + arg + "' is not allowed; expected --name=value (see --help)");
            }
            String name = arg.substring(2, eq);
            String value = arg.substring(eq + 1);
            switch (name) {
                case "http-port" -> httpPort = parsePort(value);
                case "http-host" -> httpHost = parseHost(value);
                case "replication" -> replication = parseOnOff(value);
                default -> {
                    if (options.put(name, value) != null) {
                        throw new ConfigException(name, "given twice; expected each option once");
                    }
                }
            }
        }
        return new LauncherOptions(httpPort, httpHost, replication, help, options);
    }

    /** The node's name: the {@code node-name} option, or {@code fallback}. */
    public String nodeName(String fallback) {
        return replicationOptions.getOrDefault("node-name", fallback);
    }

    private static int parsePort(String value) {
        try {
            int port = Integer.parseInt(value);
            if (port >= 0 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ConfigException("http-port", "'" + value + "' is not allowed; expected a port from 0 to 65535"
                + " (0 = any free port)");
    }

    private static String parseHost(String value) {
        if (value.isBlank() || !value.matches("[A-Za-z0-9_.:-]{1,253}")) {
            throw new ConfigException("http-host", "'" + value + "' is not allowed; expected a host name or IP"
                    + " address of this machine, such as 127.0.0.1");
        }
        return value;
    }

    private static boolean parseOnOff(String value) {
        return switch (value) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new ConfigException("replication",
                    "'" + value + "' is not allowed; expected on or off");
        };
    }

    /** The text of {@code --help}. */
    public static String usage() {
        return """
                usage: java -jar sessionrep-node.jar [--name=value ...]

                Starts one embedded Jetty 12 (ee10) node serving the test servlet at /session,
                with replicated sessions unless --replication=off. Prints
                  READY node=<name> http=http://127.0.0.1:<port>/session
                once it serves. A bad option exits with code 2.

                launcher flags:
                  --http-port=N              HTTP port (default 8080; 0 = any free port)
                  --http-host=HOST           HTTP address (default 127.0.0.1)
                  --replication=on|off       off: plain Jetty sessions, no cluster (default on)
                  --help                     this text

                replication options (canonical names, SPEC section 2; validated by ReplicationConfig):
                  --node-name=NAME           unique node name, also the session-id route suffix
                  --replication-mode=M       async | sync (default async)
                  --sync-timeout=D           e.g. 500ms (default 500ms)
                  --ownership-timeout=D      e.g. 5s (default 5s): wait for a hand-over, then 503
                  --replication-trigger=T    on-request-end | on-attribute-modify | on-shutdown
                  --write-quota=N            backups per session, 0 = none (default 1)
                  --allow-colocation=B       true | false (default true)
                  --machine-id=ID            what "same machine" means (default: host name)
                  --discovery=D              static | multicast | dynamic (default static)
                  --cluster-name=NAME        default sessions
                  --bind-address=HOST        replication traffic address (default 127.0.0.1)
                  --bind-port=N              replication traffic port (default auto)
                  --peers=H:P[,H:P...]       static discovery peers (a ring is enough)
                  --multicast-address=A      default 228.8.8.8
                  --multicast-port=N         default 45588
                  --dynamic-discovery=H      discovery=dynamic only: multicast | file | dns (default multicast)
                  --discovery-directory=DIR  dynamic-discovery=file: absolute path of a shared directory
                  --dns-query=NAME[,NAME...] dynamic-discovery=dns: DNS name(s) resolving to the nodes
                  --dns-record-type=T        dynamic-discovery=dns: A | SRV (default A)
                  --jgroups-config=FILE      a JGroups XML stack replacing the generated one (experts);
                                             then no discovery, bind-*, peers, multicast-*, dns-* options
                  --max-session-size=BYTES   larger sessions are not replicated (default 1MiB)
                  --max-backup-bytes=BYTES   backup bytes held at most (default: half the heap)
                  --cluster-key=SECRET       encrypt and authenticate replication traffic
                  --tls-keystore=FILE        mutual TLS between nodes: this node's key store
                  --tls-keystore-password=P  its password, or file:/path
                  --tls-keystore-type=T      pkcs12 | jks (default pkcs12)
                  --tls-truststore=FILE      the certificates (or CA) of accepted peers
                  --tls-truststore-password=P  its password, or file:/path
                  --tls-truststore-type=T    pkcs12 | jks (default pkcs12)
                  --insecure-cluster=B       true: start on a non-loopback bind-address without
                                             cluster-key or TLS (default false)
                  --serialization-allowlist=P[,P...]  application packages/classes allowed in sessions
                  --async-queue-entries=N    bound of the async sender's queue (default 10000)
                  --async-queue-bytes=BYTES  bound of the async sender's queue (default 64MiB)
                  --metrics=M                jmx | none: the meters as JMX MBeans too (default jmx)

                example:
                  java -jar sessionrep-node.jar --http-port=8081 --node-name=node-b \\
                       --bind-port=7801 --peers=127.0.0.1:7800 --replication-mode=sync

                  GET /cluster on the HTTP port shows this node's view of the cluster as JSON,
                  GET /metrics its meters in Prometheus text format (with --metrics=jmx, the
                  default, they are also MBeans of domain sessionrep).
                """;
    }
}
