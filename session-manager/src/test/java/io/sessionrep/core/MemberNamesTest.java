package io.sessionrep.core;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The primary's compact sets of backup names behave as sets, whatever the order of operations. */
class MemberNamesTest {

    @Test
    void addContainsRemoveAndClear() {
        Set<String> names = new MemberNames();
        assertTrue(names.isEmpty());
        assertTrue(names.add("node-b"));
        assertFalse(names.add("node-b"), "no duplicates");
        assertTrue(names.add("node-c"));
        assertEquals(Set.of("node-b", "node-c"), names);
        assertTrue(names.contains("node-c"));
        assertFalse(names.contains("node-d"));
        assertTrue(names.remove("node-b"));
        assertFalse(names.remove("node-b"));
        assertEquals(Set.of("node-c"), names);
        names.clear();
        assertTrue(names.isEmpty());
        assertThrows(NullPointerException.class, () -> names.add(null));
    }

    @Test
    void bulkOperationsAndIteratorRemovalVisitEveryName() {
        Set<String> names = new MemberNames();
        names.addAll(List.of("a", "b", "c", "d"));
        assertTrue(names.containsAll(Set.of("a", "d")));
        names.removeAll(Set.of("a", "c")); // removes through the iterator when the argument is the smaller set
        assertEquals(Set.of("b", "d"), names);
        names.addAll(List.of("a", "c"));
        names.retainAll(Set.of("a", "b", "x"));
        assertEquals(Set.of("a", "b"), names);
        Iterator<String> it = names.iterator();
        it.next();
        it.remove();
        assertThrows(IllegalStateException.class, it::remove);
        assertEquals(1, names.size());
        assertTrue(it.hasNext(), "the name moved into the gap is still visited");
        it.next();
        it.remove();
        assertTrue(names.isEmpty());
    }

    @Test
    void behavesAsAHashSetUnderRandomOperations() {
        Random random = new Random(7);
        Set<String> compact = new MemberNames();
        Set<String> reference = new HashSet<>();
        for (int step = 0; step < 20_000; step++) {
            String name = "node-" + random.nextInt(6);
            switch (random.nextInt(5)) {
                case 0, 1 -> assertEquals(reference.add(name), compact.add(name));
                case 2 -> assertEquals(reference.remove(name), compact.remove(name));
                case 3 -> {
                    Iterator<String> it = compact.iterator();
                    while (it.hasNext()) {
                        String n = it.next();
                        if (n.equals(name)) {
                            it.remove();
                            reference.remove(n);
                        }
                    }
                }
                default -> assertEquals(reference.contains(name), compact.contains(name));
            }
            assertEquals(reference, compact);
            assertEquals(reference.size(), compact.size());
        }
    }
}
