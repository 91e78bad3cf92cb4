package io.sessionrep.core.sim;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a request may see of each session, as the product promises it (invariants 2 to 4). Per session and per
 * side of a partition (one side when there is none): the values a read may find, whether it may find nothing, and
 * whether the session was invalidated.
 *
 * <ul>
 *   <li>Normally exactly one value: the last completed write, wherever the request runs (invariant 3).</li>
 *   <li>A kill widens it only where the product allows a loss: in async mode the writes of the dead owner that
 *       were still queued (the simulation kills right after a write for that; writes done before the last settled
 *       step were flushed); in sync mode only a write whose acknowledgement did not come (sync-timeout counted, or
 *       no backup in the view). An acknowledged sync write is never given up (invariant 2). A write whose request
 *       was cut by its node's death may have been replicated or not: both values are allowed.</li>
 *   <li>A partition gives each side its own expectation (a side that held no copy may find nothing); the heal
 *       allows any side's value (the merge keeps one side's, and the losing side's changes since the split are
 *       lost by design), and an invalidation on either side wins.</li>
 *   <li>An invalidated session is never found again (invariant 4).</li>
 * </ul>
 * After a read, the value it saw is the only one allowed again.
 */
final class Expectations {
    /** One session as seen from one side. */
    static final class Expect {
        final Set<Integer> values = new TreeSet<>();
        boolean mayBeMissing;
        boolean invalidated;
        boolean mayBeInvalidated;

        Expect copy() {
            Expect e = new Expect();
            e.values.addAll(values);
            e.mayBeMissing = mayBeMissing;
            e.invalidated = invalidated;
            e.mayBeInvalidated = mayBeInvalidated;
            return e;
        }

        @Override
        public String toString() {
            return (invalidated ? "invalidated" : "values " + values + (mayBeMissing ? " or missing" : ""))
                    + (mayBeInvalidated ? " (maybe invalidated)" : "");
        }
    }

    /** What a side of a partition holds of a session when the network splits. */
    enum Held { NONE, STALE, CURRENT }

    /** Session id to side to expectation. */
    private final Map<String, Map<Integer, Expect>> sessions = new HashMap<>();
    /** Session id to every value it may ever have had. */
    private final Map<String, Set<Integer>> history = new HashMap<>();
    private int sides = 1;

    Set<String> ids() {
        return sessions.keySet();
    }

    Expect at(String id, int side) {
        return sessions.get(id).get(side);
    }

    void created(String id, int side, int value) {
        Map<Integer, Expect> bySide = new HashMap<>();
        for (int s = 0; s < sides; s++) {
            Expect e = new Expect();
            if (s == side) {
                e.values.add(value);
            } else {
                e.mayBeMissing = true;
            }
            bySide.put(s, e);
        }
        sessions.put(id, bySide);
        history.computeIfAbsent(id, k -> new TreeSet<>()).add(value);
    }

    /**
     * Checks what a request on {@code side} saw; null when allowed, else why not. Then narrows the expectation
     * to it.
     */
    String seen(String id, int side, SimNode.Seen seen) {
        Expect e = at(id, side);
        String problem = null;
        if (seen.kind() == SimNode.Seen.Kind.VALUE) {
            if (e.invalidated) {
                problem = "invariant 4 (invalidated never comes back): found v" + seen.value();
            } else if (!e.values.contains(seen.value())) {
                problem = "invariant 3 (newest write): saw v" + seen.value() + ", expected " + e;
            } else {
                e.values.clear();
                e.values.add(seen.value());
                e.mayBeMissing = false;
                e.mayBeInvalidated = false;
            }
        } else if (seen.kind() == SimNode.Seen.Kind.NOT_FOUND) {
            if (!e.invalidated && !e.mayBeMissing && !e.mayBeInvalidated) {
                problem = "invariant 3 (newest write): found no session, expected " + e;
            } else if (e.mayBeInvalidated) {
                e.invalidated = true;
            }
        }
        return problem;
    }

    /** A request on {@code side} wrote {@code value} and returned. */
    void wrote(String id, int side, int value) {
        Expect e = at(id, side);
        e.values.clear();
        e.values.add(value);
        history.get(id).add(value);
    }

    /** A write that may or may not have taken effect (its node died during the request). */
    void mayHaveWritten(String id, int side, int value) {
        at(id, side).values.add(value);
        history.get(id).add(value);
    }

    void invalidated(String id, int side) {
        at(id, side).invalidated = true;
    }

    /** An invalidation whose request was cut by its node's death. */
    void mayHaveInvalidated(String id, int side) {
        at(id, side).mayBeInvalidated = true;
    }

    /** The write before the last one may come back (the last one may be lost). */
    void mayLose(String id, int side, int previous) {
        at(id, side).values.add(previous);
    }

    /**
     * The network splits into {@code count} sides; {@code held(id, side)}: what that side holds of the session. A
     * side without the primary and without a backup at the primary's version holds at most an older copy (a former
     * owner's or a stray backup): it may promote and serve that one, by design (it cannot know of newer ones).
     */
    void split(int count, java.util.function.BiFunction<String, Integer, Held> held) {
        for (Map.Entry<String, Map<Integer, Expect>> s : sessions.entrySet()) {
            Expect whole = s.getValue().get(0);
            Map<Integer, Expect> bySide = new HashMap<>();
            for (int side = 0; side < count; side++) {
                Expect e = whole.copy();
                Held h = held.apply(s.getKey(), side);
                if (h != Held.CURRENT) {
                    e.mayBeMissing = true;
                }
                if (h == Held.STALE && !e.invalidated) {
                    e.values.addAll(history.get(s.getKey()));
                }
                bySide.put(side, e);
            }
            s.setValue(bySide);
        }
        sides = count;
    }

    /** The sides merge: any side's value may win, an invalidation on any side wins. */
    void heal() {
        for (Map.Entry<String, Map<Integer, Expect>> s : sessions.entrySet()) {
            Expect merged = new Expect();
            merged.mayBeMissing = true;
            for (Expect e : s.getValue().values()) {
                merged.values.addAll(e.values);
                merged.mayBeMissing &= e.mayBeMissing;
                merged.invalidated |= e.invalidated;
                merged.mayBeInvalidated |= e.mayBeInvalidated;
            }
            s.setValue(new HashMap<>(Map.of(0, merged)));
        }
        sides = 1;
    }
}
