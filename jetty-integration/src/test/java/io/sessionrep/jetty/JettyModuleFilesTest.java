package io.sessionrep.jetty;

import io.sessionrep.core.config.ConfigOption;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Jetty module's files say what the option table ({@link ConfigOption}) says: {@code etc/sessionrep.xml}
 * passes every option and nothing else, the ini template of {@code modules/sessionrep.mod} documents every
 * option, nothing else, with the table's default (a drift test: it fails on a missing or extra option or a
 * wrong default; the install itself is tested in test-servlet).
 */
class JettyModuleFilesTest {
    private static final Path BASE = Path.of("src/main/jetty-base");
    private static final List<String> KEYS = Arrays.stream(ConfigOption.values()).map(ConfigOption::key).toList();

    @Test
    void xmlPassesEveryOptionAndNothingElse() throws Exception {
        String xml = Files.readString(BASE.resolve("etc/sessionrep.xml"));
        List<String> passed = all(Pattern.compile(
                "<Call name=\"setOption\"><Arg>([^<]+)</Arg><Arg><Property name=\"sessionrep\\.\\1\"/></Arg></Call>"), xml);
        assertEquals(KEYS, passed, "etc/sessionrep.xml passes each option once, in table order");
        assertEquals(KEYS.size(), all(Pattern.compile("name=\"setOption\""), xml).size(),
                "no other setOption call in etc/sessionrep.xml");
        for (String property : all(Pattern.compile("name=\"sessionrep\\.([^\"]+)\""), xml)) {
            assertTrue(KEYS.contains(property), "etc/sessionrep.xml reads unknown property sessionrep." + property);
        }
        assertTrue(xml.contains("<Call name=\"validate\"/>"), "bad values stop the server at start-up");
    }

    @Test
    void iniTemplateDocumentsEveryOptionWithItsDefault() throws Exception {
        String mod = Files.readString(BASE.resolve("modules/sessionrep.mod"));
        assertEquals(KEYS, all(Pattern.compile("(?m)^# sessionrep\\.([a-z-]+)="), mod),
                "the ini template has one commented property per option, in table order");
        List<String> documented = all(Pattern.compile("(?m)^## ([a-z-]+): "), mod);
        assertEquals(KEYS, documented, "the ini template has one ## line per option, in table order");
        for (ConfigOption o : ConfigOption.values()) {
            Matcher line = Pattern.compile("(?m)^## " + Pattern.quote(o.key()) + ": (.*)$").matcher(mod);
            assertTrue(line.find(), o.key());
            String doc = line.group(1);
            if (o == ConfigOption.NODE_NAME) {
                // the module's own default: Jetty's workerName (ReplicatedSessionDataStoreFactory)
                assertTrue(doc.contains("Default: Jetty's workerName"), doc);
            } else if (!o.defaultDoc().equals("none")) {
                assertTrue(Pattern.compile("Default:? " + Pattern.quote(o.defaultDoc()) + "(?![\\w.]\\w)")
                        .matcher(doc).find(), "## " + o.key() + " says \"Default " + o.defaultDoc() + "\": " + doc);
            } else {
                assertTrue(!doc.contains("Default"), "## " + o.key() + " has no default: " + doc);
            }
        }
    }

    private static List<String> all(Pattern pattern, String text) {
        List<String> found = new ArrayList<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            found.add(m.groupCount() > 0 ? m.group(1) : m.group());
        }
        return found;
    }
}
