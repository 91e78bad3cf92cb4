package io.sessionrep.testservlet;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The command line that starts one {@link NodeLauncher} JVM: the same {@code java} as this JVM, and the
 * classpath of system property {@value #CLASSPATH_PROPERTY} (the integration tests point it at the shaded
 * node jar, because a test JVM's own class path may be a throw-away manifest jar) or else this JVM's
 * {@code java.class.path} (the shaded jar itself when the demo runs from it, or an IDE's class path).
 */
public final class NodeCommand {

    public static final String CLASSPATH_PROPERTY = "sessionrep.node.classpath";
    /**
     * Extra JVM arguments for every node, separated by spaces, for example
     * {@code -Djava.util.logging.config.file=debug-logging.properties} to see the core's DEBUG lines.
     */
    public static final String EXTRA_JVM_ARGS_PROPERTY = "sessionrep.node.jvm-args";

    /** Small, quick-starting JVMs: several share two cores in tests. */
    public static final List<String> DEFAULT_JVM_ARGS = List.of(
            "-Xms32m", "-Xmx256m", "-XX:+UseSerialGC", "-Djava.net.preferIPv4Stack=true");

    private NodeCommand() {
    }

    public static List<String> build(List<String> jvmArgs, Map<String, String> flags) {
        return build(jvmArgs, flags, classpath());
    }

    /** The command with {@code classpath} for the node's classes (e.g. another build's node jar). */
    public static List<String> build(List<String> jvmArgs, Map<String, String> flags, String classpath) {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(jvmArgs);
        String extra = System.getProperty(EXTRA_JVM_ARGS_PROPERTY, "").strip();
        if (!extra.isEmpty()) {
            command.addAll(List.of(extra.split("\\s+")));
        }
        command.add("-cp");
        command.add(classpath);
        command.add(NodeLauncher.class.getName());
        flags.forEach((name, value) -> command.add("--" + name + "=" + value));
        return command;
    }

    static String javaExecutable() {
        return ProcessHandle.current().info().command()
                .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    static String classpath() {
        String configured = System.getProperty(CLASSPATH_PROPERTY);
        return configured != null && !configured.isBlank() ? configured : System.getProperty("java.class.path");
    }
}
