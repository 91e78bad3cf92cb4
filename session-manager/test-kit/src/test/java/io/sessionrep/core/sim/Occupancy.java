package io.sessionrep.core.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;

/**
 * Invariant 1 while requests run: the nodes whose requests are inside a session (between taking it and handing it
 * back). Two nodes that are both up and see each other must never be inside the same session at once; nodes
 * on different sides of a partition may (each side serves its own copy, by design).
 */
final class Occupancy {
    private final Map<String, List<SimNode>> inside = new HashMap<>();
    private final BiPredicate<SimNode, SimNode> connected;
    private String violation;

    Occupancy(BiPredicate<SimNode, SimNode> connected) {
        this.connected = connected;
    }

    synchronized void enter(SimNode node, String id) {
        List<SimNode> here = inside.computeIfAbsent(id, k -> new ArrayList<>());
        for (SimNode other : here) {
            if (other != node && !other.crashed() && !node.crashed() && connected.test(node, other)
                    && violation == null) {
                violation = "invariant 1 (one live holder): requests on " + other + " and " + node
                        + " are inside session " + id + " at the same time";
            }
        }
        here.add(node);
    }

    synchronized void exit(SimNode node, String id) {
        List<SimNode> here = inside.get(id);
        if (here != null) {
            here.remove(node);
        }
    }

    /** The first violation seen, or null. */
    synchronized String violation() {
        return violation;
    }
}
