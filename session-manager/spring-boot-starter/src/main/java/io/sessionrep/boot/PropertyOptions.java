package io.sessionrep.boot;

import io.sessionrep.core.config.ConfigOption;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The replication options as Spring properties: {@code sessionrep.<option>} for each row of the option table
 * ({@link ConfigOption}), e.g. {@code sessionrep.write-quota=2}. Read through Boot's binder, so every property
 * source and relaxed form works ({@code SESSIONREP_WRITEQUOTA} in the environment, {@code --sessionrep.write-quota}
 * on the command line, YAML). The text values go to the core unchanged: it parses and checks them as in every
 * other integration.
 */
public final class PropertyOptions {

    /** The prefix of every replication property. */
    public static final String PREFIX = "sessionrep";

    private PropertyOptions() {
    }

    /** The property name of {@code option}: {@code sessionrep.write-quota}. */
    public static String propertyName(ConfigOption option) {
        return PREFIX + "." + option.key();
    }

    /** The options set in {@code environment}, by canonical name, as text; options not set are absent. */
    public static Map<String, String> read(Environment environment) {
        Binder binder = Binder.get(environment);
        Map<String, String> options = new LinkedHashMap<>();
        for (ConfigOption option : ConfigOption.values()) {
            binder.bind(propertyName(option), String.class).ifBound(value -> options.put(option.key(), value));
        }
        return options;
    }
}
