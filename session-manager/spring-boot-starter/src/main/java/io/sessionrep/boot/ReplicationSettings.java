package io.sessionrep.boot;

import io.sessionrep.core.config.ReplicationConfig;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The validated configuration of this application's node and the option text it was built from, with
 * {@code node-name} settled (the option table's default, host name plus random digits, is drawn once here, so
 * the container install, the logs and the actuator endpoint all name the same node).
 *
 * @param config  the validated configuration
 * @param options canonical option names to text, node-name included (what a text-configured install is given)
 */
public record ReplicationSettings(ReplicationConfig config, Map<String, String> options) {

    public ReplicationSettings {
        options = Map.copyOf(options);
    }

    /** The configuration as {@link ReplicationConfig#toString()} shows it: secrets masked, the option text left out. */
    @Override
    public String toString() {
        return config.toString();
    }

    /**
     * Validates {@code options}.
     *
     * @throws io.sessionrep.core.config.ConfigException naming the option, the value and what is allowed
     */
    public static ReplicationSettings of(Map<String, String> options) {
        ReplicationConfig config = ReplicationConfig.fromMap(options);
        Map<String, String> settled = new LinkedHashMap<>(options);
        settled.put("node-name", config.nodeName());
        return new ReplicationSettings(config, settled);
    }
}
