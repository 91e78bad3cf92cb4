package io.sessionrep.tomcat.dist;

import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.JmxMeters;
import io.sessionrep.testsupport.FreePorts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * End to end in the real product: the official Tomcat 11 distribution (unpacked from Maven Central by the
 * build), our drop-in jar in {@code lib/}, the study's test WAR, each node a separate Tomcat process with
 * its own {@code CATALINA_BASE}, configured as {@code docs/install-tomcat.md} section 3 tells a user: the
 * {@code <Manager>} elements are read from that document (only their ports are replaced by free ones, as
 * are the HTTP ports in {@code server.xml}). Processes are started with {@code java} and Tomcat's
 * {@code Bootstrap}, as {@code catalina.sh run} does, and killed in {@code finally}.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class TomcatDistributionIT {
    private static final Duration START = Duration.ofSeconds(120);
    private static final String APP = "/session-test/session?mode=";

    private final Path home = Path.of(required("sessionrep.tomcat.home"));
    private final Path jar = Path.of(required("sessionrep.tomcat.jar"));
    private final Path war = Path.of(required("sessionrep.test.war"));
    private final Path doc = Path.of(required("sessionrep.install.doc"));
    private final Path runDir = Path.of(required("sessionrep.it.dir"))
            .resolve(UUID.randomUUID().toString().substring(0, 8));
    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void killAll() throws InterruptedException {
        for (Node node : nodes) {
            node.kill();
        }
    }

    @Test
    void twoTomcatProcessesReplicateFailOverAndInvalidate() throws Exception {
        int[] ports = FreePorts.onLoopback(4);
        String contextA = documentedContext("node-a", ports[2], ports[3]);
        String contextB = documentedContext("node-b", ports[2], ports[3]);
        Node a = start(prepare("node-a", ports[0], contextA));
        Node b = start(prepare("node-b", ports[1], contextB));
        a.awaitServing();
        b.awaitServing();
        a.awaitLog("cluster view with node-b", line -> line.contains("cluster view of node-a: [")
                && line.contains("node-b@"));

        // replication: the session created on node-a is served by node-b with the same state
        User user = new User();
        Reply created = user.get(a, "initialize&number=2&size=5");
        assertEquals(200, created.status(), created.body());
        assertEquals("node-a", created.field("node"));
        assertTrue(user.cookie.endsWith(".node-a"), "route from jvmRoute: " + user.cookie);
        Reply processed = user.get(a, "process");
        assertEquals("1", processed.field("version"));
        // metrics=jmx by default: the meters are MBeans of Tomcat's JVM, as jconsole would attach and see them
        try (JmxMeters jmx = JmxMeters.attach(a.process.pid(), "node-a")) {
            assertEquals(1, jmx.value(ReplicationMetrics.SESSIONS_PRIMARY), "MBeans: " + jmx.names());
            assertTrue(jmx.names().stream().allMatch(n -> "/session-test".equals(n.getKeyProperty("context"))),
                    jmx.names().toString());
        }

        // the WAR's readiness endpoint (its class file in WEB-INF/classes) finds the manager's node
        a.awaitReady();
        b.awaitReady();

        Reply onB = user.get(b, "verify");
        assertEquals("node-b", onB.field("node"), onB.body());
        assertEquals(processed.field("checksum"), onB.field("checksum"), "same state on node-b");
        assertTrue(onB.setCookie() != null && onB.setCookie().endsWith(".node-b"), "cookie route rewritten");
        Reply processedOnB = user.get(b, "process");
        assertEquals("2", processedOnB.field("version"));
        Reply backOnA = user.get(a, "verify");
        assertEquals(processedOnB.field("checksum"), backOnA.field("checksum"), "node-a took the newest back");
        Reply last = user.get(a, "process");
        assertEquals("3", last.field("version"));

        // invalidation everywhere
        User other = new User();
        Reply otherCreated = other.get(a, "initialize&number=2&size=5");
        assertEquals(otherCreated.field("checksum"), other.get(b, "verify").field("checksum"));
        assertEquals(200, other.get(b, "destroy").status());
        assertEquals(404, other.get(a, "verify").status(), "invalidated on node-a too");
        assertEquals(404, other.get(b, "verify").status(), "and not resurrected on node-b");

        // fail-over: node-a, the owner, crashes
        a.kill();
        Reply failedOver = user.get(b, "verify");
        assertEquals(200, failedOver.status(), failedOver.body());
        assertEquals("node-b", failedOver.field("node"));
        assertEquals("3", failedOver.field("version"));
        assertEquals(last.field("checksum"), failedOver.field("checksum"), "nothing lost in the crash");
        assertTrue(failedOver.setCookie() != null && failedOver.setCookie().endsWith(".node-b"));
        assertEquals("4", user.get(b, "process").field("version"), "the session goes on on node-b");

        for (Node node : List.of(a, b)) {
            List<String> severe = node.logLines(line -> line.contains("SEVERE"));
            assertTrue(severe.isEmpty(), node.name + " logged SEVERE lines: " + severe);
        }
    }

    /**
     * Issue #10 with the distribution, installed as the guide says: three Tomcat processes, 5 clients
     * without session affinity (every request of a session on the next node) for 20 s, and one session
     * shared by one client per node. Every verify shows exactly the process requests answered 200.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"async", "sync"})
    void threeTomcatsWithoutSessionAffinityLoseNoUpdate(String mode) throws Exception {
        int[] ports = FreePorts.onLoopback(6);
        List<Node> three = new ArrayList<>();
        String[] names = {"node-a", "node-b", "node-c"};
        for (int i = 0; i < 3; i++) {
            // node-a and node-b as documented; node-c like node-b, on its own port, listing node-a
            String context = i < 2 ? documentedContext(names[i], ports[3], ports[4])
                    : documentedContext("node-b", ports[3], ports[5]); // node-b's block: binds ports[5], lists node-a
            three.add(start(prepare(names[i], ports[i], context.replace("replicationMode=\"sync\"",
                    "replicationMode=\"" + mode + "\""))));
        }
        for (Node node : three) {
            node.awaitServing();
        }
        three.get(0).awaitLog("a view of three", line -> line.contains("cluster view of node-a: [")
                && line.contains("node-b@") && line.contains("node-c@"));
        List<java.net.URI> uris = three.stream()
                .map(n -> java.net.URI.create("http://127.0.0.1:" + n.httpPort + "/session-test/session")).toList();
        io.sessionrep.testservlet.NonStickyLoad.Result roundRobin = io.sessionrep.testservlet.NonStickyLoad.roundRobin(
                uris, "JSESSIONID", 5, Duration.ofSeconds(Long.getLong("sessionrep.nonsticky.seconds", 20)), 4);
        System.out.println("Tomcat distribution, round robin, " + mode + ": " + roundRobin);
        assertTrue(roundRobin.sessions() >= 20, roundRobin.toString());
        assertEquals(0, roundRobin.lost(), roundRobin.toString());
        assertEquals(0, roundRobin.errors(), roundRobin.toString());
        List<java.net.URI> twoPerNode = new java.util.ArrayList<>(uris);
        twoPerNode.addAll(uris); // concurrent requests of one session on one node and across nodes
        io.sessionrep.testservlet.NonStickyLoad.Result shared =
                io.sessionrep.testservlet.NonStickyLoad.sharedSession(twoPerNode, "JSESSIONID", 10);
        System.out.println("Tomcat distribution, shared session, " + mode + ": " + shared);
        assertEquals(0, shared.lost(), shared.toString());
        assertEquals(0, shared.errors(), shared.toString());
        for (Node node : three) {
            List<String> severe = node.logLines(line -> line.contains("SEVERE"));
            assertTrue(severe.isEmpty(), node.name + " logged SEVERE lines: " + severe);
        }
    }

    @Test
    void contextWithABadAttributeFailsToStartWithALogLineNamingIt() throws Exception {
        int[] ports = FreePorts.onLoopback(3);
        String context = documentedContext("node-a", ports[1], ports[2])
                .replace("<Manager ", "<Manager writeQuota=\"-1\" ");
        Node node = start(prepare("node-a", ports[0], context));
        node.awaitLog("Tomcat started", line -> line.contains("Server startup in"));

        List<String> named = node.logLines(line -> line.contains("Manager attribute writeQuota=\"-1\""));
        assertTrue(!named.isEmpty() && named.get(0).contains("write-quota")
                && named.get(0).contains("expected an integer from 0 to 64"), "log: " + node.logLines(l -> true));
        assertTrue(!node.logLines(line -> line.contains("Context [/session-test] startup failed")).isEmpty());
        assertEquals(404, new User().get(node, "verify").status(), "the application is not available");
    }

    @Test
    void dropInJarBundlesThirdPartyCodeRelocatedAndNoContainerClasses() throws IOException {
        List<String> classes;
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(jar.toFile())) {
            classes = zip.stream().map(java.util.zip.ZipEntry::getName).filter(n -> n.endsWith(".class")).toList();
        }
        assertTrue(classes.contains("io/sessionrep/tomcat/ReplicatedSessionManager.class"));
        for (String shaded : List.of("jgroups/JChannel", "esotericsoftware/kryo/Kryo", "objenesis/Objenesis",
                "micrometer/core/instrument/MeterRegistry", "micrometer/jmx/JmxMeterRegistry",
                "codahale/metrics/jmx/JmxReporter", "slf4j/LoggerFactory", "slf4j/jul/JULServiceProvider")) {
            assertTrue(classes.contains("io/sessionrep/shaded/" + shaded + ".class"), shaded + " relocated");
        }
        List<String> foreign = classes.stream().filter(n -> !n.startsWith("io/sessionrep/")
                && !n.startsWith("META-INF/versions/")).toList();
        assertTrue(foreign.isEmpty(), "only io.sessionrep.* classes (ours and relocated): " + foreign);
        assertTrue(classes.stream().noneMatch(n -> n.contains("/catalina/") || n.startsWith("jakarta/")),
                "no Tomcat or Servlet API classes");
    }

    // ------------------------------------------------------------------ the documented configuration

    /**
     * The {@code <Context>} block that docs/install-tomcat.md gives for {@code node}, with its replication
     * ports 7800 and 7801 replaced by {@code portA} and {@code portB}.
     */
    private String documentedContext(String node, int portA, int portB) throws IOException {
        String text = Files.readString(doc);
        String marker = "the context of " + node + " -->";
        int at = text.indexOf(marker);
        assertTrue(at >= 0, "docs/install-tomcat.md has no block marked '" + marker + "'");
        int start = text.indexOf("```xml\n", at) + "```xml\n".length();
        int end = text.indexOf("```", start);
        return text.substring(start, end)
                .replace("7800", String.valueOf(portA))
                .replace("7801", String.valueOf(portB));
    }

    /** A CATALINA_BASE as section 3 of the document builds it. */
    private Node prepare(String name, int httpPort, String contextXml) throws IOException {
        Path base = runDir.resolve(name);
        for (String dir : List.of("lib", "logs", "temp", "webapps", "work", "conf/Catalina/localhost")) {
            Files.createDirectories(base.resolve(dir));
        }
        try (Stream<Path> conf = Files.list(home.resolve("conf"))) {
            for (Path file : conf.filter(Files::isRegularFile).toList()) {
                Files.copy(file, base.resolve("conf").resolve(file.getFileName()));
            }
        }
        Path serverXml = base.resolve("conf/server.xml");
        String server = Files.readString(serverXml);
        String edited = server
                .replace("<Server port=\"8005\"", "<Server port=\"-1\"") // no shutdown port: stopped by signals
                .replaceFirst("<Connector port=\"8080\"", "<Connector port=\"" + httpPort + "\" address=\"127.0.0.1\"")
                .replace("<Engine name=\"Catalina\" defaultHost=\"localhost\">",
                        "<Engine name=\"Catalina\" defaultHost=\"localhost\" jvmRoute=\"" + name + "\">");
        assertTrue(edited.contains("jvmRoute=\"" + name + "\"") && edited.contains("port=\"" + httpPort + "\""),
                "server.xml of the distribution changed: cannot apply the documented edits");
        Files.writeString(serverXml, edited);
        Files.copy(jar, base.resolve("lib").resolve(jar.getFileName()));
        Files.copy(war, base.resolve("webapps/session-test.war"));
        Files.writeString(base.resolve("conf/Catalina/localhost/session-test.xml"), contextXml);
        return new Node(name, base, httpPort);
    }

    private Node start(Node node) throws IOException {
        nodes.add(node);
        node.start(home);
        return node;
    }

    // ------------------------------------------------------------------ one Tomcat process

    private static final class Node {
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
                    .redirectOutput(console.toFile()).start();
        }

        /** Waits until the WAR's {@code /ready} answers 200 {@code ready} (the node is settled in its cluster). */
        void awaitReady() throws Exception {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            URI ready = URI.create("http://127.0.0.1:" + httpPort + "/session-test/ready");
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            HttpResponse<String> last;
            do {
                last = http.send(HttpRequest.newBuilder(ready).timeout(Duration.ofSeconds(20)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (last.statusCode() == 200) {
                    assertEquals("ready\n", last.body());
                    return;
                }
                Thread.sleep(200);
            } while (System.nanoTime() < deadline);
            throw new AssertionError(name + ": GET /session-test/ready answered " + last.statusCode() + " " + last.body());
        }

        /** Waits until the test application answers (its own 404 JSON for a request without a session). */
        void awaitServing() throws Exception {
            long deadline = System.nanoTime() + START.toNanos();
            while (System.nanoTime() < deadline) {
                checkAlive();
                try {
                    Reply reply = new User().get(this, "verify");
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

        /** kill -9. */
        void kill() throws InterruptedException {
            if (process != null && process.isAlive()) {
                process.destroyForcibly();
                process.waitFor(20, TimeUnit.SECONDS);
            }
        }
    }

    // ------------------------------------------------------------------ a user

    private record Reply(int status, String body, String setCookie) {
        String field(String name) {
            Matcher m = Pattern.compile("\"" + name + "\":\"?([^\",}]*)").matcher(body);
            assertTrue(m.find(), "no " + name + " in " + body);
            return m.group(1);
        }
    }

    /** One browser: keeps JSESSIONID and sends it to whichever node it is told to, as behind a balancer. */
    private static final class User {
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        String cookie;

        Reply get(Node node, String mode) throws IOException, InterruptedException {
            HttpRequest.Builder request = HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + node.httpPort + APP + mode)).timeout(Duration.ofSeconds(20));
            if (cookie != null) {
                request.header("Cookie", "JSESSIONID=" + cookie);
            }
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            String set = null;
            for (String header : response.headers().allValues("Set-Cookie")) {
                if (header.startsWith("JSESSIONID=")) {
                    int end = header.indexOf(';');
                    set = header.substring("JSESSIONID=".length(), end < 0 ? header.length() : end);
                }
            }
            if (set != null) {
                cookie = set;
            }
            return new Reply(response.statusCode(), response.body(), set);
        }
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        assertNotNull(value, "system property " + property + " (set by the failsafe configuration)");
        return value;
    }
}
