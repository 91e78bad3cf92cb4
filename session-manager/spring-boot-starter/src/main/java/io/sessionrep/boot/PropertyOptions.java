package io.sessionrep.boot;

import io.sessionrep.core.config.ConfigOption;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The replication options as Spring properties: {@code sessionrep.<option>} for each row of the option table
 * ({@link ConfigOption}), e.g. {@code sessionrep.write-quota=2}. Read through Boot's binder, so every property
 * source and relaxed form works ({@code SESSIONREP_WRITEQUOTA} in the environment, {@code --sessionrep.write-quota}
 * on the command line, YAML, where a list option may also be a YAML list). The text values go to the core
 * unchanged: it parses and checks them as in every other integration. A {@code sessionrep.*} property that names
 * no option (a typo) is passed on too, so that the core refuses it and suggests the closest name; the operating
 * system's environment is not searched for such names (it may hold other {@code SESSIONREP_*} variables).
 */
public final class PropertyOptions {

    /** The prefix of every replication property. */
    public static final String PREFIX = "sessionrep";

    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of(PREFIX);
    /** The option names as Boot compares property names: without dashes, lower case ({@code writequota}). */
    private static final Set<String> UNIFORM_KEYS = java.util.Arrays.stream(ConfigOption.values())
            .map(o -> ConfigurationPropertyName.of(propertyName(o)).getElement(1, ConfigurationPropertyName.Form.UNIFORM))
            .collect(Collectors.toUnmodifiableSet());

    private PropertyOptions() {
    }

    /** The property name of {@code option}: {@code sessionrep.write-quota}. */
    public static String propertyName(ConfigOption option) {
        return PREFIX + "." + option.key();
    }

    /**
     * The options set in {@code environment}, by canonical name, as text (options not set are absent), and any
     * other {@code sessionrep.*} property by its name below the prefix.
     */
    public static Map<String, String> read(Environment environment) {
        Binder binder = Binder.get(environment);
        Map<String, String> options = new LinkedHashMap<>();
        for (ConfigOption option : ConfigOption.values()) {
            String name = propertyName(option);
            String value = binder.bind(name, String.class).orElseGet(() -> binder.bind(name,
                    Bindable.listOf(String.class)).map(list -> String.join(",", list)).orElse(null));
            if (value != null) {
                options.put(option.key(), value);
            }
        }
        for (String unknown : unknownNames(environment)) {
            options.put(unknown, binder.bind(PREFIX + "." + unknown, String.class).orElse(""));
        }
        return options;
    }

    /** The names below {@code sessionrep.} that no option has (outside the operating system's environment). */
    static Set<String> unknownNames(Environment environment) {
        Set<String> unknown = new TreeSet<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource
                    || !(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            iterable.stream().filter(ROOT::isAncestorOf).forEach(name -> {
                if (!UNIFORM_KEYS.contains(name.getElement(1, ConfigurationPropertyName.Form.UNIFORM))) {
                    unknown.add(name.subName(1).toString());
                }
            });
        }
        return unknown;
    }
}
