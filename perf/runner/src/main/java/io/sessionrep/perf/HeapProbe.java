package io.sessionrep.perf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Heap used after a full GC of another JVM, with the JDK's {@code jcmd}: {@code GC.run} twice (a full,
 * stop-the-world collection with G1, the default collector of the node JVMs), then {@code GC.heap_info},
 * whose heap lines ("garbage-first heap total 524288K, used 41234K", or one line per generation for other
 * collectors) are summed.
 */
final class HeapProbe {

    private static final Pattern USED = Pattern.compile("^\\s*(?!Metaspace|class space)[A-Za-z][A-Za-z -]*?\\s+total \\d+K, used (\\d+)K");

    private HeapProbe() {
    }

    /** Bytes of heap in use after a full GC of process {@code pid}. */
    static long usedAfterFullGc(long pid) throws IOException, InterruptedException {
        jcmd(pid, "GC.run");
        jcmd(pid, "GC.run");
        return parseUsed(jcmd(pid, "GC.heap_info"));
    }

    static long parseUsed(String heapInfo) {
        long kib = 0;
        boolean found = false;
        for (String line : heapInfo.split("\n")) {
            Matcher m = USED.matcher(line);
            if (m.find()) {
                kib += Long.parseLong(m.group(1));
                found = true;
            }
        }
        if (!found) {
            throw new IllegalStateException("no heap line in jcmd GC.heap_info:\n" + heapInfo);
        }
        return kib * 1024;
    }

    static String jcmd(long pid, String command) throws IOException, InterruptedException {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        Process p = new ProcessBuilder(List.of(jcmd, Long.toString(pid), command)).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("jcmd " + pid + " " + command + " did not finish within 60 s");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException("jcmd " + pid + " " + command + " exited with " + p.exitValue() + ": " + text);
        }
        return text;
    }
}
