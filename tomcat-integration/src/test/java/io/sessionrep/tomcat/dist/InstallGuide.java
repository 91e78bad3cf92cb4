package io.sessionrep.tomcat.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** What docs/install-tomcat.md tells a user to write, read from the document itself. */
final class InstallGuide {
    private final String text;

    InstallGuide(Path doc) throws IOException {
        this.text = Files.readString(doc);
    }

    /**
     * The {@code <Context>} block that section 3 gives for {@code node}, with its replication ports 7800
     * and 7801 replaced by {@code portA} and {@code portB}.
     */
    String context(String node, int portA, int portB) {
        String marker = "the context of " + node + " -->";
        int at = text.indexOf(marker);
        assertTrue(at >= 0, "docs/install-tomcat.md has no block marked '" + marker + "'");
        int start = text.indexOf("```xml\n", at) + "```xml\n".length();
        int end = text.indexOf("```", start);
        return text.substring(start, end)
                .replace("7800", String.valueOf(portA))
                .replace("7801", String.valueOf(portB));
    }

    /**
     * The JVM options of section 5's JMX remote block ({@code CATALINA_OPTS="$CATALINA_OPTS -D..."}), with its port
     * 9010 replaced by {@code port}.
     */
    java.util.List<String> jmxRemoteOptions(int port) {
        String marker = "JMX remote -->";
        int at = text.indexOf(marker);
        assertTrue(at >= 0, "docs/install-tomcat.md has no block marked '" + marker + "'");
        int start = text.indexOf("```\n", at) + "```\n".length();
        String line = text.substring(start, text.indexOf("```", start)).strip();
        String prefix = "CATALINA_OPTS=\"$CATALINA_OPTS ";
        assertTrue(line.startsWith(prefix) && line.endsWith("\""), line);
        return java.util.List.of(line.substring(prefix.length(), line.length() - 1).replace("9010",
                String.valueOf(port)).split(" "));
    }

    /**
     * The {@code serializationAllowlist} attribute of section 1's {@code <Manager>} example, as written
     * there (for the example's application, whose classes are {@code com.example.shop.*}).
     */
    String serializationAllowlist() {
        int manager = text.indexOf("<Manager className=\"io.sessionrep.tomcat.ReplicatedSessionManager\"");
        assertTrue(manager >= 0, "docs/install-tomcat.md has no <Manager> example");
        Matcher m = Pattern.compile("serializationAllowlist=\"[^\"]*\"")
                .matcher(text.substring(manager, text.indexOf("/>", manager)));
        assertTrue(m.find(), "the <Manager> example of docs/install-tomcat.md sets no serializationAllowlist");
        return m.group();
    }
}
