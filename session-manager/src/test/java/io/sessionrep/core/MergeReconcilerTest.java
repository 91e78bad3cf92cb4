package io.sessionrep.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The order of two primaries of one session after a merge (docs/replication.md, "Partitions and merges"). */
class MergeReconcilerTest {

    @Test
    void liveBeatsDormantWhateverTheVersions() {
        assertTrue(MergeReconciler.beats(true, 2, "a", false, 9, "b"));
        assertFalse(MergeReconciler.beats(false, 9, "b", true, 2, "a"));
    }

    @Test
    void thenTheHigherVersionWinsWhateverTheNames() {
        assertTrue(MergeReconciler.beats(true, 6, "a", true, 5, "c"));
        assertFalse(MergeReconciler.beats(true, 5, "c", true, 6, "a"));
        assertTrue(MergeReconciler.beats(false, 4, "a", false, 3, "b"));
    }

    @Test
    void equalVersionsTheNameSortingLastWins() {
        assertTrue(MergeReconciler.beats(true, 4, "b", true, 4, "a"));
        assertFalse(MergeReconciler.beats(true, 4, "a", true, 4, "b"));
        assertTrue(MergeReconciler.beats(false, 4, "node-c", false, 4, "node-b"));
    }

    @Test
    void theOrderIsStrictSoExactlyOneOfTwoDistinctClaimsWins() {
        boolean[] live = {true, false};
        long[] versions = {1, 2, 3};
        String[] names = {"a", "b"};
        for (boolean l1 : live) {
            for (long v1 : versions) {
                for (String n1 : names) {
                    for (boolean l2 : live) {
                        for (long v2 : versions) {
                            for (String n2 : names) {
                                boolean oneBeatsTwo = MergeReconciler.beats(l1, v1, n1, l2, v2, n2);
                                boolean twoBeatsOne = MergeReconciler.beats(l2, v2, n2, l1, v1, n1);
                                boolean same = l1 == l2 && v1 == v2 && n1.equals(n2);
                                assertTrue(same ? !oneBeatsTwo && !twoBeatsOne : oneBeatsTwo ^ twoBeatsOne,
                                        l1 + " " + v1 + " " + n1 + " vs " + l2 + " " + v2 + " " + n2);
                            }
                        }
                    }
                }
            }
        }
    }
}
