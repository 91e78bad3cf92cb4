package io.sessionrep.boot.it;

import io.sessionrep.boot.sample.ShopApplication;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One JVM process running the sample shop ({@link ShopApplication}) with {@code java -cp}, its output in a log file.
 * Killed by PID ({@link #kill()}: SIGKILL) at the latest when the test ends.
 */
final class BootNode implements AutoCloseable {

    /** The sample's class path (test classes, the starter, every dependency), from the build. */
    static final String CLASSPATH = System.getProperty("sessionrep.boot.sample.classpath");
    static final Path LOGS = Path.of(System.getProperty("sessionrep.boot.logs", "target/boot-it"));

    final String name;
    final int httpPort;
    final int bindPort;
    final Path log;
    private final Process process;

    private BootNode(String name, int httpPort, int bindPort, Path log, Process process) {
        this.name = name;
        this.httpPort = httpPort;
        this.bindPort = bindPort;
        this.log = log;
        this.process = process;
    }

    /**
     * Starts node {@code name} with the {@code container} profile ({@code tomcat} or {@code jetty}) on
     * {@code httpPort}, replicating on {@code bindPort}, and the other arguments ({@code --sessionrep.peers=...}).
     */
    static BootNode start(String container, String name, int httpPort, int bindPort, String... args) {
        if (CLASSPATH == null) {
            throw new IllegalStateException("system property sessionrep.boot.sample.classpath is not set (the build sets it)");
        }
        try {
            Files.createDirectories(LOGS);
            Path log = LOGS.resolve(container + "-" + name + ".log");
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true",
                    "-cp", CLASSPATH, ShopApplication.class.getName(),
                    "--spring.profiles.active=" + container,
                    "--server.port=" + httpPort,
                    "--server.address=127.0.0.1",
                    "--sessionrep.node-name=" + name,
                    "--sessionrep.bind-port=" + bindPort));
            command.addAll(List.of(args));
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
            process.getOutputStream().close();
            return new BootNode(name, httpPort, bindPort, log, process);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String url(String path) {
        return "http://127.0.0.1:" + httpPort + path;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the process to exit by itself; its exit code, or fails after {@code seconds}. */
    int exitCode(int seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " still running after " + seconds + " s:\n" + output());
        }
        return process.exitValue();
    }

    /** kill -9 by PID, and waits until the process is gone. */
    void kill() throws InterruptedException {
        ProcessHandle.of(process.pid()).ifPresent(ProcessHandle::destroyForcibly);
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " (pid " + process.pid() + ") survived SIGKILL for 10 s");
        }
    }

    /** What the process printed so far. */
    String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    /** The last lines of the output, for failure messages. */
    String tail() {
        String[] lines = output().split("\n");
        return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 60), lines.length));
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }

    /** {@code count} distinct free TCP ports on 127.0.0.1 (held open together while picked). */
    static int[] freePorts(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // a port we only picked
                }
            }
        }
    }
}
