package io.sessionrep.core.filter;

import io.sessionrep.core.ReplicationNode;
import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ReplicationConfig;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The filter's configuration: the replication options under their canonical names, plus
 * the filter's own {@value #COOKIE_NAME} and {@value #SESSION_LISTENERS}.
 *
 * <p>Two sources, the second overriding the first: the filter's {@code init-param}s in {@code web.xml}
 * (the same on every node: the WAR is the same), then the system properties {@code -Dsessionrep.<name>}
 * (what differs per node: {@code node-name}, {@code bind-port}, {@code peers}, ...). An unknown name in
 * either is an error naming the closest known option; so is a bad value.
 */
record FilterSettings(ReplicationConfig config, String cookieName, List<String> sessionListeners) {

    /** The name of the filter's session cookie. Default {@value #DEFAULT_COOKIE_NAME}. */
    static final String COOKIE_NAME = "cookie-name";
    /** Class names of HttpSessionListener / HttpSessionAttributeListener / HttpSessionIdListener to notify. */
    static final String SESSION_LISTENERS = "session-listeners";
    static final String DEFAULT_COOKIE_NAME = "SRSESSIONID";
    static final String SYSTEM_PROPERTY_PREFIX = "sessionrep.";

    /** RFC 6265 token characters. */
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    static FilterSettings from(Map<String, String> initParameters, Properties systemProperties) {
        Map<String, String> options = new LinkedHashMap<>(initParameters);
        for (String name : systemProperties.stringPropertyNames()) {
            if (name.startsWith(SYSTEM_PROPERTY_PREFIX)) {
                options.put(name.substring(SYSTEM_PROPERTY_PREFIX.length()), systemProperties.getProperty(name));
            }
        }
        String cookieName = ReplicationNode.blankToNull(options.remove(COOKIE_NAME));
        if (cookieName == null) {
            cookieName = DEFAULT_COOKIE_NAME;
        } else if (!TOKEN.matcher(cookieName).matches() || cookieName.startsWith("$")) {
            throw new ConfigException(COOKIE_NAME, "'" + cookieName + "' is not allowed; expected a cookie name"
                    + " (letters, digits and !#$%&'*+.^_`|~- only, not starting with $)");
        }
        String listeners = ReplicationNode.blankToNull(options.remove(SESSION_LISTENERS));
        List<String> sessionListeners = listeners == null ? List.of()
                : Arrays.stream(listeners.split("[,\\s]+")).filter(s -> !s.isEmpty()).toList();
        return new FilterSettings(ReplicationConfig.fromMap(options), cookieName, sessionListeners);
    }
}
