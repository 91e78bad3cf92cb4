package io.sessionrep.testservlet.upgrade;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The node jar of the release before this one, built from this repository's own history: the commit is taken
 * out of git ({@code git archive}) under {@code target/previous-release/<commit>/} and packaged with Maven
 * ({@code -DskipTests}); later runs reuse the jar. Where there is no git history to take it from (a source
 * tarball, a shallow clone), the tests that need it are skipped, saying why.
 *
 * <p>{@link #COMMIT} is the last commit that wrote wire protocol 2 only (values in field order). When a release
 * changes the protocol again, this names the release before it.
 */
final class PreviousRelease {
    /** The last build of wire protocol 2. */
    static final String COMMIT = "45bed86be2397930ff41e8f46ef0d765244cab54";
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(10);

    private PreviousRelease() {
    }

    /** The previous release's {@code sessionrep-node.jar}, built if need be. */
    static synchronized Path nodeJar() throws IOException, InterruptedException {
        Path repository = repositoryRoot();
        Path dir = repository.resolve("test-servlet/target/previous-release/" + COMMIT.substring(0, 12));
        Path jar = dir.resolve("test-servlet/target/sessionrep-node.jar");
        if (Files.isRegularFile(jar)) {
            return jar;
        }
        Files.createDirectories(dir);
        Path log = dir.resolve("build.log");
        Assumptions.assumeTrue(run(repository, log, Duration.ofSeconds(30), "git", "cat-file", "-e", COMMIT + "^{commit}") == 0,
                "the previous release " + COMMIT + " is not in this checkout's git history (shallow clone or no .git):"
                        + " the mixed-release tests need it");
        int extracted = run(repository, log, Duration.ofMinutes(2), "bash", "-c",
                "git archive --format=tar " + COMMIT + " | tar -x -C '" + dir + "'");
        if (extracted != 0) {
            throw new IllegalStateException("could not extract " + COMMIT + " into " + dir);
        }
        int built = run(dir, log, BUILD_TIMEOUT, "mvn", "-B", "-q", "-ntp", "-DskipTests", "-Denforcer.skip=true",
                "package", "-pl", "test-servlet", "-am");
        if (built != 0 || !Files.isRegularFile(jar)) {
            throw new IllegalStateException("building the previous release " + COMMIT + " in " + dir + " failed (exit "
                    + built + "); see " + log);
        }
        return jar;
    }

    private static Path repositoryRoot() {
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("test-servlet")) && Files.isRegularFile(p.resolve("pom.xml"))) {
                return p;
            }
        }
        throw new IllegalStateException("no repository root above " + here);
    }

    private static int run(Path dir, Path log, Duration timeout, String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(List.of(command)).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " took longer than " + timeout);
        }
        return process.exitValue();
    }
}
