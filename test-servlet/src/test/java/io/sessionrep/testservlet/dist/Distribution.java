package io.sessionrep.testservlet.dist;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * What the distribution ITs work with, all built by Maven before they run (paths in system properties set by
 * the failsafe configuration of this module): the official Jetty home unpacked from Maven Central, the
 * sessionrep Jetty module overlay, the filter jar and the test WAR. Also the steps a user does by hand, done
 * exactly as docs/install-jetty.md and docs/install-filter.md say.
 */
final class Distribution {
    static final String CONTEXT = "/session-test";

    private Distribution() {
    }

    static Path jettyHome() {
        return existing("sessionrep.dist.jetty-home");
    }

    static Path moduleZip() {
        return existing("sessionrep.dist.module-zip");
    }

    static Path filterJar() {
        return existing("sessionrep.dist.filter-jar");
    }

    static Path war() {
        return existing("sessionrep.dist.war");
    }

    static Path work() {
        String dir = System.getProperty("sessionrep.dist.work");
        return Path.of(dir != null ? dir : "target/dist-it");
    }

    private static Path existing(String property) {
        String value = System.getProperty(property);
        if (value == null) {
            throw new IllegalStateException("system property " + property + " not set (run with mvn verify)");
        }
        Path path = Path.of(value);
        if (!Files.exists(path)) {
            throw new IllegalStateException(property + "=" + path + " does not exist: build the reactor with"
                    + " mvn verify (the modules that make it run first)");
        }
        return path;
    }

    /**
     * A fresh Jetty base: {@code overlay} (a zip, or null) unzipped into it, then
     * {@code java -jar $JETTY_HOME/start.jar --add-modules=<modules>} run in it.
     */
    static Path newJettyBase(String name, String modules, Path overlay) throws IOException, InterruptedException {
        Path base = work().resolve(name);
        deleteTree(base);
        Files.createDirectories(base);
        if (overlay != null) {
            unzip(overlay, base);
        }
        Path log = work().resolve(name + "-add-modules.log");
        Process p = new ProcessBuilder(java(), "-jar", jettyHome().resolve("start.jar").toString(),
                "--add-modules=" + modules)
                .directory(base.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(90, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("--add-modules=" + modules + " failed in " + base + ":\n"
                        + Files.readString(log));
            }
        } finally {
            p.destroyForcibly();
        }
        return base;
    }

    /** Appends {@code lines} to a file of the base (start.d/*.ini). */
    static void append(Path file, String... lines) throws IOException {
        Files.writeString(file, "\n" + String.join("\n", lines) + "\n", StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.APPEND);
    }

    /**
     * The test WAR with the filter installed as docs/install-filter.md says: {@code filterXml} added to its
     * web.xml (before the first servlet) and the filter jar in WEB-INF/lib.
     */
    static Path filterWar(String filterXml) throws IOException {
        Path target = work().resolve("filter-war").resolve("session-test.war");
        Files.createDirectories(target.getParent());
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(war()));
             ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(target))) {
            for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
                out.putNextEntry(new ZipEntry(e.getName()));
                byte[] bytes = in.readAllBytes();
                if (e.getName().equals("WEB-INF/web.xml")) {
                    String webXml = new String(bytes, StandardCharsets.UTF_8);
                    int at = webXml.indexOf("<servlet>");
                    bytes = (webXml.substring(0, at) + filterXml + "\n  " + webXml.substring(at))
                            .getBytes(StandardCharsets.UTF_8);
                }
                out.write(bytes);
                out.closeEntry();
            }
            out.putNextEntry(new ZipEntry("WEB-INF/lib/sessionrep-filter.jar"));
            Files.copy(filterJar(), out);
            out.closeEntry();
        }
        return target;
    }

    static void unzip(Path zip, Path into) throws IOException {
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
            for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
                Path target = into.resolve(e.getName()).normalize();
                if (!target.startsWith(into)) {
                    throw new IOException("zip entry outside the target: " + e.getName());
                }
                if (e.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(in, target); // the stream stays open for the next entry
                }
            }
        }
    }

    static int[] freePorts(int n) throws IOException {
        return io.sessionrep.testsupport.FreePorts.onLoopback(n);
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
