package io.sessionrep.testservlet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shaded node jar as a user runs it: {@code java -jar sessionrep-node.jar ...}. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class NodeLauncherIT {

    record Run(int exitCode, String stdout, String stderr) {
    }

    @Test
    void helpListsLauncherFlagsAndReplicationOptions() throws Exception {
        Run run = java("--help");
        assertEquals(0, run.exitCode(), run.stderr());
        for (String flag : List.of("--http-port", "--replication=on|off", "--node-name", "--replication-mode",
                "--write-quota", "--peers", "--bind-port", "--cluster-key")) {
            assertTrue(run.stdout().contains(flag), flag + " missing from:\n" + run.stdout());
        }
    }

    @Test
    void badLauncherFlagIsAConfigurationErrorWithExitCode2AndNoStackTrace() throws Exception {
        Run run = java("--http-port=eighty");
        assertEquals(2, run.exitCode());
        assertEquals("configuration error: http-port: 'eighty' is not allowed; expected a port from 0 to 65535"
                + " (0 = any free port)", run.stderr().strip());
        assertEquals("", run.stdout());
    }

    @Test
    void badReplicationOptionIsAConfigurationErrorWithExitCode2() throws Exception {
        Run run = java("--http-port=0", "--node-name=node-x", "--write-quota=-1");
        assertEquals(2, run.exitCode(), run.stderr());
        String error = run.stderr().strip();
        assertTrue(error.startsWith("configuration error: write-quota"), error);
        assertTrue(error.contains("-1"), "names the bad value: " + error);
        assertFalse(error.contains("\tat "), "no stack trace: " + error);
        assertFalse(run.stdout().contains("READY"));
    }

    private static Run java(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(NodeCommand.javaExecutable(), "-jar",
                System.getProperty(NodeCommand.CLASSPATH_PROPERTY, "target/sessionrep-node.jar")));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).start();
        process.getOutputStream().close();
        try {
            // small outputs: reading them one after the other cannot dead-lock
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "node did not exit");
            return new Run(process.exitValue(), out, err);
        } finally {
            process.destroyForcibly();
        }
    }
}
