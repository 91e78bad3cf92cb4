package io.sessionrep.perf;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The Redis server of the Spring Session peer: Debian's {@code redis-server} (installed with apt-get when
 * missing; that needs root), started by the runner on 127.0.0.1 on a free port without persistence, as a
 * child process killed by {@link #close}. {@link #command} speaks enough of RESP for PING, FLUSHALL,
 * DBSIZE and INFO.
 */
final class RedisServer implements AutoCloseable {

    private final ServerProcess process;
    private final int port;
    private final String version;

    private RedisServer(ServerProcess process, int port, String version) {
        this.process = process;
        this.port = port;
        this.version = version;
    }

    /** Why Redis cannot run here (not installed and not installable), or null. */
    static String unavailableReason(java.io.PrintStream echo) {
        if (executable() != null) {
            return null;
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return "redis-server is not installed and installing it needs root (apt-get install -y redis-server)";
        }
        try {
            echo.println("-- redis-server missing: apt-get update && apt-get install -y redis-server");
            run(List.of("apt-get", "update"), Duration.ofMinutes(5));
            run(List.of("apt-get", "install", "-y", "redis-server"), Duration.ofMinutes(10));
        } catch (IOException | InterruptedException | RuntimeException e) {
            return "installing redis-server failed: " + e.getMessage();
        }
        return executable() == null ? "redis-server still missing after apt-get install" : null;
    }

    private static String executable() {
        for (String dir : List.of("/usr/bin", "/usr/local/bin", "/usr/sbin")) {
            if (Files.isExecutable(Path.of(dir, "redis-server"))) {
                return dir + "/redis-server";
            }
        }
        return null;
    }

    private static void run(List<String> command, Duration timeout) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        p.getOutputStream().close();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish within " + timeout);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " exited with " + p.exitValue());
        }
    }

    /** A server on a free port of 127.0.0.1, answering PING. */
    static RedisServer start(Path logDir) throws Exception {
        String exe = executable();
        if (exe == null) {
            throw new IllegalStateException("redis-server is not installed");
        }
        int port = Catalog.freePorts(1)[0];
        Path dir = Files.createDirectories(logDir.resolve("redis-data"));
        ServerProcess process = ServerProcess.start("redis", List.of(exe, "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", dir.toString()),
                logDir.resolve("redis.log"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                String pong = command(port, "PING");
                if (pong.equals("PONG")) {
                    break;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.close();
                throw new IllegalStateException("redis-server did not answer PING on port " + port + "; see " + process.log());
            }
            Thread.sleep(100);
        }
        String version = info(port, "server").getOrDefault("redis_version", "?");
        return new RedisServer(process, port, version);
    }

    int port() {
        return port;
    }

    String version() {
        return version;
    }

    /** INFO of one section as key/value pairs. */
    Map<String, String> info(String section) throws IOException {
        return info(port, section);
    }

    private static Map<String, String> info(int port, String section) throws IOException {
        Map<String, String> values = new TreeMap<>();
        for (String line : command(port, "INFO " + section).split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                values.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return values;
    }

    /** The server's {@code used_memory} (bytes). */
    long usedMemory() throws IOException {
        return Long.parseLong(info("memory").get("used_memory"));
    }

    String command(String inline) throws IOException {
        return command(port, inline);
    }

    /** One inline command; the reply's text (simple string, integer or bulk string). */
    static String command(int port, String inline) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write((inline + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            String first = in.readLine();
            if (first == null) {
                throw new IOException("no answer to " + inline);
            }
            switch (first.charAt(0)) {
                case '+', ':' -> {
                    return first.substring(1);
                }
                case '-' -> throw new IOException("redis: " + first.substring(1));
                case '$' -> {
                    int length = Integer.parseInt(first.substring(1));
                    if (length < 0) {
                        return "";
                    }
                    char[] body = new char[length];
                    int read = 0;
                    while (read < length) {
                        int n = in.read(body, read, length - read);
                        if (n < 0) {
                            break;
                        }
                        read += n;
                    }
                    return new String(body, 0, read);
                }
                default -> throw new IOException("unexpected answer to " + inline + ": " + first);
            }
        }
    }

    @Override
    public void close() {
        process.close();
    }
}
