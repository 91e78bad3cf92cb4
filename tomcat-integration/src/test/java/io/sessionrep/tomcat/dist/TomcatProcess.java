package io.sessionrep.tomcat.dist;

import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * One Tomcat of the distribution, in its own JVM with its own {@code CATALINA_BASE} ({@link CatalinaBase}): started,
 * awaited (serving, ready, a line of its log), and stopped in order (SIGTERM, or {@code catalina.sh stop} through
 * its shutdown port) or killed. Its console (every start appends to it) is {@code logs/console.log}.
 */
final class TomcatProcess {
    /** How long a start, and a line awaited in the log, may take. */
    static final Duration START = Duration.ofSeconds(120);
    /** How long a readiness endpoint may answer anything but 200 before {@link #awaitReady} fails. */
    static final Duration READY = Duration.ofSeconds(60);
    private static final HttpClient PROBE = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    final String name;
    /** The distribution ({@code CATALINA_HOME}). */
    final Path home;
    final Path base;
    final int httpPort;
    final Path console;
    /** JVM options for the next start, as a user puts them in {@code CATALINA_OPTS} (JMX remote, say). */
    final List<String> catalinaOpts = new java.util.ArrayList<>();
    private Process process;

    TomcatProcess(String name, Path home, Path base, int httpPort) {
        this.name = name;
        this.home = home;
        this.base = base;
        this.httpPort = httpPort;
        this.console = base.resolve("logs/console.log");
    }

    /** What {@code catalina.sh run} does, minus the script: Bootstrap with Tomcat's system properties. */
    void start() throws IOException {
        List<String> command = new java.util.ArrayList<>(List.of(jdkTool("java"),
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
                "-Dsessionrep.node-name=" + name));
        command.addAll(catalinaOpts);
        command.addAll(List.of("-cp", home.resolve("bin/bootstrap.jar") + java.io.File.pathSeparator
                        + home.resolve("bin/tomcat-juli.jar"),
                "org.apache.catalina.startup.Bootstrap", "start"));
        process = new ProcessBuilder(command).directory(base.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile())).start();
    }

    long pid() {
        return process.pid();
    }

    // ------------------------------------------------------------------ waiting for it

    /** Waits until the test WAR answers (its own 404 JSON for a request without a session). */
    void awaitServing() throws Exception {
        awaitServing(User.SESSION_TEST + "verify", reply -> reply.status() == 404 && reply.body().contains("\"error\""));
    }

    /** Waits until a GET of {@code path} (without a session) gets a reply that {@code serving} accepts. */
    void awaitServing(String path, Predicate<Reply> serving) throws Exception {
        await("serving", path, serving, START);
    }

    /**
     * Waits until the readiness endpoint at {@code path} ({@code io.sessionrep.core.health.ReadinessServlet}, or
     * the test WAR's copy of it) answers 200 {@code ready}; fails after {@link #READY} with its last answer,
     * which gives the reasons of a node that is not ready.
     */
    void awaitReady(String path) throws Exception {
        await("ready", path, reply -> reply.status() == 200 && reply.body().equals("ready\n"), READY);
    }

    private void await(String what, String path, Predicate<Reply> accepted, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        String last = "nothing";
        while (System.nanoTime() < deadline) {
            checkAlive();
            try {
                Reply reply = new User(PROBE, path).get(this, "");
                if (accepted.test(reply)) {
                    return;
                }
                last = reply.status() + " " + reply.body();
            } catch (IOException notYet) {
                last = notYet.toString(); // not listening yet
            }
            Thread.sleep(250);
        }
        fail(name + " not " + what + " within " + within + "; GET " + path + " last answered " + last + "; log:\n"
                + String.join("\n", logLines(l -> true)));
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

    /** Waits until this node logs, after the first {@code from} lines, a cluster view holding every one of {@code members}. */
    void awaitView(int from, Collection<String> members) throws Exception {
        awaitLog("a view holding " + members, from, line -> line.contains("cluster view of " + name + ": [")
                && members.stream().allMatch(member -> line.contains(member + "@")));
    }

    /** How many lines the console has so far (a mark for {@link #awaitLog(String, int, Predicate)}). */
    int logLineCount() throws IOException {
        return logLines(l -> true).size();
    }

    /** The lines of the console (it goes on across restarts of this Tomcat) that {@code filter} accepts. */
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

    // ------------------------------------------------------------------ stopping it

    /**
     * How a stop ended: the time from the stop's start to the JVM's exit, or, when it had not exited in time, the
     * time waited, {@code killed}, and its threads as they were then ({@code logs/threads-<pid>.txt}).
     */
    record Exit(Duration took, boolean killed, Path threads) {
    }

    /**
     * An orderly stop as an init system does it: SIGTERM, on which Tomcat's shutdown hook stops the server and its
     * web applications. A JVM still alive {@code grace} later has its threads dumped and is killed.
     */
    Exit stop(Duration grace) throws InterruptedException, IOException {
        long started = System.nanoTime();
        process.destroy();
        return awaitExit(started, grace);
    }

    /**
     * {@code catalina.sh stop} as an operator runs it (the base needs a shutdown port: {@link CatalinaBase}): it
     * sends SHUTDOWN to that port and returns; the JVM then exits only when no non-daemon thread is left. A JVM
     * still alive {@code grace} after the command started has its threads dumped and is killed.
     */
    Exit catalinaStop(Duration grace) throws InterruptedException, IOException {
        long started = System.nanoTime();
        ProcessBuilder command = new ProcessBuilder("/bin/sh", home.resolve("bin/catalina.sh").toString(), "stop")
                .directory(base.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(base.resolve("logs/catalina-stop.log").toFile()));
        command.environment().put("CATALINA_HOME", home.toString());
        command.environment().put("CATALINA_BASE", base.toString());
        command.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process stop = command.start();
        if (!stop.waitFor(30, TimeUnit.SECONDS)) {
            stop.destroyForcibly();
            fail("catalina.sh stop of " + name + " did not return within 30 s");
        }
        assertEquals(0, stop.exitValue(), "catalina.sh stop of " + name + "; see " + base.resolve("logs"));
        return awaitExit(started, grace);
    }

    private Exit awaitExit(long started, Duration grace) throws InterruptedException, IOException {
        long left = grace.toNanos() - (System.nanoTime() - started);
        if (process.waitFor(Math.max(left, 0), TimeUnit.NANOSECONDS)) {
            return new Exit(Duration.ofNanos(System.nanoTime() - started), false, null);
        }
        Duration waited = Duration.ofNanos(System.nanoTime() - started);
        Path threads = base.resolve("logs/threads-" + process.pid() + ".txt");
        Process jcmd = new ProcessBuilder(jdkTool("jcmd"), String.valueOf(process.pid()), "Thread.print")
                .redirectErrorStream(true).redirectOutput(threads.toFile()).start();
        if (!jcmd.waitFor(20, TimeUnit.SECONDS)) {
            jcmd.destroyForcibly();
        }
        kill();
        return new Exit(waited, true, threads);
    }

    /** kill -9. */
    void kill() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(20, TimeUnit.SECONDS);
        }
    }

    private static String jdkTool(String tool) {
        return Path.of(System.getProperty("java.home"), "bin", tool).toString();
    }
}
