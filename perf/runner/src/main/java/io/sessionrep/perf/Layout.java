package io.sessionrep.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Where the built pieces are, relative to the repository root (found from system property
 * {@value #ROOT_PROPERTY}, else by walking up from the working directory to the folder holding
 * {@code perf/plans}). Everything here is produced by {@code mvn package} of perf/runner and what it
 * depends on; nothing is installed.
 */
public record Layout(Path root) {

    public static final String ROOT_PROPERTY = "perf.repo-root";

    public static Layout find() {
        String configured = System.getProperty(ROOT_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return new Layout(Path.of(configured).toAbsolutePath().normalize());
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("perf/plans"))) {
                return new Layout(dir);
            }
        }
        throw new IllegalStateException("cannot find the repository root (a folder with perf/plans) from "
                + Path.of("").toAbsolutePath() + "; set -D" + ROOT_PROPERTY);
    }

    /** The JMeter plan. */
    public Path plan() {
        return root.resolve("perf/plans/session-study.jmx");
    }

    /** test-servlet's shaded node jar: NodeLauncher and everything it needs (Jetty, JGroups, the core). */
    public Path nodeJar() {
        return built(root.resolve("test-servlet/target/sessionrep-node.jar"));
    }

    public Path runnerClasses() {
        return built(root.resolve("perf/runner/target/classes"));
    }

    /** PerfNode's class path: the runner's classes in front of the node jar, and the floor's jar. */
    public String perfNodeClasspath() {
        return runnerClasses() + java.io.File.pathSeparator + nodeJar() + java.io.File.pathSeparator + floorJar();
    }

    /** The official Tomcat 11 distribution, unpacked from Maven Central by perf/runner's build. */
    public Path tomcatHome() {
        Path dist = built(root.resolve("perf/runner/target/tomcat-dist"));
        try (var dirs = Files.list(dist)) {
            return dirs.filter(d -> d.getFileName().toString().startsWith("apache-tomcat-")
                            && Files.exists(d.resolve("bin/bootstrap.jar")))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no apache-tomcat-* in " + dist));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Our Tomcat drop-in jar (for $CATALINA_BASE/lib), as docs/install-tomcat.md step 1 builds it. */
    public Path tomcatJar() {
        return built(root.resolve("tomcat-integration/target/sessionrep-tomcat.jar"));
    }

    /** test-servlet's WAR, the application every Tomcat configuration runs. */
    public Path war() {
        return built(root.resolve("test-servlet/target/session-test.war"));
    }

    /** docs/install-tomcat.md: the Manager element of our configurations is read from it. */
    public Path tomcatInstallDoc() {
        return built(root.resolve("docs/install-tomcat.md"));
    }

    /** Spring Session with Redis: the configuration jar and the jars it needs (WEB-INF/lib of the Redis WAR). */
    public List<Path> springSessionJars() {
        List<Path> jars = new java.util.ArrayList<>();
        jars.add(built(root.resolve("perf/spring-session/target/perf-spring-session.jar")));
        try (var lib = Files.list(built(root.resolve("perf/spring-session/target/spring-session-lib")))) {
            lib.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted().forEach(jars::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return jars;
    }

    /** perf-floor's filter and listener (WEB-INF/lib of the floor configurations' WAR). */
    public Path floorJar() {
        return built(root.resolve("perf/floor/target/perf-floor.jar"));
    }

    public Path jmeterHome() {
        return built(root.resolve("perf/jmeter/target/jmeter-home"));
    }

    public String jmeterClasspath() {
        return built(root.resolve("perf/jmeter/target/classes")) + java.io.File.pathSeparator
                + read(root.resolve("perf/jmeter/target/jmeter.classpath"));
    }

    public Path results() {
        return root.resolve("perf/results");
    }

    private static Path built(Path path) {
        if (!Files.exists(path)) {
            throw new IllegalStateException(path + " is missing: build first (mvn -DskipTests package -pl perf/runner -am,"
                    + " which perf/run.sh does)");
        }
        return path;
    }

    private static String read(Path file) {
        try {
            return Files.readString(built(file), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
