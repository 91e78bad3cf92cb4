package io.sessionrep.testservlet.dist;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One server process of a distribution IT (a Jetty started with start.jar in its base, or a Tomcat), its
 * output in a log file. {@link #close()} kills it and everything it started, whatever happened.
 */
final class DistNode implements AutoCloseable {
    private final String name;
    private final int httpPort;
    private final Path log;
    private final Process process;

    private DistNode(String name, int httpPort, Path log, Process process) {
        this.name = name;
        this.httpPort = httpPort;
        this.log = log;
        this.process = process;
    }

    /**
     * {@code java <jvmArgs> -jar $JETTY_HOME/start.jar <startArgs>} in {@code base}; {@code name} is the
     * sessionrep node name (the route suffix), the log is named after the base.
     */
    static DistNode jetty(String name, Path base, int httpPort, List<String> jvmArgs, List<String> startArgs)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Distribution.java());
        command.addAll(jvmArgs);
        command.add("-jar");
        command.add(Distribution.jettyHome().resolve("start.jar").toString());
        command.addAll(startArgs);
        return start(name, base.getFileName().toString(), base, httpPort, command);
    }

    static DistNode start(String name, String logName, Path workDir, int httpPort, List<String> command)
            throws IOException {
        Path log = Distribution.work().resolve(logName + ".log");
        Files.createDirectories(log.getParent());
        Files.writeString(log, "# " + String.join(" ", command) + "\n", StandardCharsets.UTF_8);
        Process process = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        process.getOutputStream().close();
        return new DistNode(name, httpPort, log, process);
    }

    String name() {
        return name;
    }

    /** The server JVM's process id (to attach to it, as jconsole does). */
    long pid() {
        return process.pid();
    }

    /** The WAR's readiness endpoint. */
    URI readyUri() {
        return URI.create("http://127.0.0.1:" + httpPort + Distribution.CONTEXT + "/ready");
    }

    URI sessionUri() {
        return URI.create("http://127.0.0.1:" + httpPort + Distribution.CONTEXT + "/session");
    }

    String log() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    /** Waits until a line of the log matches; fails with the log's tail if the process exits first. */
    void awaitLog(String what, Predicate<String> line, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (log().lines().anyMatch(line)) {
                return;
            }
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited (" + process.exitValue() + ") before " + what + ":\n" + tail());
            }
            Thread.sleep(200);
        }
        throw new AssertionError(name + ": no " + what + " within " + timeout + ":\n" + tail());
    }

    /** Jetty's "Started oejs.Server" (after the webapps were deployed). */
    void awaitJettyStarted(Duration timeout) throws InterruptedException {
        awaitLog("Jetty start", l -> l.contains("Started oejs.Server@"), timeout);
    }

    /** A cluster view listing every one of {@code nodeNames}. */
    void awaitView(Duration timeout, String... nodeNames) throws InterruptedException {
        awaitLog("cluster view with " + String.join(", ", nodeNames), l -> {
            if (!l.contains("view")) {
                return false;
            }
            for (String n : nodeNames) {
                if (!l.contains(n + "@")) {
                    return false;
                }
            }
            return true;
        }, timeout);
    }

    /** Waits for the process to exit by itself; its exit code. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " still running after " + timeout + ":\n" + tail());
        }
        return process.exitValue();
    }

    /** SIGKILL: a crash, no orderly leave. */
    void kill9() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.toHandle().destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " still alive 30s after SIGKILL");
        }
    }

    String tail() {
        List<String> lines = log().lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill9();
        }
    }
}
