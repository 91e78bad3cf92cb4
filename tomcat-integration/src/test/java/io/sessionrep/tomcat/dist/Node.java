package io.sessionrep.tomcat.dist;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * One Tomcat process with its own {@code CATALINA_BASE}. Its console (every start appends to it) is
 * {@code logs/console.log}.
 */
final class Node {
    static final Duration START = Duration.ofSeconds(120);
    private static final java.net.http.HttpClient PROBE =
            java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    final String name;
    final Path base;
    final int httpPort;
    final Path console;
    private Process process;

    Node(String name, Path base, int httpPort) {
        this.name = name;
        this.base = base;
        this.httpPort = httpPort;
        this.console = base.resolve("logs/console.log");
    }

    /** What {@code catalina.sh run} does, minus the script: Bootstrap with Tomcat's system properties. */
    void start(Path home) throws IOException {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = List.of(javaBin,
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "--add-opens=java.base/java.lang=ALL-UNNAMED",
                "--add-opens=java.base/java.io=ALL-UNNAMED",
                "--add-opens=java.base/java.util=ALL-UNNAMED",
                "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                "--add-opens=java.rmi/sun.rmi.transport=ALL-UNNAMED",
                "-Djava.net.preferIPv4Stack=true",
                "-Djava.util.logging.config.file=" + base.resolve("conf/logging.properties"),
                "-Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager",
                "-Dcatalina.home=" + home, "-Dcatalina.base=" + base,
                "-Djava.io.tmpdir=" + base.resolve("temp"),
                "-Dsessionrep.node-name=" + name,
                "-cp", home.resolve("bin/bootstrap.jar") + java.io.File.pathSeparator
                        + home.resolve("bin/tomcat-juli.jar"),
                "org.apache.catalina.startup.Bootstrap", "start");
        process = new ProcessBuilder(command).directory(base.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile())).start();
    }

    long pid() {
        return process.pid();
    }

    /** Waits until the test WAR answers (its own 404 JSON for a request without a session). */
    void awaitServing() throws Exception {
        awaitServing(User.SESSION_TEST + "verify", reply -> reply.status() == 404 && reply.body().contains("\"error\""));
    }

    /** Waits until a GET of {@code path} (without a session) gets a reply that {@code ready} accepts. */
    void awaitServing(String path, Predicate<Reply> ready) throws Exception {
        long deadline = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < deadline) {
            checkAlive();
            try {
                if (ready.test(new User(PROBE, path).get(this, ""))) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        fail(name + " did not serve within " + START + "; log:\n" + String.join("\n", logLines(l -> true)));
    }

    void awaitLog(String what, Predicate<String> line) throws Exception {
        awaitLog(what, 0, line);
    }

    /** Waits for a line that {@code line} accepts, among those after the first {@code from} of the console. */
    void awaitLog(String what, int from, Predicate<String> line) throws Exception {
        long deadline = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < deadline) {
            if (logLines(l -> true).stream().skip(from).anyMatch(line)) {
                return;
            }
            checkAlive();
            Thread.sleep(250);
        }
        fail(name + ": no " + what + " within " + START + "; log:\n" + String.join("\n", logLines(l -> true)));
    }

    /** How many lines the console has so far (a mark for {@link #awaitLog(String, int, Predicate)}). */
    int logLineCount() throws IOException {
        return logLines(l -> true).size();
    }

    List<String> logLines(Predicate<String> filter) throws IOException {
        if (!Files.exists(console)) {
            return List.of();
        }
        return Files.readAllLines(console, StandardCharsets.UTF_8).stream().filter(filter).toList();
    }

    private void checkAlive() throws IOException {
        if (process != null && !process.isAlive()) {
            fail(name + " exited with " + process.exitValue() + "; log:\n"
                    + String.join("\n", logLines(l -> true)));
        }
    }

    /** How a {@link #stop} ended: the time from SIGTERM to the JVM's exit, or that it had to be killed. */
    record Exit(Duration took, boolean killed) {
    }

    /**
     * An orderly stop as an init system does it: SIGTERM, on which Tomcat's shutdown hook stops the server
     * and its web applications. When the JVM has not exited within {@code grace}, its threads are dumped to
     * {@code logs/threads-<pid>.txt} and it is killed.
     */
    Exit stop(Duration grace) throws InterruptedException, IOException {
        long started = System.nanoTime();
        process.destroy();
        if (process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            return new Exit(Duration.ofNanos(System.nanoTime() - started), false);
        }
        Duration waited = Duration.ofNanos(System.nanoTime() - started);
        Path dump = base.resolve("logs/threads-" + process.pid() + ".txt");
        Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                String.valueOf(process.pid()), "Thread.print").redirectErrorStream(true)
                .redirectOutput(dump.toFile()).start();
        if (!jcmd.waitFor(20, TimeUnit.SECONDS)) {
            jcmd.destroyForcibly();
        }
        kill();
        return new Exit(waited, true);
    }

    /** kill -9. */
    void kill() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(20, TimeUnit.SECONDS);
        }
    }
}
