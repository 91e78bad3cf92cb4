package io.sessionrep.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

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

    /** The study's plan. */
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

    /** PerfNode's class path: the runner's classes in front of the node jar. */
    public String perfNodeClasspath() {
        return runnerClasses() + java.io.File.pathSeparator + nodeJar();
    }

    /** TomcatNode's class path: the runner's classes, Tomcat's jars and the test servlet's classes. */
    public String tomcatClasspath() {
        return runnerClasses() + java.io.File.pathSeparator + read(root.resolve("perf/runner/target/tomcat.classpath"))
                + java.io.File.pathSeparator + built(root.resolve("test-servlet/target/classes"));
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
