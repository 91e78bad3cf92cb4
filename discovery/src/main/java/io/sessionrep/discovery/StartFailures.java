package io.sessionrep.discovery;

import io.sessionrep.core.config.ConfigException;
import io.sessionrep.core.config.ReplicationConfig;

import java.net.BindException;

/**
 * Turns a failure to start a stack built by {@link JGroupsStacks} into one line an operator can act on:
 * it names the option to change ({@code bind-port}, {@code jgroups-config}, ...) and the value that did
 * not work.
 */
public final class StartFailures {

    private StartFailures() {
    }

    /** Explains why the channel for {@code config} could not join its cluster. */
    public static String describe(ReplicationConfig config, Throwable failure) {
        ConfigException problem = configProblem(config, failure);
        if (problem != null) {
            return problem.getMessage();
        }
        return "cannot join cluster-name '" + config.clusterName() + "' with " + JGroupsStacks.describe(config)
                + " on bind-address " + config.bindAddress() + ": " + rootMessage(failure);
    }

    /**
     * The failure as a {@link ConfigException} when an option is to blame (a {@link ConfigException} in the
     * chain, a port in use, any failure of a {@code jgroups-config} stack), its cause the original failure;
     * null when no option is to blame.
     */
    public static ConfigException configProblem(ReplicationConfig config, Throwable failure) {
        ConfigException configProblem = find(failure, ConfigException.class);
        if (configProblem != null) {
            return configProblem;
        }
        String root = rootMessage(failure);
        if (config.jgroupsConfig() != null) {
            return withCause(new ConfigException("jgroups-config", "the stack of '" + config.jgroupsConfig()
                    + "' could not start (" + root + "); fix the file, e.g. a port it binds is in use"), failure);
        }
        String where = config.bindAddress();
        if (find(failure, BindException.class) != null) {
            if (config.bindPort() == 0) {
                return withCause(new ConfigException("bind-port", "auto (0) found no free port from "
                        + JGroupsStacks.AUTO_PORT_START + " to "
                        + (JGroupsStacks.AUTO_PORT_START + JGroupsStacks.AUTO_PORT_COUNT - 1) + " on " + where
                        + "; set bind-port to a free port (" + root + ")"), failure);
            }
            return withCause(new ConfigException("bind-port", config.bindPort() + " on " + where
                    + " is already in use or not permitted; choose a free port, or 0 for the first free port from "
                    + JGroupsStacks.AUTO_PORT_START + " (" + root + ")"), failure);
        }
        if (root.contains("failed to find an available port")) {
            return withCause(new ConfigException("bind-port", "the failure-detection ports (bind-port + "
                    + UpperProtocols.FD_SOCK_PORT_OFFSET + " and the next few) on " + where
                    + " are all in use; choose another bind-port (" + root + ")"), failure);
        }
        return null;
    }

    private static ConfigException withCause(ConfigException e, Throwable cause) {
        e.initCause(cause);
        return e;
    }

    private static <T extends Throwable> T find(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    /** {@code SimpleName: message} of the innermost cause. */
    static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
