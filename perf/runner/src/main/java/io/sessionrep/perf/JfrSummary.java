package io.sessionrep.perf;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Where the nodes' CPU time and allocations go ({@code --jfr}). Per configuration: the Java execution
 * samples of every node (JFR's default settings: one sample per running thread every 20 ms; {@code
 * --jfr=profile}: every 10 ms), each attributed to the first frame, from the top of the stack, that belongs to a
 * known component (so a JDK array copy called by Kryo counts as serialization). Per node (read from the
 * recording's {@code sessionrep.node-name} system property) the profile in detail: CPU samples by thread role,
 * the top frames by self and by total (inclusive) samples, and the top allocation sites and classes by bytes
 * (JFR's {@code jdk.ObjectAllocationSample}, whose weights estimate the bytes allocated). When the runner gives
 * the time windows of the configuration's measured JMeter runs, only events inside them count (start-up and the
 * other configurations' segments left out), and bytes are also given per request served in those windows.
 */
final class JfrSummary {

    /** Component, in the order the report lists them, to the class name prefixes that identify it. */
    static final Map<String, List<String>> COMPONENTS = new LinkedHashMap<>();

    static {
        COMPONENTS.put("test servlet (workload)", List.of("io.sessionrep.testservlet."));
        COMPONENTS.put("serialization (Kryo)", List.of("io.sessionrep.core.serial.", "com.esotericsoftware."));
        COMPONENTS.put("sessionrep replication", List.of("io.sessionrep."));
        COMPONENTS.put("JGroups", List.of("org.jgroups."));
        COMPONENTS.put("Tomcat cluster (Tribes, ha)", List.of("org.apache.catalina.tribes.", "org.apache.catalina.ha."));
        COMPONENTS.put("Jetty", List.of("org.eclipse.jetty."));
        COMPONENTS.put("Tomcat", List.of("org.apache."));
        COMPONENTS.put("JDK / other", List.of());
    }

    /** Thread roles, in report order (see {@link #role}). */
    static final List<String> ROLES = List.of("request threads", "sessionrep sender", "JGroups / Tribes receive+send",
            "GC / JIT / JFR (VM)", "other");

    /** JFR's settings for the node recordings: {@code default}, or {@code profile} with {@code --jfr=profile}. */
    static volatile String settings = "default";

    /** How many rows the detailed tables carry. */
    static final int TOP = 15;

    /** One node's profile. */
    record Node(String name, long cpuSamples, Map<String, Long> byRole, Map<String, Long> topSelf, Map<String, Long> topTotal,
                long allocBytes, Map<String, Long> allocByRole, Map<String, Long> topAllocSites, Map<String, Long> topAllocCallers,
                Map<String, Long> topAllocClasses, Map<String, Long> watchCpu, Map<String, Long> watchAlloc) {
    }

    /**
     * Frames looked up by name in every profile: CPU samples and allocated bytes whose stack
     * contains a frame whose shortened name contains the key (inclusive: callees count).
     */
    static final List<String> WATCH = List.of("tomcat.ReplicationValve.invoke", "ReplicatedSessionManager.enterRequestedSession",
            "ReplicatedSessionManager.requestCompleted", "tomcat.SessionIds.", "ReplicatedSession$Snapshot.", "ChangeTracker.",
            "core.HandOver.", "RequestEndReplication.dispatch", "RequestEndReplication.buildDelta", "KryoSessionSerializer.serialize",
            "kryo.Kryo.reset", "KryoSessionSerializer.deserialize", "AsyncSender.enqueue", "AsyncSender.send", "WireCodec.encode",
            "WireFormat.message", "OutboundQueues", "JChannel.send", "InboundDispatcher.receive", "WireFormat.read",
            "WireCodec.decode", "IncomingMessages.onUpdate", "AttributeCodec.read", "BackupStore.apply", "SessionCopy.",
            "PrimaryEntry.", "LockSupport.unpark", "catalina.ha.", "catalina.tribes.", "StandardSession.", "java.io.ObjectOutputStream.",
            "java.io.ObjectInputStream.");

    record Summary(long samples, Map<String, Long> byComponent, Map<String, Long> topMethods, long requests,
                   boolean windowed, List<Node> nodes) {

        long allocBytes() {
            return nodes.stream().mapToLong(Node::allocBytes).sum();
        }
    }

    /** A measured interval of the configuration (a JMeter run) and the requests it served. */
    record Window(Instant start, Instant end, long requests) {
    }

    private JfrSummary() {
    }

    /** Every .jfr file under {@code dir}, whole recordings; null if there is none. */
    static Summary of(Path dir) throws IOException {
        return of(dir, List.of());
    }

    /**
     * Every .jfr file under {@code dir}, counting only events inside {@code windows} (all events when there is
     * none); null if there is no recording.
     */
    static Summary of(Path dir, List<Window> windows) throws IOException {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(p -> p.toString().endsWith(".jfr")).sorted().toList();
        }
        if (files.isEmpty()) {
            return null;
        }
        Map<String, Long> components = new LinkedHashMap<>();
        COMPONENTS.keySet().forEach(k -> components.put(k, 0L));
        Map<String, Long> methods = new HashMap<>();
        long total = 0;
        List<Node> nodes = new ArrayList<>();
        int index = 0;
        for (Path file : files) {
            index++;
            String name = null;
            long cpu = 0;
            long alloc = 0;
            Map<String, Long> byRole = new LinkedHashMap<>();
            Map<String, Long> allocByRole = new LinkedHashMap<>();
            ROLES.forEach(r -> {
                byRole.put(r, 0L);
                allocByRole.put(r, 0L);
            });
            Map<String, Long> self = new HashMap<>();
            Map<String, Long> inclusive = new HashMap<>();
            Map<String, Long> sites = new HashMap<>();
            Map<String, Long> callers = new HashMap<>();
            Map<String, Long> classes = new HashMap<>();
            Map<String, Long> watchCpu = new LinkedHashMap<>();
            Map<String, Long> watchAlloc = new LinkedHashMap<>();
            try (RecordingFile recording = new RecordingFile(file)) {
                while (recording.hasMoreEvents()) {
                    RecordedEvent event = recording.readEvent();
                    String type = event.getEventType().getName();
                    if (type.equals("jdk.InitialSystemProperty")) {
                        if ("sessionrep.node-name".equals(event.getString("key"))) {
                            name = event.getString("value");
                        }
                        continue;
                    }
                    boolean sample = type.equals("jdk.ExecutionSample");
                    boolean allocation = type.equals("jdk.ObjectAllocationSample");
                    if (!sample && !allocation) {
                        continue;
                    }
                    if (!inside(event.getStartTime(), windows)) {
                        continue;
                    }
                    RecordedStackTrace stack = event.getStackTrace();
                    List<RecordedFrame> frames = stack == null ? List.of() : stack.getFrames();
                    String role = role(threadName(event, sample ? "sampledThread" : "eventThread"), frames);
                    if (sample) {
                        if (frames.isEmpty()) {
                            continue;
                        }
                        total++;
                        cpu++;
                        byRole.merge(role, 1L, Long::sum);
                        components.merge(component(frames), 1L, Long::sum);
                        String top = frame(frames.get(0));
                        methods.merge(top, 1L, Long::sum);
                        self.merge(top, 1L, Long::sum);
                        Set<String> seen = new HashSet<>();
                        for (RecordedFrame f : frames) {
                            String m = frame(f);
                            if (seen.add(m)) {
                                inclusive.merge(m, 1L, Long::sum);
                            }
                        }
                        watch(seen, 1, watchCpu);
                    } else {
                        long weight = event.getLong("weight");
                        alloc += weight;
                        allocByRole.merge(role, weight, Long::sum);
                        classes.merge(event.getClass("objectClass") == null ? "?" : event.getClass("objectClass").getName(),
                                weight, Long::sum);
                        if (!frames.isEmpty()) {
                            sites.merge(frameLine(frames.get(0)) + (frames.size() > 1 ? " <- " + frameLine(frames.get(1)) : ""),
                                    weight, Long::sum);
                            callers.merge(firstProductFrame(frames), weight, Long::sum);
                            Set<String> seen = new HashSet<>();
                            frames.forEach(f -> seen.add(frame(f)));
                            watch(seen, weight, watchAlloc);
                        }
                    }
                }
            }
            nodes.add(new Node(name == null ? "jvm-" + index : name, cpu, byRole, top(self, TOP), top(interesting(inclusive), 2 * TOP),
                    alloc, allocByRole, top(sites, TOP), top(callers, TOP), top(classes, 10), watchCpu, watchAlloc));
        }
        nodes.sort(java.util.Comparator.comparing(Node::name));
        long requests = windows.stream().mapToLong(Window::requests).sum();
        return new Summary(total, components, top(methods, 8), requests, !windows.isEmpty(), nodes);
    }

    /**
     * Re-summarizes an earlier run: {@code JfrSummary <raw/sN> [config ...]} prints the per-node profile of each
     * configuration (every folder under logs/ with a jfr/ folder, or those named), windows taken from its
     * segments' JMeter results files (jtl/CONFIG-NxS-tT-rR.jtl: first sample's start to last sample's end).
     */
    public static void main(String[] args) throws IOException {
        Path raw = Path.of(args[0]);
        List<String> configs = new ArrayList<>(List.of(args).subList(1, args.length));
        if (configs.isEmpty()) {
            try (Stream<Path> s = Files.list(raw.resolve("logs"))) {
                s.filter(p -> Files.isDirectory(p.resolve("jfr"))).map(p -> p.getFileName().toString()).sorted().forEach(configs::add);
            }
        }
        for (String config : configs) {
            List<Window> windows = new ArrayList<>();
            java.util.regex.Pattern name = java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(config) + "-\\d+x\\d+-t\\d+-r\\d+\\.jtl");
            try (Stream<Path> s = Files.list(raw.resolve("jtl"))) {
                for (Path jtl : s.filter(p -> name.matcher(p.getFileName().toString()).matches()).sorted().toList()) {
                    List<Samples.Sample> all = Samples.read(jtl).all;
                    if (!all.isEmpty()) {
                        long start = all.stream().mapToLong(Samples.Sample::start).min().orElseThrow();
                        long end = all.stream().mapToLong(x -> x.start() + x.elapsed()).max().orElseThrow();
                        windows.add(new Window(Instant.ofEpochMilli(start), Instant.ofEpochMilli(end), all.size()));
                    }
                }
            }
            Summary summary = of(raw.resolve("logs").resolve(config).resolve("jfr"), windows);
            if (summary != null) {
                System.out.println(details("`" + config + "`", summary));
            }
        }
    }

    private static void watch(Set<String> frames, long amount, Map<String, Long> into) {
        for (String key : WATCH) {
            for (String f : frames) {
                if (f.contains(key)) {
                    into.merge(key, amount, Long::sum);
                    break;
                }
            }
        }
    }

    private static boolean inside(Instant t, List<Window> windows) {
        if (windows.isEmpty()) {
            return true;
        }
        for (Window w : windows) {
            if (!t.isBefore(w.start()) && !t.isAfter(w.end())) {
                return true;
            }
        }
        return false;
    }

    private static String threadName(RecordedEvent event, String field) {
        try {
            RecordedThread t = event.getThread(field);
            return t == null ? "" : String.valueOf(t.getJavaName() != null ? t.getJavaName() : t.getOSName());
        } catch (IllegalArgumentException e) {
            return "";
        }
    }

    /** The role of a thread, by its name (Tomcat's executor or Jetty's pool, our sender, JGroups' and Tribes' threads). */
    static String role(String thread, List<RecordedFrame> frames) {
        String t = thread == null ? "" : thread;
        if (t.contains("-exec-") || t.startsWith("qtp")) { // Tomcat's executor, Jetty's QueuedThreadPool
            return "request threads";
        }
        if (t.startsWith("sessionrep-sender") || t.startsWith("sessionrep-send-")) {
            return "sessionrep sender";
        }
        if (t.startsWith("jgroups") || t.contains("Connection") || t.contains("TcpServer") || t.contains("TQ-")
                || t.contains("Receiver") || t.contains("Tribes") || t.contains("NioReceiver") || t.contains("Timer")
                || t.contains("TransferQueue") || t.contains("bundler") || t.contains("Bundler")) {
            return "JGroups / Tribes receive+send";
        }
        if (t.isEmpty() || t.startsWith("JFR") || t.contains("GC") || t.contains("Compiler") || t.startsWith("VM ")) {
            return "GC / JIT / JFR (VM)";
        }
        for (RecordedFrame f : frames) {
            String type = f.getMethod().getType().getName();
            if (type.startsWith("org.jgroups.") || type.startsWith("org.apache.catalina.tribes.")) {
                return "JGroups / Tribes receive+send";
            }
        }
        return "other";
    }

    /** Frames (shortened names) worth listing by total: product, JGroups, Kryo, Tomcat's session and cluster code. */
    private static final List<String> INTERESTING = List.of("core.", "tomcat.", "transport.", "jetty.", "shaded.", "esoteric.",
            "org.jgroups.", "catalina.ha.", "catalina.tribes.", "catalina.session.", "catalina.valves.",
            "catalina.connector.Request.", "java.io.Object");

    private static Map<String, Long> interesting(Map<String, Long> inclusive) {
        Map<String, Long> out = new HashMap<>();
        inclusive.forEach((m, n) -> {
            for (String prefix : INTERESTING) {
                if (m.startsWith(prefix)) {
                    out.put(m, n);
                    return;
                }
            }
        });
        return out;
    }

    private static String frame(RecordedFrame f) {
        return shortType(f.getMethod().getType().getName()) + "." + f.getMethod().getName();
    }

    private static String frameLine(RecordedFrame f) {
        int line = f.getLineNumber();
        return frame(f) + (line > 0 ? ":" + line : "");
    }

    /** The first frame from the top that is not the JDK's: who asked for the bytes. */
    private static String firstProductFrame(List<RecordedFrame> frames) {
        for (RecordedFrame f : frames) {
            String type = f.getMethod().getType().getName();
            if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun.")) {
                return frameLine(f);
            }
        }
        return frameLine(frames.get(0));
    }

    /** Package prefixes shortened (io.sessionrep.core.wire.WireCodec stays readable as core.wire.WireCodec). */
    static String shortType(String type) {
        return type.replace("io.sessionrep.", "").replace("com.esotericsoftware.", "esoteric.")
                .replace("org.apache.catalina.", "catalina.").replace("org.apache.", "apache.");
    }

    private static Map<String, Long> top(Map<String, Long> counts, int n) {
        Map<String, Long> top = new LinkedHashMap<>();
        counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(n)
                .forEach(e -> top.put(e.getKey(), e.getValue()));
        return top;
    }

    private static String component(List<RecordedFrame> frames) {
        for (RecordedFrame frame : frames) {
            String type = frame.getMethod().getType().getName();
            for (Map.Entry<String, List<String>> c : COMPONENTS.entrySet()) {
                for (String prefix : c.getValue()) {
                    if (type.startsWith(prefix)) {
                        return c.getKey();
                    }
                }
            }
        }
        return "JDK / other";
    }

    /** The per-node profile of one configuration, markdown (the report's detailed JFR section). */
    static String details(String label, Summary s) {
        StringBuilder md = new StringBuilder();
        md.append("#### Profile: ").append(label).append("\n\n");
        md.append(String.format(Locale.ROOT, "%s, %,d CPU samples, %s allocated (JFR estimate)%s.%n%n",
                s.windowed() ? "Measured segments only" : "Whole recording (warm-up and start-up included)", s.samples(),
                mib(s.allocBytes()), s.requests() > 0 ? String.format(Locale.ROOT, ", %,d requests served: %s per request"
                        + " (both nodes), %.2f CPU samples per 1,000 requests", s.requests(), kib((double) s.allocBytes() / s.requests()),
                        1000.0 * s.samples() / s.requests()) : ""));
        for (Node n : s.nodes()) {
            md.append(String.format(Locale.ROOT, "**%s**: %,d CPU samples, %s allocated%s.%n%n", n.name(), n.cpuSamples(),
                    mib(n.allocBytes()), s.requests() > 0 ? String.format(Locale.ROOT, " (%s per request of the configuration)",
                            kib((double) n.allocBytes() / s.requests())) : ""));
            md.append("| thread role | CPU samples | allocated |\n| --- | ---: | ---: |\n");
            for (String r : ROLES) {
                md.append(String.format(Locale.ROOT, "| %s | %s | %s |%n", r, pct(n.byRole().get(r), n.cpuSamples()),
                        pct(n.allocByRole().get(r), n.allocBytes())));
            }
            md.append('\n');
            table(md, "top frames, self", n.topSelf(), n.cpuSamples(), false);
            table(md, "top frames, total (product, Kryo, JGroups, Tomcat session/cluster code)", n.topTotal(), n.cpuSamples(), false);
            table(md, "top allocation sites (frame <- caller), bytes", n.topAllocSites(), n.allocBytes(), true);
            table(md, "top allocating non-JDK frames, bytes", n.topAllocCallers(), n.allocBytes(), true);
            table(md, "top allocated classes, bytes", n.topAllocClasses(), n.allocBytes(), true);
            md.append("| frames named (inclusive) | CPU share | samples | allocated share | MiB |\n| --- | ---: | ---: | ---: | ---: |\n");
            for (String key : WATCH) {
                long c = n.watchCpu().getOrDefault(key, 0L);
                long a = n.watchAlloc().getOrDefault(key, 0L);
                if (c > 0 || a > 0) {
                    md.append(String.format(Locale.ROOT, "| `%s` | %s | %d | %s | %.1f |%n", key, pct(c, n.cpuSamples()), c,
                            pct(a, n.allocBytes()), a / 1048576.0));
                }
            }
            md.append('\n');
        }
        return md.toString();
    }

    private static void table(StringBuilder md, String title, Map<String, Long> rows, long total, boolean bytes) {
        md.append("| ").append(title).append(" | share |").append(bytes ? " MiB |" : " samples |").append("\n| --- | ---: | ---: |\n");
        rows.forEach((k, v) -> md.append("| `").append(k).append("` | ").append(pct(v, total)).append(" | ")
                .append(bytes ? String.format(Locale.ROOT, "%.1f", v / 1048576.0) : Long.toString(v)).append(" |\n"));
        md.append('\n');
    }

    private static String pct(Long n, long total) {
        return total == 0 || n == null ? "-" : String.format(Locale.ROOT, "%.1f %%", 100.0 * n / total);
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%,.1f MiB", bytes / 1048576.0);
    }

    private static String kib(double bytes) {
        return String.format(Locale.ROOT, "%,.1f KiB", bytes / 1024.0);
    }
}
