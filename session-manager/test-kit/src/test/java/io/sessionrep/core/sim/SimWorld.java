package io.sessionrep.core.sim;

import io.sessionrep.core.config.MetricsExport;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.config.ReplicationMode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The simulated cluster: its nodes (up or down), the network between them, the sides of a partition, and the
 * checks made once the cluster has settled after a step (invariants 1 and 4 on the nodes' state).
 */
final class SimWorld implements AutoCloseable {
    static final Duration SETTLE_LIMIT = Duration.ofSeconds(5);
    /** A cluster not settled after this long runs its periodic maintenance once (it would within 15 s). */
    static final Duration MAINTENANCE_AFTER = Duration.ofMillis(300);

    final ReplicationMode mode;
    final int writeQuota;
    private final java.util.function.UnaryOperator<ReplicationConfig.Builder> options;
    final List<String> names = new ArrayList<>();
    final SimNetwork network;
    final Occupancy occupancy;
    private final Map<String, SimNode> up = new TreeMap<>();
    /** Node name to side while partitioned; empty otherwise. */
    private Map<String, Integer> sides = Map.of();
    private int unsettled;
    private int maintenanceRuns;
    /** Why the last settle did not finish (for the trace). */
    String lastUnsettled;

    SimWorld(long seed, int nodes, ReplicationMode mode, int writeQuota) {
        this(seed, nodes, mode, writeQuota, java.util.function.UnaryOperator.identity());
    }

    /** {@code options}: sets further options on every node's configuration (scripted scenarios). */
    SimWorld(long seed, int nodes, ReplicationMode mode, int writeQuota,
             java.util.function.UnaryOperator<ReplicationConfig.Builder> options) {
        this.options = options;
        this.mode = mode;
        this.writeQuota = writeQuota;
        this.network = new SimNetwork(seed * 31 + 7);
        this.occupancy = new Occupancy((a, b) -> network.connected(a.name, b.name));
        for (int i = 1; i <= nodes; i++) {
            names.add("n" + i);
        }
        for (String name : names) {
            start(name);
        }
    }

    void start(String name) {
        ReplicationConfig config = options.apply(ReplicationConfig.builder().nodeName(name).machineId(name)
                .replicationMode(mode).writeQuota(writeQuota).metrics(MetricsExport.NONE)
                .ownershipTimeout(Duration.ofSeconds(2)).syncTimeout(Duration.ofSeconds(1))).build();
        up.put(name, new SimNode(name, config, network, occupancy));
    }

    void crash(String name) {
        SimNode node = up.remove(name);
        node.crash();
    }

    SimNode node(String name) {
        return up.get(name);
    }

    List<String> upNames() {
        return new ArrayList<>(up.keySet());
    }

    List<String> downNames() {
        return names.stream().filter(n -> !up.containsKey(n)).toList();
    }

    boolean partitioned() {
        return !sides.isEmpty();
    }

    /** The side {@code name} is on (0 when there is no partition). */
    int side(String name) {
        Integer side = sides.get(name);
        return side == null ? 0 : side;
    }

    int sideCount() {
        return sides.isEmpty() ? 1 : (int) sides.values().stream().distinct().count();
    }

    void partition(List<List<String>> groups) {
        Map<String, Integer> split = new TreeMap<>();
        for (int i = 0; i < groups.size(); i++) {
            for (String name : groups.get(i)) {
                split.put(name, i);
            }
        }
        sides = split;
        network.partition(groups);
    }

    void heal() {
        sides = Map.of();
        network.heal();
    }

    /**
     * What the nodes up in {@code group} hold of session {@code id}: its primary or a backup at the primary's
     * version, an older copy only, or nothing.
     */
    Expectations.Held groupHolds(String id, java.util.Collection<String> group) {
        long primaryVersion = up.values().stream().mapToLong(n -> n.engine.primaryVersion(id)).max().orElse(-1);
        Expectations.Held held = Expectations.Held.NONE;
        for (SimNode n : up.values()) {
            if (!group.contains(n.name) || !n.engine.hasLocalCopy(id)) {
                continue;
            }
            if (n.engine.isPrimary(id) || primaryVersion >= 0 && n.engine.backupVersion(id) == primaryVersion) {
                return Expectations.Held.CURRENT;
            }
            held = Expectations.Held.STALE;
        }
        return held;
    }

    /**
     * Waits until nothing moves: no message waits, the async queues were handed over, and every node is ready (its
     * sessions have their backups). After {@link #MAINTENANCE_AFTER} the nodes run their periodic maintenance once,
     * as their timers would a little later (counted: a step that needs it shows work left to the timer). False when
     * that did not happen within {@link #SETTLE_LIMIT}.
     */
    boolean settle() {
        long started = System.nanoTime();
        long deadline = started + SETTLE_LIMIT.toNanos();
        boolean maintained = false;
        while (System.nanoTime() < deadline) {
            if (!maintained && System.nanoTime() - started > MAINTENANCE_AFTER.toNanos()) {
                // what the nodes' maintenance timers do every 15 s (re-checking the write-quota among others)
                up.values().forEach(n -> n.engine.runMaintenance());
                maintained = true;
                maintenanceRuns++;
            }
            long before = network.delivered();
            if (network.idle() && up.values().stream().allMatch(n -> n.engine.flush(Duration.ofMillis(200)))
                    && network.idle()
                    && up.values().stream().allMatch(n -> n.engine.readiness().ready())
                    && network.idle() && network.delivered() == before) {
                return true;
            }
            Thread.onSpinWait();
            sleepMillis(1);
        }
        unsettled++;
        lastUnsettled = "network idle " + network.idle() + "; " + up.values().stream()
                .map(n -> n.name + ": " + n.engine.readiness().reasons()).toList();
        return false;
    }

    int maintenanceRuns() {
        return maintenanceRuns;
    }

    int unsettled() {
        return unsettled;
    }

    /**
     * Invariants on the nodes' state once settled: per side, at most one node is primary of a session and at most
     * one holds it live (1); no node holds a copy of a session invalidated for good (4).
     */
    String checkSettled(Expectations expected) {
        for (String id : expected.ids()) {
            for (int side = 0; side < sideCount(); side++) {
                List<String> primaries = new ArrayList<>();
                List<String> holders = new ArrayList<>();
                List<String> copies = new ArrayList<>();
                for (SimNode n : up.values()) {
                    if (side(n.name) != side) {
                        continue;
                    }
                    if (n.engine.isPrimary(id)) {
                        primaries.add(n.name);
                    }
                    if (n.holdsLive(id)) {
                        holders.add(n.name);
                    }
                    if (n.engine.hasLocalCopy(id) || n.holdsLive(id)) {
                        copies.add(n.name);
                    }
                }
                if (primaries.size() > 1) {
                    return "invariant 1 (one owner): session " + id + " has primaries " + primaries;
                }
                if (holders.size() > 1) {
                    return "invariant 1 (one live holder): session " + id + " is held live on " + holders;
                }
                if (expected.at(id, side).invalidated && !copies.isEmpty()) {
                    return "invariant 4 (invalidated never comes back): session " + id + " still held on " + copies;
                }
            }
        }
        return occupancy.violation();
    }

    /** Each session's copies on the nodes up: primary (P) or backup (B) and version, live copy (L). */
    String describe(java.util.Collection<String> ids) {
        StringBuilder out = new StringBuilder();
        for (String id : ids) {
            out.append(id).append(':');
            for (SimNode n : up.values()) {
                long p = n.engine.primaryVersion(id);
                long b = n.engine.backupVersion(id);
                if (p >= 0 || b >= 0 || n.holdsLive(id)) {
                    out.append(' ').append(n.name).append('[').append(p >= 0 ? "P" + p : "")
                            .append(b >= 0 ? "B" + b : "").append(n.holdsLive(id) ? "L" : "").append(']');
                }
            }
            out.append("; ");
        }
        return out.toString();
    }

    static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        for (String name : upNames()) {
            crash(name);
        }
        network.close();
    }
}
