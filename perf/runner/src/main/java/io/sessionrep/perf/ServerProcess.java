package io.sessionrep.perf;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A node JVM that is not a test-servlet {@code NodeLauncher} (PerfNode in a network namespace, a Tomcat of the distribution):
 * output to a log file, the {@code READY node=<name> http=<url>} line awaited, SIGKILL on close (the
 * same contract as test-servlet's NodeProcess, whose launcher is not public).
 */
final class ServerProcess implements AutoCloseable {

    static final String READY_PREFIX = "READY node=";

    private final String name;
    private final Process process;
    private final Path log;
    private final CompletableFuture<String> ready = new CompletableFuture<>();

    private ServerProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    static ServerProcess start(String name, List<String> command, Path log) throws IOException {
        return start(name, command, log, null);
    }

    /** As {@link #start(String, List, Path)}, in working directory {@code dir} (null: the runner's). */
    static ServerProcess start(String name, List<String> command, Path log, Path dir) throws IOException {
        Files.createDirectories(log.getParent());
        Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8);
        out.write("# " + String.join(" ", command) + "\n");
        out.flush();
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        if (dir != null) {
            builder.directory(dir.toFile());
        }
        Process process = builder.start();
        process.getOutputStream().close();
        ServerProcess server = new ServerProcess(name, process, log);
        Thread pump = new Thread(() -> server.pump(out), "log-" + name);
        pump.setDaemon(true);
        pump.start();
        return server;
    }

    private void pump(Writer out) {
        try (out; BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                out.write(line);
                out.write('\n');
                out.flush();
                if (!ready.isDone() && line.startsWith(READY_PREFIX)) {
                    // the URL is the token after http= (a node may append more, e.g. manager=...)
                    ready.complete(line.substring(line.indexOf("http=") + 5).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException e) {
            // the process is gone
        } finally {
            ready.completeExceptionally(new IllegalStateException(name + " exited before it was READY; see " + log));
        }
    }

    /** Waits for READY; returns the node's {@code http://host:port/session} URL. */
    String awaitReady(Duration timeout) throws InterruptedException {
        try {
            return ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage() + "\n" + tail(), e);
        } catch (TimeoutException e) {
            close();
            throw new IllegalStateException(name + " was not READY within " + timeout + "; see " + log + "\n" + tail());
        }
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    Path log() {
        return log;
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** SIGTERM (an orderly JVM exit: shutdown hooks, a JFR recording is written), SIGKILL after 20 s. */
    void stop() {
        process.toHandle().destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGKILL to the process and its children (ip netns exec runs java as its child), then waits. */
    @Override
    public void close() {
        process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        process.toHandle().destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
