package io.sessionrep.perf;

import com.sun.tools.attach.VirtualMachine;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code --async-profiler}: async-profiler (Maven Central, {@code tools.profiler:async-profiler}) loaded into every
 * node of a configuration for each of its measured segments, sampling CPU every millisecond with Java, JVM and,
 * where the kernel's perf events allow it, kernel frames. JFR's execution samples see Java frames only, so the
 * time a node spends in system calls (thread wake-ups, socket writes and reads), about a quarter to a half of
 * its CPU here, shows only in this profile. Each segment writes one collapsed-stacks file per node
 * ({@code logs/<config>/async-profiler/<segment>-<pid>.collapsed}, one line per stack: frames separated by
 * {@code ;}, then the count; the first frame names the thread); {@link #summarize} adds up a configuration's
 * files.
 */
final class AsyncProfiles {

    /**
     * What the report counts, in order: a sample counts for every entry one of whose frames it contains
     * (so the shares overlap; "kernel" is any kernel frame, the others are system calls or product code).
     */
    static final Map<String, List<String>> COMPONENTS = components();

    private AsyncProfiles() {
    }

    private static Map<String, List<String>> components() {
        Map<String, List<String>> c = new LinkedHashMap<>();
        c.put("kernel (any)", List.of("_[k]"));
        c.put("futex (thread waits and wake-ups)", List.of("sys_futex_[k]"));
        c.put("write", List.of("ksys_write_[k]"));
        c.put("read", List.of("ksys_read_[k]"));
        c.put("epoll", List.of("sys_epoll_wait_[k]", "sys_epoll_ctl_[k]"));
        c.put("request end (RequestEndReplication)", List.of("io/sessionrep/core/RequestEndReplication."));
        c.put("XXH3 digests", List.of("hashing/XXH3"));
        c.put("Kryo", List.of("esotericsoftware/kryo", "KryoSessionSerializer."));
        c.put("async sender thread", List.of("io/sessionrep/core/AsyncSender.run"));
        c.put("JGroups bundler threads", List.of("PerDestinationBundler$SendBuffer.run"));
        c.put("JGroups connection readers", List.of("TcpConnection$Receiver.run"));
        c.put("backup side (IncomingMessages)", List.of("io/sessionrep/core/IncomingMessages."));
        return c;
    }

    /** The native library for this machine, copied out of the async-profiler jar; null when there is none. */
    static Path library(Path dir) throws IOException {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        if (!os.contains("linux")) {
            return null;
        }
        String resource = (arch.equals("aarch64") ? "linux-arm64" : "linux-x64") + "/libasyncProfiler.so";
        try (InputStream in = AsyncProfiles.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                return null;
            }
            Path lib = dir.resolve("libasyncProfiler.so");
            Files.createDirectories(dir);
            Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
            return lib;
        }
    }

    /** Starts profiling in each process (a new session: what an earlier segment collected was written already). */
    static void start(Path library, List<Long> pids) throws IOException {
        for (long pid : pids) {
            command(pid, library, "start,event=cpu,interval=1ms,threads");
        }
    }

    /** Stops profiling in each process and writes its samples to {@code <dir>/<segment>-<pid>.collapsed}. */
    static void stop(Path library, List<Long> pids, Path dir, String segment) throws IOException {
        Files.createDirectories(dir);
        for (long pid : pids) {
            command(pid, library, "stop,collapsed,file=" + dir.resolve(segment + "-" + pid + ".collapsed").toAbsolutePath());
        }
    }

    private static void command(long pid, Path library, String arguments) throws IOException {
        try {
            VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
            try {
                vm.loadAgentPath(library.toAbsolutePath().toString(), arguments);
            } finally {
                vm.detach();
            }
        } catch (com.sun.tools.attach.AttachNotSupportedException | com.sun.tools.attach.AgentLoadException
                 | com.sun.tools.attach.AgentInitializationException e) {
            throw new IOException("async-profiler in process " + pid + " (" + arguments + "): " + e, e);
        }
    }

    /**
     * A configuration's samples: in total, per entry of {@link #COMPONENTS}, and the frames most often on top
     * of the stack (where the CPU was when sampled).
     */
    record Summary(long samples, Map<String, Long> byComponent, Map<String, Long> topSelf) {
    }

    /** Adds up every collapsed-stacks file under {@code dir}; null when there is none. */
    static Summary summarize(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".collapsed")).sorted().toList();
        }
        if (files.isEmpty()) {
            return null;
        }
        List<String> lines = new ArrayList<>();
        for (Path f : files) {
            lines.addAll(Files.readAllLines(f));
        }
        return summarize(lines);
    }

    /** Adds up collapsed stacks, one per line ("frame;frame;... count"). */
    static Summary summarize(List<String> lines) {
        long samples = 0;
        Map<String, Long> byComponent = new LinkedHashMap<>();
        COMPONENTS.keySet().forEach(k -> byComponent.put(k, 0L));
        Map<String, Long> self = new LinkedHashMap<>();
        for (String line : lines) {
            int space = line.lastIndexOf(' ');
            if (space <= 0) {
                continue;
            }
            long count;
            try {
                count = Long.parseLong(line.substring(space + 1).trim());
            } catch (NumberFormatException e) {
                continue;
            }
            String stack = line.substring(0, space);
            samples += count;
            for (Map.Entry<String, List<String>> c : COMPONENTS.entrySet()) {
                if (c.getValue().stream().anyMatch(stack::contains)) {
                    byComponent.merge(c.getKey(), count, Long::sum);
                }
            }
            self.merge(stack.substring(stack.lastIndexOf(';') + 1), count, Long::sum);
        }
        Map<String, Long> top = new LinkedHashMap<>();
        self.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(12)
                .forEach(e -> top.put(e.getKey(), e.getValue()));
        return new Summary(samples, byComponent, top);
    }

    /** Markdown: per configuration, the share of its samples in each component, then its top frames. */
    static String table(List<String[]> configs, Map<String, Summary> summaries) {
        StringBuilder md = new StringBuilder("| configuration | samples |");
        StringBuilder rule = new StringBuilder("| --- | ---: |");
        for (String component : COMPONENTS.keySet()) {
            md.append(' ').append(component).append(" |");
            rule.append(" ---: |");
        }
        md.append('\n').append(rule).append('\n');
        for (String[] c : configs) {
            Summary s = summaries.get(c[0]);
            if (s == null || s.samples() == 0) {
                continue;
            }
            md.append("| ").append(c[1]).append(" | ").append(String.format(Locale.ROOT, "%,d", s.samples())).append(" |");
            for (String component : COMPONENTS.keySet()) {
                md.append(String.format(Locale.ROOT, " %.1f %% |", 100.0 * s.byComponent().get(component) / s.samples()));
            }
            md.append('\n');
        }
        md.append('\n');
        for (String[] c : configs) {
            Summary s = summaries.get(c[0]);
            if (s == null || s.samples() == 0) {
                continue;
            }
            StringBuilder top = new StringBuilder();
            s.topSelf().forEach((frame, n) -> top.append(top.length() == 0 ? "" : ", ").append('`')
                    .append(frame.replace('/', '.')).append("` ").append(String.format(Locale.ROOT, "%.1f %%", 100.0 * n / s.samples())));
            md.append("- on top of the stack, ").append(c[1]).append(": ").append(top).append('\n');
        }
        return md.toString();
    }
}
