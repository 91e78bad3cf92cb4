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

/** One Tomcat of the distribution, in its own JVM with its own {@code CATALINA_BASE} ({@link TomcatInstall#prepare}). */
final class TomcatProcess {
    static final Duration START = Duration.ofSeconds(120);

    final String name;
    final Path base;
    final int httpPort;
    final Path console;
    Process process;

    TomcatProcess(String name, Path base, int httpPort) {
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

    /** Waits until the test application answers (its own 404 JSON for a request without a session). */
    /** Waits until the application's readiness endpoint at {@code path} answers 200 {@code ready}. */
    void awaitReady(String path) throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        java.net.URI ready = java.net.URI.create("http://127.0.0.1:" + httpPort + path);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        java.net.http.HttpResponse<String> last;
        do {
            last = http.send(java.net.http.HttpRequest.newBuilder(ready).timeout(Duration.ofSeconds(20)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            if (last.statusCode() == 200 && last.body().equals("ready\n")) {
                return;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        throw new AssertionError(name + ": GET " + path + " answered " + last.statusCode() + " " + last.body());
    }

    void awaitServing() throws Exception {
        long deadline = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < deadline) {
            checkAlive();
            try {
                TomcatUser.Reply reply = new TomcatUser().get(this, "verify");
                if (reply.status() == 404 && reply.body().contains("\"error\"")) {
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
        long deadline = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < deadline) {
            if (!logLines(line).isEmpty()) {
                return;
            }
            checkAlive();
            Thread.sleep(250);
        }
        fail(name + ": no " + what + " within " + START + "; log:\n" + String.join("\n", logLines(l -> true)));
    }

    /** The lines of the console log (it goes on across restarts of this Tomcat) that {@code filter} accepts. */
    List<String> logLines(Predicate<String> filter) throws IOException {
        if (!Files.exists(console)) {
            return List.of();
        }
        return new String(Files.readAllBytes(console), StandardCharsets.UTF_8).lines().filter(filter).toList();
    }

    private void checkAlive() throws IOException {
        if (process != null && !process.isAlive()) {
            fail(name + " exited with " + process.exitValue() + "; log:\n"
                    + String.join("\n", logLines(l -> true)));
        }
    }

    /** kill -9. */
    void kill() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(20, TimeUnit.SECONDS);
        }
    }
}
