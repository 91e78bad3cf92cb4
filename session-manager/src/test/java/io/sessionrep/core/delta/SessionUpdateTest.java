package io.sessionrep.core.delta;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Merging two updates of one session (the async queue's coalescing) gives what applying both in turn gives. */
class SessionUpdateTest {
    private static final List<String> NAMES = List.of("a", "b", "c", "d");

    @Test
    void aMergedUpdateLeavesABackupExactlyWhereTheTwoUpdatesInTurnLeaveIt() {
        Random random = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            Map<String, byte[]> base = randomValues(random);
            SessionUpdate first = randomUpdate(random, 4, 5);
            SessionUpdate second = randomUpdate(random, 5, 6);

            SessionUpdate merged = first.followedBy(second);

            Map<String, byte[]> inTurn = apply(apply(base, first), second);
            assertEquals(inTurn, apply(base, merged), () -> "merging " + first + " and " + second);
            assertEquals(first.full() || second.full() ? 0 : 4, merged.fromVersion());
            assertEquals(6, merged.toVersion());
            assertEquals(first.full() || second.full(), merged.full());
            assertEquals(second.lastAccessedTime(), merged.lastAccessedTime());
            assertEquals(second.maxInactiveSeconds(), merged.maxInactiveSeconds());
        }
    }

    @Test
    void rewritingTheSameAttributesReusesTheNewerUpdatesValuesWithoutCopyingThem() {
        SessionUpdate first = delta(4, 5, Map.of("a", new byte[1], "b", new byte[2]), Set.of());
        SessionUpdate second = delta(5, 6, Map.of("a", new byte[3], "b", new byte[4], "c", new byte[5]), Set.of("d"));

        SessionUpdate merged = first.followedBy(second);

        assertSame(second.changed(), merged.changed());
        assertSame(second.removed(), merged.removed());
        assertEquals(12, merged.valueBytes());
    }

    /** What a backup holds after applying {@code update} to {@code state} (by value identity). */
    private static Map<String, byte[]> apply(Map<String, byte[]> state, SessionUpdate update) {
        Map<String, byte[]> next = update.full() ? new HashMap<>() : new HashMap<>(state);
        next.keySet().removeAll(update.removed());
        next.putAll(update.changed());
        return next;
    }

    private static SessionUpdate randomUpdate(Random random, long from, long to) {
        Map<String, byte[]> changed = randomValues(random);
        if (random.nextInt(4) == 0) {
            return new SessionUpdate("s", 0, to, true, 1, to * 10, (int) to, changed, Set.of());
        }
        Set<String> removed = new HashSet<>();
        for (String name : NAMES) {
            if (!changed.containsKey(name) && random.nextInt(3) == 0) {
                removed.add(name);
            }
        }
        return delta(from, to, changed, removed);
    }

    private static SessionUpdate delta(long from, long to, Map<String, byte[]> changed, Set<String> removed) {
        return new SessionUpdate("s", from, to, false, 1, to * 10, (int) to, changed, removed);
    }

    private static Map<String, byte[]> randomValues(Random random) {
        Map<String, byte[]> values = new HashMap<>();
        for (String name : NAMES) {
            if (random.nextBoolean()) {
                values.put(name, new byte[random.nextInt(8)]);
            }
        }
        return values;
    }
}
