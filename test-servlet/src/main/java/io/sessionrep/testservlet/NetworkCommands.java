package io.sessionrep.testservlet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The iproute2 commands that the network-namespace setups of the tests and of the perf runner share:
 * running a command (optionally inside a namespace) and creating a veth pair between two namespaces.
 * Needs root and iproute2; callers check both first.
 */
public final class NetworkCommands {

    /** A command's exit code and its output (stdout and stderr together). */
    public record Result(int code, String output) {
    }

    private NetworkCommands() {
    }

    /** The command prefix that runs a process inside namespace {@code ns}. */
    public static List<String> exec(String ns) {
        return List.of("ip", "netns", "exec", ns);
    }

    /** {@code command} run inside namespace {@code ns}, or as it is when {@code ns} is null (the root one). */
    public static String[] in(String ns, String... command) {
        List<String> c = new ArrayList<>();
        if (ns != null) {
            c.addAll(exec(ns));
        }
        c.addAll(List.of(command));
        return c.toArray(String[]::new);
    }

    /**
     * One veth pair {@code a} - {@code b}, each end moved to its namespace (null: stays in the root one),
     * given its address (CIDR) and brought up.
     */
    public static void vethPair(String a, String nsA, String addrA, String b, String nsB, String addrB) {
        run(true, "ip", "link", "add", a, "type", "veth", "peer", "name", b);
        for (String[] end : new String[][]{{a, nsA, addrA}, {b, nsB, addrB}}) {
            if (end[1] != null) {
                run(true, "ip", "link", "set", end[0], "netns", end[1]);
            }
            run(true, in(end[1], "ip", "addr", "add", end[2], "dev", end[0]));
            run(true, in(end[1], "ip", "link", "set", end[0], "up"));
        }
    }

    /**
     * Runs {@code command} (at most 120 s). {@code required}: a failure (non-zero exit, not startable) throws
     * {@link IllegalStateException} with the output; otherwise it is returned (exit code 127 if not startable).
     */
    public static Result run(boolean required, String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " timed out");
            }
            if (required && p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed (" + p.exitValue() + "): "
                        + out.trim());
            }
            return new Result(p.exitValue(), out);
        } catch (IOException e) {
            if (required) {
                throw new IllegalStateException(String.join(" ", command) + ": " + e.getMessage(), e);
            }
            return new Result(127, e.getMessage() == null ? "" : e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
