package io.sessionrep.core.config;

/**
 * A configuration value is wrong. The message always names the option, the rejected value and what is
 * allowed, e.g. {@code write-quota: -1 is not allowed; expected an integer from 0 to 64}.
 */
public class ConfigException extends IllegalArgumentException {
    private final String option;

    public ConfigException(String option, String message) {
        super(option + ": " + message);
        this.option = option;
    }

    /** The canonical option name ({@code write-quota}). */
    public String option() {
        return option;
    }
}
