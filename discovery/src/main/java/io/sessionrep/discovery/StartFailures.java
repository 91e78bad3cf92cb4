package io.sessionrep.discovery;

import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ReplicationConfig;

import java.net.BindException;

/**
 * Turns a failure to start a stack built by {@link JGroupsStacks} into one line an operator can act on:
 * it names the option to change ({@code bind-port}, ...) and the value that did not work.
 */
public final class StartFailures {

    private StartFailures() {
    }

    /** Explains why the channel for {@code config} could not join its cluster. */
    public static String describe(ReplicationConfig config, Throwable failure) {
        ConfigException configProblem = find(failure, ConfigException.class);
        if (configProblem != null) {
            return configProblem.getMessage();
        }
        String where = config.bindAddress();
        if (find(failure, BindException.class) != null) {
            if (config.bindPort() == 0) {
                return "bind-port: auto (0) found no free port from " + JGroupsStacks.AUTO_PORT_START + " to "
                        + (JGroupsStacks.AUTO_PORT_START + JGroupsStacks.AUTO_PORT_COUNT - 1) + " on " + where
                        + "; set bind-port to a free port (" + rootMessage(failure) + ")";
            }
            return "bind-port: " + config.bindPort() + " on " + where + " is already in use or not permitted; "
                    + "choose a free port, or 0 for the first free port from " + JGroupsStacks.AUTO_PORT_START
                    + " (" + rootMessage(failure) + ")";
        }
        String root = rootMessage(failure);
        if (root.contains("failed to find an available port")) {
            return "bind-port: the failure-detection ports (bind-port + " + UpperProtocols.FD_SOCK_PORT_OFFSET
                    + " and the next few) on " + where + " are all in use; choose another bind-port (" + root + ")";
        }
        String mode = config.discovery() == null ? "(none)" : config.discovery().optionValue();
        return "cannot join cluster-name '" + config.clusterName() + "' with discovery " + mode
                + " on bind-address " + where + ": " + root;
    }

    private static <T extends Throwable> T find(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
