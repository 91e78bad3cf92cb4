package io.sessionrep.testservlet;

import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ConfigOption;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The command line of {@link NodeLauncher}: {@code --name=value} flags. Four are the launcher's own
 * ({@code --http-port}, {@code --http-host}, {@code --replication=on|off}, {@code --help}); every other flag is a replication
 * option under its canonical name (the README's configuration reference), passed unchanged to {@code ReplicationConfig.fromMap},
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

    /** The text of {@code --help}; the replication options come from the option table ({@link ConfigOption}). */
    public static String usage() {
        return """
                usage: java -jar sessionrep-node.jar [--name=value ...]

                Starts one embedded Jetty 12 (ee10) node serving the test servlet at /session,
                with replicated sessions unless --replication=off. Prints
                  READY node=<name> http=http://127.0.0.1:<port>/session
                once it serves and is ready (settled in its cluster: GET /ready answers 200; after
                50 s without, the line comes all the same, after a warning naming the reasons).
                A bad option exits with code 2.

                launcher flags:
                  --http-port=N              HTTP port (default 8080; 0 = any free port)
                  --http-host=HOST           HTTP address (default 127.0.0.1)
                  --replication=on|off       off: plain Jetty sessions, no cluster (default on)
                  --help                     this text

                replication options (canonical names as in the README; validated by ReplicationConfig):
                """ + ConfigOption.usage("--", "  ") + """

                example:
                  java -jar sessionrep-node.jar --http-port=8081 --node-name=node-b \\
                       --bind-port=7801 --peers=127.0.0.1:7800 --replication-mode=sync

                  GET /cluster on the HTTP port shows this node's view of the cluster as JSON,
                  GET /ready answers 200 "ready" or 503 "not ready" with the reasons,
                  GET /metrics its meters in Prometheus text format (with --metrics=jmx, the
                  default, they are also MBeans of domain sessionrep).
                """;
    }
}
