package io.sessionrep.perf;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The load driver: one JMeter JVM (perf-jmeter's JMeterWorker, JMeter 5.6 from Maven Central) kept for
 * the whole run; each segment is one headless run of the plan with its own properties and CSV results.
 */
final class JMeterDriver implements AutoCloseable {

    static final List<String> JVM_ARGS = List.of("-Xms512m", "-Xmx1g", "-XX:MetaspaceSize=128m", "-XX:+UseSerialGC",
            "-Djava.net.preferIPv4Stack=true", "-Djava.awt.headless=true");

    private final Process process;
    private final BufferedReader replies;
    private final PrintWriter commands;
    private final Path plan;

    private JMeterDriver(Process process, Path plan) {
        this.process = process;
        this.plan = plan;
        this.replies = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.commands = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
    }

    static JMeterDriver start(Layout layout, Path rawDir) throws IOException {
        Files.createDirectories(rawDir);
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(JVM_ARGS);
        command.add("-Djmeter.logfile=" + rawDir.resolve("jmeter.log"));
        command.add("-Dlog4j.configurationFile=" + layout.jmeterHome().resolve("bin/log4j2.xml"));
        command.add("-cp");
        command.add(layout.jmeterClasspath());
        command.add("io.sessionrep.perf.jmeter.JMeterWorker");
        command.add(layout.jmeterHome().toString());
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(rawDir.resolve("jmeter-worker.err").toFile()))
                .start();
        JMeterDriver driver = new JMeterDriver(process, layout.plan());
        driver.await("start");
        return driver;
    }

    /** Runs the plan with these properties (threads, duration, hosts, number, size, ...) into {@code jtl}. */
    void run(Map<String, String> properties, Path jtl) throws IOException {
        Path props = jtl.resolveSibling(jtl.getFileName().toString().replace(".jtl", ".properties"));
        Properties p = new Properties();
        p.putAll(properties);
        try (var out = Files.newBufferedWriter(props, StandardCharsets.UTF_8)) {
            p.store(out, "JMeter properties of this segment");
        }
        commands.println("RUN\t" + plan + "\t" + jtl.toAbsolutePath() + "\t" + props.toAbsolutePath());
        await("run " + jtl.getFileName());
    }

    /** The JMeter HTML dashboard of {@code jtl} into {@code dir}. */
    void dashboard(Path jtl, Path dir) throws IOException {
        commands.println("REPORT\t" + jtl.toAbsolutePath() + "\t" + dir.toAbsolutePath());
        await("dashboard " + dir.getFileName());
    }

    private void await(String what) throws IOException {
        for (String line; (line = replies.readLine()) != null; ) {
            if (line.startsWith("@@ERROR")) {
                throw new IOException("JMeter " + what + " failed: " + line.substring(7).trim());
            }
            if (line.startsWith("@@")) {
                return;
            }
        }
        throw new IOException("the JMeter worker exited during " + what + " (exit " + exitCode() + ")");
    }

    private String exitCode() {
        try {
            return process.waitFor(5, TimeUnit.SECONDS) ? Integer.toString(process.exitValue()) : "none";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "?";
        }
    }

    static String javaExecutable() {
        return ProcessHandle.current().info().command()
                .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    @Override
    public void close() {
        try {
            commands.println("QUIT");
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
