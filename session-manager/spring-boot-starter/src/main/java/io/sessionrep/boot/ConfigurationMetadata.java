package io.sessionrep.boot;

import io.sessionrep.core.config.ConfigOption;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Boot's configuration metadata of the {@code sessionrep.*} properties ({@code META-INF/spring-configuration-metadata.json}),
 * derived from the option table ({@link ConfigOption}): name, type, description with the allowed values, the
 * default, and the choices as value hints, so that IDEs complete and document the properties. The build runs
 * {@link #main} after compiling, writing the file into the jar's classes; nothing is written by hand.
 */
public final class ConfigurationMetadata {

    private ConfigurationMetadata() {
    }

    /** Writes the metadata to {@code args[0]} (a file path). */
    public static void main(String[] args) throws IOException {
        Path file = Path.of(args[0]);
        Files.createDirectories(file.getParent());
        Files.writeString(file, json(), StandardCharsets.UTF_8);
    }

    /** The metadata document. */
    public static String json() {
        List<String> properties = new ArrayList<>();
        List<String> hints = new ArrayList<>();
        for (ConfigOption option : ConfigOption.values()) {
            properties.add(property(option));
            List<String> choices = choices(option);
            if (!choices.isEmpty()) {
                hints.add("    {\n      \"name\": " + quote(PropertyOptions.propertyName(option)) + ",\n      \"values\": [\n"
                        + String.join(",\n", choices.stream().map(c -> "        { \"value\": " + quote(c) + " }").toList())
                        + "\n      ]\n    }");
            }
        }
        return "{\n  \"groups\": [\n    {\n      \"name\": \"" + PropertyOptions.PREFIX + "\",\n"
                + "      \"description\": \"Replicated HTTP sessions (sessionrep): the options of docs/install-spring-boot.md.\"\n"
                + "    }\n  ],\n  \"properties\": [\n" + String.join(",\n", properties) + "\n  ],\n  \"hints\": [\n"
                + String.join(",\n", hints) + "\n  ]\n}\n";
    }

    private static String property(ConfigOption option) {
        StringBuilder json = new StringBuilder("    {\n");
        json.append("      \"name\": ").append(quote(PropertyOptions.propertyName(option))).append(",\n");
        json.append("      \"type\": ").append(quote(type(option))).append(",\n");
        json.append("      \"description\": ").append(quote(description(option)));
        String defaultValue = defaultValue(option);
        if (defaultValue != null) {
            json.append(",\n      \"defaultValue\": ").append(defaultValue);
        }
        return json.append("\n    }").toString();
    }

    /** Integers and booleans by their Java type (IDEs check them); every other value is text the core parses. */
    static String type(ConfigOption option) {
        return switch (option.metavar()) {
            case "N" -> "java.lang.Integer";
            case "true|false" -> "java.lang.Boolean";
            default -> "java.lang.String";
        };
    }

    private static String description(ConfigOption option) {
        return option.doc() + ". Values: " + option.allowedValues() + ". Default: " + option.defaultDoc() + "."
                + (option.secret() ? " A secret: never logged." : "");
    }

    /** The default as a JSON value, when the table's documented default is a value (not "none" or "host name"). */
    private static String defaultValue(ConfigOption option) {
        String documented = option.defaultDoc();
        if (documented.contains(" ") || documented.equals("none") || documented.equals("empty")) {
            return null;
        }
        return switch (type(option)) {
            case "java.lang.Integer", "java.lang.Boolean" -> documented;
            default -> quote(documented);
        };
    }

    /** The choices of an option that takes one of a few words ({@code async|sync}); empty otherwise. */
    static List<String> choices(ConfigOption option) {
        String metavar = option.metavar();
        if (!metavar.contains("|") || metavar.equals("true|false")) {
            return List.of();
        }
        return Arrays.asList(metavar.split("\\|"));
    }

    private static String quote(String text) {
        StringBuilder json = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        return json.append('"').toString();
    }
}
