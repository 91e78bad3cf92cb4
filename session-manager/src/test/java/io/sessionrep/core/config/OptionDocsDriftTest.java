package io.sessionrep.core.config;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The documentation's option tables say what the option table ({@link ConfigOption}) says: the README's
 * configuration reference row by row (name, allowed values, default; the meaning column is free text), the
 * Tomcat and Jetty guides' tables every option and nothing else. Fails on any drift; the message shows the
 * expected row.
 */
class OptionDocsDriftTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    @Test
    void readmeConfigurationTableIsTheOptionTable() throws IOException {
        List<List<String>> rows = table(ROOT.resolve("README.md"), "| option | values | default | meaning |");
        List<String> expected = new ArrayList<>();
        List<String> actual = new ArrayList<>();
        for (ConfigOption o : ConfigOption.values()) {
            expected.add("| `" + o.key() + "` | " + o.allowedValues() + " | " + o.defaultDoc() + " |");
        }
        for (List<String> row : rows) {
            // a | inside a cell is written \| (else markdown ends the cell there)
            actual.add("| " + row.get(0) + " | " + row.get(1).replace("`", "").replace("\\|", "|") + " | "
                    + row.get(2).replace("`", "").replace("\\|", "|") + " |");
        }
        assertEquals(String.join("\n", expected), String.join("\n", actual),
                "README.md's configuration table (backticks aside) drifted from ConfigOption");
    }

    @Test
    void tomcatGuideNamesEveryAttributeAndOption() throws IOException {
        List<List<String>> rows = table(ROOT.resolve("docs/install-tomcat.md"), "| attribute | option | default | meaning |");
        assertNames(rows, 0, ConfigOption::attributeName, "docs/install-tomcat.md attribute column");
        assertNames(rows, 1, ConfigOption::key, "docs/install-tomcat.md option column");
        for (List<String> row : rows) {
            List<String> attributes = codes(row.get(0));
            List<String> options = codes(row.get(1));
            assertEquals(options.stream().map(k -> ConfigOption.forKey(k).orElseThrow().attributeName()).toList(),
                    attributes, "attributes are the options in camelCase: " + row);
        }
    }

    @Test
    void jettyGuideNamesEveryModuleProperty() throws IOException {
        List<List<String>> rows = table(ROOT.resolve("docs/install-jetty.md"), "| property | values | default | meaning |");
        assertNames(rows, 0, o -> "sessionrep." + o.key(), "docs/install-jetty.md property column");
    }

    private static void assertNames(List<List<String>> rows, int column, Function<ConfigOption, String> name,
                                    String where) {
        Set<String> expected = new LinkedHashSet<>(Arrays.stream(ConfigOption.values()).map(name).toList());
        Set<String> actual = new LinkedHashSet<>();
        for (List<String> row : rows) {
            actual.addAll(codes(row.get(column)));
        }
        assertEquals(expected, actual, where + " drifted from ConfigOption");
    }

    private static List<String> codes(String cell) {
        List<String> codes = new ArrayList<>();
        Matcher m = CODE.matcher(cell);
        while (m.find()) {
            codes.add(m.group(1));
        }
        return codes;
    }

    /** The cells of the body rows of the markdown table under {@code header}. */
    private static List<List<String>> table(Path file, String header) throws IOException {
        List<String> lines = Files.readAllLines(file);
        int start = lines.indexOf(header);
        if (start < 0) {
            throw new AssertionError(file + " has no table " + header);
        }
        List<List<String>> rows = new ArrayList<>();
        for (int i = start + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            String line = lines.get(i);
            rows.add(Arrays.stream(line.substring(1, line.length() - 1).split(" \\| ")).map(String::strip).toList());
        }
        return rows;
    }
}
