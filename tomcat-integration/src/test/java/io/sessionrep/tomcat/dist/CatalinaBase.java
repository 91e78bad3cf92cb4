package io.sessionrep.tomcat.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@code CATALINA_BASE} as section 3 of docs/install-tomcat.md builds it: the distribution's {@code conf/},
 * {@code server.xml} with the node's HTTP port (on 127.0.0.1), {@code jvmRoute} and shutdown port, the drop-in
 * jar in {@code lib/}. No application yet.
 */
final class CatalinaBase {
    /** The shutdown port of a Tomcat that is stopped by signals only. */
    static final int NO_SHUTDOWN_PORT = -1;

    private CatalinaBase() {
    }

    /**
     * Creates {@code base} for node {@code name} of the distribution at {@code home}, with Tomcat's shutdown port
     * ({@code catalina.sh stop}) at {@code shutdownPort} or {@link #NO_SHUTDOWN_PORT}.
     */
    static TomcatProcess create(Path home, Path jar, Path base, String name, int httpPort, int shutdownPort)
            throws IOException {
        for (String dir : List.of("lib", "logs", "temp", "webapps", "work", "conf/Catalina/localhost")) {
            Files.createDirectories(base.resolve(dir));
        }
        try (Stream<Path> conf = Files.list(home.resolve("conf"))) {
            for (Path file : conf.filter(Files::isRegularFile).toList()) {
                Files.copy(file, base.resolve("conf").resolve(file.getFileName()));
            }
        }
        Path serverXml = base.resolve("conf/server.xml");
        String server = Files.readString(serverXml);
        String edited = server
                .replace("<Server port=\"8005\"", "<Server port=\"" + shutdownPort + "\"")
                .replaceFirst("<Connector port=\"8080\"", "<Connector port=\"" + httpPort + "\" address=\"127.0.0.1\"")
                .replace("<Engine name=\"Catalina\" defaultHost=\"localhost\">",
                        "<Engine name=\"Catalina\" defaultHost=\"localhost\" jvmRoute=\"" + name + "\">");
        assertTrue(edited.contains("jvmRoute=\"" + name + "\"") && edited.contains("port=\"" + httpPort + "\"")
                        && edited.contains("<Server port=\"" + shutdownPort + "\""),
                "server.xml of the distribution changed: cannot apply the documented edits");
        Files.writeString(serverXml, edited);
        Files.copy(jar, base.resolve("lib").resolve(jar.getFileName()));
        return new TomcatProcess(name, home, base, httpPort);
    }
}
