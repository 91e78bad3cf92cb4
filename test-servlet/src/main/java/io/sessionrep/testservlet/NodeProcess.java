package io.sessionrep.testservlet;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * One node JVM started by {@link LocalCluster}: its output (stdout and stderr) goes to a log file, its
 * READY line is awaited and echoed, and it can be stopped in order or killed.
 */
public final class NodeProcess {

    private static final int LOG_TAIL_LINES = 40;

    private final String name;
    private final int bindPort;
    private final Path logFile;
    private final Process process;
    private final CompletableFuture<URI> ready = new CompletableFuture<>();
    /** Completes when the process's output has ended and is all in the log file. */
    private final CompletableFuture<Void> logComplete = new CompletableFuture<>();

    private NodeProcess(String name, int bindPort, Path logFile, Process process) {
        this.name = name;
        this.bindPort = bindPort;
        this.logFile = logFile;
        this.process = process;
    }

    /** Starts the JVM; returns at once (see {@link #awaitReady}). */
    static NodeProcess launch(String name, int bindPort, List<String> command, Path logFile, PrintStream echo)
            throws IOException {
        return launch(name, bindPort, command, logFile, echo, false);
    }

    /**
     * Starts the JVM; returns at once (see {@link #awaitReady}). {@code append}: a restarted node continues
     * the log of its earlier incarnation, after a {@code # restarted} line.
     */
    static NodeProcess launch(String name, int bindPort, List<String> command, Path logFile, PrintStream echo,
                              boolean append) throws IOException {
        Files.createDirectories(logFile.getParent());
        Writer log = append
                ? Files.newBufferedWriter(logFile, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND)
                : Files.newBufferedWriter(logFile, StandardCharsets.UTF_8);
        log.write((append ? "# restarted: " : "# ") + String.join(" ", command) + "\n");
        log.flush();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        NodeProcess node = new NodeProcess(name, bindPort, logFile, process);
        Thread pump = new Thread(() -> node.pump(log, echo), "log-" + name);
        pump.setDaemon(true);
        pump.start();
        return node;
    }

    /** Copies the node's output to its log, completing {@link #ready} on the READY line. */
    private void pump(Writer log, PrintStream echo) {
        try (log; BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                log.write(line);
                log.write('\n');
                log.flush();
                if (!ready.isDone() && line.startsWith(NodeLauncher.READY_PREFIX)) {
                    if (echo != null) {
                        echo.println("[" + name + "] " + line);
                    }
                    ready.complete(URI.create(line.substring(line.indexOf("http=") + "http=".length()).trim()));
                }
            }
        } catch (IOException e) {
            // the process is gone; completion below says so
        } finally {
            logComplete.complete(null);
            ready.completeExceptionally(new IllegalStateException(
                    name + " exited before it was READY (exit code " + exitCodeText() + ")"));
        }
    }

    /**
     * Waits for the READY line. Throws {@link NodeStartException} (with the log's tail) when the node
     * exits first or {@code timeout} passes; a timed-out node is killed.
     */
    void awaitReady(Duration timeout) throws InterruptedException {
        try {
            ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            process.waitFor(5, TimeUnit.SECONDS);
            awaitLogComplete();
            throw new NodeStartException(name, exitCodeOrNull(), e.getCause().getMessage(), logTail());
        } catch (TimeoutException e) {
            kill9();
            throw new NodeStartException(name, null, name + " was not READY within " + timeout, logTail());
        }
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The replication (JGroups) port this node was given. */
    public int bindPort() {
        return bindPort;
    }

    public Path logFile() {
        return logFile;
    }

    /** {@code http://127.0.0.1:<port>/session}, from the READY line. */
    public URI sessionUri() {
        if (!ready.isDone() || ready.isCompletedExceptionally()) {
            throw new IllegalStateException(name + " is not READY");
        }
        return ready.join();
    }

    /**
     * Kills the node the hard way and waits until it is gone: {@code destroyForcibly()} sends SIGKILL on Linux
     * (plain {@code destroy()} sends SIGTERM), so no shutdown hook or orderly leave runs: a crash. The exit
     * code is then 137 (128 + 9), which {@code LocalClusterIT} checks.
     *
     * <p>Sent through {@link Process#toHandle()}: the same signal as {@link Process#destroyForcibly()}, but
     * that one also closes our end of the node's output pipe, and the log would lose its last lines.
     */
    public int kill9() throws InterruptedException {
        process.toHandle().destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " (pid " + pid() + ") still alive 30s after SIGKILL");
        }
        awaitLogComplete();
        return process.exitValue();
    }

    /**
     * SIGSTOP ({@code true}) or SIGCONT ({@code false}): a node that hangs with its sockets open, as in a long
     * GC pause or a frozen VM, and wakes up again. Sent through {@code /bin/sh}'s built-in {@code kill}.
     */
    public void pause(boolean stop) throws IOException, InterruptedException {
        signal(stop ? "STOP" : "CONT");
    }

    /**
     * SIGQUIT: the JVM prints every thread's stack to its standard output, so into this node's log. For a
     * test that gave up waiting on the node: the log then shows what it was doing. A paused node prints it
     * when it continues.
     */
    public void printThreadDump() throws IOException, InterruptedException {
        signal("QUIT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("/bin/sh", "-c", "kill -" + name + " " + pid())
                .redirectErrorStream(true).start();
        String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + name + " " + pid() + " failed: " + output);
        }
    }

    /**
     * SIGTERM: the node stops Jetty and leaves the cluster; SIGKILL after {@code grace}. Through the
     * {@link ProcessHandle} (see {@link #kill9()}) so what the node logs while stopping reaches its log.
     */
    public int stop(Duration grace) throws InterruptedException {
        process.toHandle().destroy();
        if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            return kill9();
        }
        awaitLogComplete();
        return process.exitValue();
    }

    /** After the process ended: its last lines reach the log file (bounded wait). */
    private void awaitLogComplete() throws InterruptedException {
        try {
            logComplete.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // the log may miss its last lines; nothing else depends on it
        }
    }

    /** The last lines of the node's log. */
    public String logTail() {
        return String.join("\n", logTail(line -> true, LOG_TAIL_LINES));
    }

    /** The last {@code count} lines of the node's log that {@code filter} accepts (bytes that are not UTF-8 replaced). */
    public List<String> logTail(Predicate<String> filter, int count) {
        try {
            List<String> lines = new String(Files.readAllBytes(logFile), StandardCharsets.UTF_8).lines()
                    .filter(filter).toList();
            return lines.subList(Math.max(0, lines.size() - count), lines.size());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Integer exitCodeOrNull() {
        return process.isAlive() ? null : process.exitValue();
    }

    private String exitCodeText() {
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Integer code = exitCodeOrNull();
        return code == null ? "none, still running" : code.toString();
    }

    @Override
    public String toString() {
        return name + " (pid " + pid() + ")";
    }
}
