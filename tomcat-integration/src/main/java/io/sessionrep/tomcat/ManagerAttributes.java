package io.sessionrep.tomcat;

import io.sessionrep.core.ReplicationNode;
import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ConfigOption;
import io.sessionrep.core.config.ReplicationConfig;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code <Manager>} attributes (the replication options), as Tomcat sets them: camelCase JavaBean properties
 * mapped 1:1 onto the canonical option names ({@code writeQuota} is {@code write-quota}), kept as text
 * until start, when {@link ReplicationConfig#fromMap} validates them all at once. Attributes that no
 * setter took are kept too, so that start fails naming them instead of Tomcat only logging a warning.
 */
final class ManagerAttributes {
    private final Map<String, String> options = new LinkedHashMap<>();
    private final Map<String, String> unknown = new LinkedHashMap<>();

    /** {@code write-quota} becomes {@code writeQuota}. */
    static String attributeName(String option) {
        return ConfigOption.forKey(option).map(ConfigOption::attributeName).orElseThrow();
    }

    void set(String option, String value) {
        options.put(option, value);
    }

    String get(String option) {
        return options.get(option);
    }

    void unknown(String attribute, String value) {
        unknown.put(attribute, value);
    }

    /**
     * The validated configuration of these attributes, with {@code node-name} defaulting to the Engine's
     * {@code jvmRoute} when that is set.
     *
     * @throws IllegalArgumentException naming the attribute (and its option) that is wrong
     */
    ReplicationConfig toConfig(String jvmRoute) {
        if (!unknown.isEmpty()) {
            Map.Entry<String, String> first = unknown.entrySet().iterator().next();
            throw new IllegalArgumentException("Manager attribute " + first.getKey() + "=\"" + first.getValue()
                    + "\" is unknown or has a value of the wrong type; the replication attributes are "
                    + String.join(", ", Arrays.stream(ConfigOption.values())
                    .map(ConfigOption::attributeName).toList()));
        }
        Map<String, String> effective = new LinkedHashMap<>(options);
        String nodeName = ReplicationNode.nodeName(options.get("node-name"), jvmRoute, (configured, route) ->
                new IllegalArgumentException("Manager attribute nodeName=\"" + configured + "\" differs from the"
                        + " Engine's jvmRoute=\"" + route + "\": both name the route suffix of session ids;"
                        + " set only one of them, or both to the same value"));
        boolean fromJvmRoute = nodeName != null && ReplicationNode.blankToNull(options.get("node-name")) == null;
        if (fromJvmRoute) {
            effective.put("node-name", nodeName);
        }
        try {
            return ReplicationConfig.fromMap(effective);
        } catch (ConfigException e) {
            String option = e.option();
            String detail = e.getMessage().startsWith(option + ": ")
                    ? e.getMessage().substring(option.length() + 2) : e.getMessage();
            if (fromJvmRoute && "node-name".equals(option)) {
                throw new IllegalArgumentException("Engine jvmRoute=\"" + jvmRoute + "\" cannot be the node name"
                        + " (option node-name): " + detail, e);
            }
            String attribute = attributeName(option);
            String value = options.get(option);
            throw new IllegalArgumentException("Manager attribute " + attribute
                    + (value == null ? "" : "=\"" + (ConfigOption.forKey(option).map(ConfigOption::secret).orElse(false) ? "****" : value) + "\"")
                    + " (option " + option + "): " + detail, e);
        }
    }
}
