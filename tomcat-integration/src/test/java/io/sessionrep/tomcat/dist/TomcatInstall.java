package io.sessionrep.tomcat.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The distribution as the build unpacked it, our drop-in jar and the test WAR, and the {@code CATALINA_BASE}s made
 * from them as {@code docs/install-tomcat.md} section 3 tells a user (paths from the failsafe configuration).
 */
final class TomcatInstall {
    final Path home = Path.of(required("sessionrep.tomcat.home"));
    final Path jar = Path.of(required("sessionrep.tomcat.jar"));
    private final Path war = Path.of(required("sessionrep.test.war"));
    private final Path doc = Path.of(required("sessionrep.install.doc"));
    private final Path runDir = Path.of(required("sessionrep.it.dir")).resolve(UUID.randomUUID().toString().substring(0, 8));

    /**
     * The {@code <Context>} block that docs/install-tomcat.md gives for {@code node}, with its replication
     * ports 7800 and 7801 replaced by {@code portA} and {@code portB}.
     */
    String documentedContext(String node, int portA, int portB) throws IOException {
        String text = Files.readString(doc);
        String marker = "the context of " + node + " -->";
        int at = text.indexOf(marker);
        assertTrue(at >= 0, "docs/install-tomcat.md has no block marked '" + marker + "'");
        int start = text.indexOf("```xml\n", at) + "```xml\n".length();
        int end = text.indexOf("```", start);
        return text.substring(start, end)
                .replace("7800", String.valueOf(portA))
                .replace("7801", String.valueOf(portB));
    }

    /** A CATALINA_BASE as section 3 of the document builds it, without a shutdown port (stopped by signals). */
    TomcatProcess prepare(String name, int httpPort, String contextXml) throws IOException {
        return prepare(name, httpPort, -1, contextXml);
    }

    /** As {@link #prepare(String, int, String)}, Tomcat's shutdown port ({@code catalina.sh stop}) at {@code shutdownPort}. */
    TomcatProcess prepare(String name, int httpPort, int shutdownPort, String contextXml) throws IOException {
        Path base = runDir.resolve(name);
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
        Files.copy(war, base.resolve("webapps/session-test.war"));
        Files.writeString(base.resolve("conf/Catalina/localhost/session-test.xml"), contextXml);
        return new TomcatProcess(name, base, httpPort);
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        assertNotNull(value, "system property " + property + " (set by the failsafe configuration)");
        return value;
    }
}
