package io.sessionrep.perf;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Where the nodes' CPU time goes ({@code --jfr}): the Java execution samples of every node of one
 * configuration (JFR's default settings, one sample per running thread every 20 ms), each attributed to
 * the first frame, from the top of the stack, that belongs to a known component (so a JDK array copy
 * called by Kryo counts as serialization).
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

    record Summary(long samples, Map<String, Long> byComponent, Map<String, Long> topMethods) {
    }

    private JfrSummary() {
    }

    /** Every .jfr file under {@code dir}; null if there is none. */
    static Summary of(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(p -> p.toString().endsWith(".jfr")).toList();
        }
        if (files.isEmpty()) {
            return null;
        }
        Map<String, Long> components = new LinkedHashMap<>();
        COMPONENTS.keySet().forEach(k -> components.put(k, 0L));
        Map<String, Long> methods = new java.util.HashMap<>();
        long total = 0;
        for (Path file : files) {
            try (RecordingFile recording = new RecordingFile(file)) {
                while (recording.hasMoreEvents()) {
                    RecordedEvent event = recording.readEvent();
                    if (!event.getEventType().getName().equals("jdk.ExecutionSample")) {
                        continue;
                    }
                    RecordedStackTrace stack = event.getStackTrace();
                    if (stack == null || stack.getFrames().isEmpty()) {
                        continue;
                    }
                    total++;
                    components.merge(component(stack.getFrames()), 1L, Long::sum);
                    RecordedFrame top = stack.getFrames().get(0);
                    methods.merge(top.getMethod().getType().getName() + "." + top.getMethod().getName(), 1L, Long::sum);
                }
            }
        }
        Map<String, Long> top = new LinkedHashMap<>();
        methods.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(8)
                .forEach(e -> top.put(e.getKey(), e.getValue()));
        return new Summary(total, components, top);
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
}
