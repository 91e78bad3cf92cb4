package io.sessionrep.testservlet.discovery;

import io.sessionrep.testservlet.NodeCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node that cannot start because of its discovery configuration says so in one line naming the option
 * (and the value), exits with code 2 and never prints READY: what an operator sees from the node launcher.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class StartupErrorsIT {

    @TempDir
    Path tmp;

    record Run(int exitCode, String output) {
        /** The launcher's one-line verdict. */
        String error() {
            return output.lines().filter(l -> l.startsWith("configuration error: ")).findFirst()
                    .orElse("(no configuration error line in:\n" + output + ")");
        }
    }

    @Test
    void portInUseNamesBindPortAndThePort() throws Exception {
        try (ServerSocket occupant = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = occupant.getLocalPort();
            Run run = node(Map.of("bind-port", String.valueOf(port)));
            assertEquals(2, run.exitCode(), run.output());
            assertTrue(run.error().startsWith("configuration error: bind-port: " + port + " on 127.0.0.1 is already"
                    + " in use"), run.error());
        }
    }

    @Test
    void unresolvablePeerNamesPeersAndTheHost() throws Exception {
        Run run = node(Map.of("peers", "no-such-peer.invalid:7800"));
        assertEquals(2, run.exitCode(), run.output());
        assertTrue(run.error().startsWith("configuration error: peers: host 'no-such-peer.invalid' cannot be"
                + " resolved"), run.error());
    }

    @Test
    void missingJGroupsXmlNamesTheOptionAndTheFile() throws Exception {
        Path missing = tmp.resolve("no-such-stack.xml");
        Run run = node(Map.of("jgroups-config", missing.toString()));
        assertEquals(2, run.exitCode(), run.output());
        assertEquals("configuration error: jgroups-config: '" + missing + "' does not exist; expected a readable"
                + " JGroups XML stack file (for a start, copy tcp.xml or udp.xml from the jgroups jar)", run.error());
    }

    @Test
    void brokenJGroupsXmlNamesTheOptionAndTheProblem() throws Exception {
        Path xml = Files.writeString(tmp.resolve("stack.xml"),
                "<config><TCP bind_port=\"7800\" not_an_attribute=\"x\"/><TCPPING/><pbcast.GMS/></config>");
        Run run = node(Map.of("jgroups-config", xml.toString()));
        assertEquals(2, run.exitCode(), run.output());
        assertTrue(run.error().startsWith("configuration error: jgroups-config: '" + xml + "' cannot be used as a"
                + " JGroups stack"), run.error());
        assertTrue(run.error().contains("not_an_attribute"), run.error());
    }

    /** Rejected while reading the configuration, before any socket is opened. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "multicast address outside 224.0.0.0/4 | discovery=multicast,multicast-address=240.0.0.1"
                    + " | multicast-address: '240.0.0.1' is not a multicast address; expected an IPv4 multicast"
                    + " address in 224.0.0.0/4",
            "multicast option with static discovery | discovery=static,multicast-port=45600"
                    + " | multicast-port: '45600' is set, but multicast-port is an option of discovery=multicast or"
                    + " dynamic and discovery is static (mixing options of different modes)",
            "peers with multicast discovery | discovery=multicast,peers=127.0.0.1:7800"
                    + " | peers: '127.0.0.1:7800' is set, but peers is an option of discovery=static and discovery"
                    + " is multicast (mixing options of different modes)",
            "shared directory with multicast discovery | discovery=dynamic,discovery-directory=/tmp/x"
                    + " | discovery-directory: '/tmp/x' is set, but discovery-directory is an option of"
                    + " discovery=dynamic with dynamic-discovery=file and dynamic-discovery is multicast",
            "file discovery without its directory | discovery=dynamic,dynamic-discovery=file"
                    + " | discovery-directory: not set, but dynamic-discovery=file needs it",
            "jgroups-config with a generated-stack option | jgroups-config=/etc/stack.xml,bind-port=7800"
                    + " | bind-port: '7800' is set, but jgroups-config ('/etc/stack.xml') replaces the generated"
                    + " JGroups stack",
    })
    void badCombinationsAreNamed(String what, String options, String expected) throws Exception {
        Map<String, String> flags = new LinkedHashMap<>();
        for (String option : options.split(",")) {
            String[] kv = option.split("=", 2);
            flags.put(kv[0].strip(), kv[1].strip());
        }
        Run run = node(flags);
        assertEquals(2, run.exitCode(), what + ": " + run.output());
        assertTrue(run.error().startsWith("configuration error: " + expected.strip()), what + ": " + run.error());
    }

    /** Runs one node with {@code flags} (plus a name and a free HTTP port) until it exits. */
    private static Run node(Map<String, String> flags) throws IOException, InterruptedException {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("http-port", "0");
        all.put("node-name", "bad-node");
        all.put("cluster-name", "startup-errors-" + ProcessHandle.current().pid());
        all.putAll(flags);
        List<String> command = NodeCommand.build(Scenario.NODE_JVM, all);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "node did not exit");
            assertFalse(output.contains("READY node="), output);
            return new Run(process.exitValue(), output);
        } finally {
            process.destroyForcibly();
        }
    }
}
