package io.sessionrep.boot;

import io.sessionrep.core.Readiness;
import io.sessionrep.core.SessionAdmin;
import io.sessionrep.core.SessionReplicator;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * This application's replication node as the embedded container installed it: what the health indicator, the
 * readiness publisher and the actuator endpoint read. Before the container installs it (and in an application
 * without an embedded container) it is "not started".
 */
public final class LocalNode {

    /** What a container install exposes: its readiness and, while running, its replication engine. */
    public interface Installed {
        Readiness readiness();

        /** The running engine, or empty while the web application is not running. */
        Optional<SessionReplicator> replicator();

        /** The cluster-wide session admin of the running install, or empty while it is not running. */
        default Optional<SessionAdmin> admin() {
            return Optional.empty();
        }
    }

    private final ReplicationSettings settings;
    private volatile Installed installed;

    public LocalNode(ReplicationSettings settings) {
        this.settings = settings;
    }

    /** Called by the container install (once per embedded web server). */
    void attach(Installed node) {
        this.installed = node;
    }

    /**
     * Whether an embedded container installed the node (not in an application deployed as a WAR to a standalone
     * container, whose own install replicates: docs/install-tomcat.md, install-jetty.md).
     */
    public boolean isInstalled() {
        return installed != null;
    }

    /** The configuration this node runs with. */
    public ReplicationSettings settings() {
        return settings;
    }

    /** Whether the node is settled in its cluster, and if not why; "not started" before the container starts it. */
    public Readiness readiness() {
        Installed node = installed;
        return node == null ? Readiness.notReady("not started") : node.readiness();
    }

    /** The cluster-wide session admin of the running node, or empty. */
    public Optional<SessionAdmin> admin() {
        Installed node = installed;
        return node == null ? Optional.empty() : node.admin();
    }

    /** The running replication engine, or empty. */
    public Optional<SessionReplicator> replicator() {
        Installed node = installed;
        return node == null ? Optional.empty() : node.replicator();
    }

    static Installed of(Supplier<Readiness> readiness, Supplier<SessionReplicator> running,
                        Supplier<SessionAdmin> admin) {
        return new Installed() {
            @Override
            public Optional<SessionAdmin> admin() {
                try {
                    return replicator().isEmpty() ? Optional.empty() : Optional.ofNullable(admin.get());
                } catch (IllegalStateException notRunning) {
                    return Optional.empty();
                }
            }

            @Override
            public Readiness readiness() {
                return readiness.get();
            }

            @Override
            public Optional<SessionReplicator> replicator() {
                try {
                    SessionReplicator replicator = running.get();
                    return replicator == null || replicator.isClosed() ? Optional.empty() : Optional.of(replicator);
                } catch (IllegalStateException notRunning) {
                    return Optional.empty();
                }
            }
        };
    }
}
