package io.sessionrep.boot;

import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ConfigOption;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Start-up stopped by a bad replication option: Boot's "APPLICATION FAILED TO START" report names the property,
 * the value and what is allowed (the core's message), and the allowed values from the option table.
 */
final class ConfigFailureAnalyzer extends AbstractFailureAnalyzer<ConfigException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ConfigException cause) {
        String property = ConfigOption.forKey(cause.option()).map(PropertyOptions::propertyName)
                .orElse(PropertyOptions.PREFIX + "." + cause.option());
        String description = "Session replication is not configured correctly: " + property + " is not valid.\n\n"
                + "    " + cause.getMessage();
        String action = ConfigOption.forKey(cause.option())
                .map(o -> "Set " + property + " to an allowed value (" + o.allowedValues() + "; default "
                        + o.defaultDoc() + "): " + o.doc() + ".")
                .orElse("Correct " + property + " as the message says (the options are in docs/install-spring-boot.md).");
        return new FailureAnalysis(description, action, cause);
    }
}
