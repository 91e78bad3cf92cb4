package io.sessionrep.core.transport;

import java.util.Objects;

/**
 * A node of the replication cluster as the core sees it.
 *
 * @param name      the node's unique, stable name (also its session-id route suffix, e.g. {@code node-a});
 *                  backup placement hashes it, so a restarted node with the same name gets the same share
 * @param machineId what "same machine" means for {@code allow-colocation}
 */
public record Member(String name, String machineId) {
    public Member {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(machineId, "machineId");
    }

    @Override
    public String toString() {
        return name + "@" + machineId;
    }
}
