package io.sessionrep.perf;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HeapHistogramTest {

    private static final String BEFORE = """
            12345:
             num     #instances         #bytes  class name (module)
            -------------------------------------------------------
               1:          1000         500000  [B (java.base@17.0.15)
               2:           200           4800  java.lang.String (java.base@17.0.15)
               3:            10            400  org.example.Gone
               4:             5            200  org.example.Twice
               5:             5            200  org.example.Twice
            Total          1220         505600
            """;

    private static final String AFTER = """
            12345:
             num     #instances         #bytes  class name (module)
            -------------------------------------------------------
               1:          3000        2500000  [B (java.base@17.0.15)
               2:           300           7200  java.lang.String (java.base@17.0.15)
               3:             4            100  org.example.Twice
               4:            50           2000  java.util.HashMap$Node (java.base@17.0.15)
            Total          3354        2509300
            """;

    @Test
    void growthIsPerClassLargestFirstWithVanishedClassesAsShrinking() {
        List<HeapHistogram.Growth> growth = HeapHistogram.parse(AFTER).growthSince(HeapHistogram.parse(BEFORE));
        assertEquals(new HeapHistogram.Growth("[B", 2000, 2_000_000), growth.get(0));
        assertEquals(new HeapHistogram.Growth("java.lang.String", 100, 2400), growth.get(1));
        assertEquals(new HeapHistogram.Growth("java.util.HashMap$Node", 50, 2000), growth.get(2));
        assertEquals(new HeapHistogram.Growth("org.example.Twice", -6, -300), growth.get(3)); // two loaders' lines added up
        assertEquals(new HeapHistogram.Growth("org.example.Gone", -10, -400), growth.get(4));
        assertEquals(5, growth.size());
    }

    @Test
    void theDescriptionGivesTheTotalPerSession() {
        List<HeapHistogram.Growth> growth = HeapHistogram.parse(AFTER).growthSince(HeapHistogram.parse(BEFORE));
        String text = HeapHistogram.describe(growth, 2, 1000);
        assertTrue(text.startsWith("total +2,003,700 B (+2,004 B per session)"), text);
        assertTrue(text.contains("[B") && text.contains("java.lang.String") && !text.contains("HashMap"), text);
    }

    @Test
    void outputWithoutClassLinesIsAnError() {
        assertThrows(IllegalStateException.class, () -> HeapHistogram.parse("12345:\nNo such process\n"));
    }
}
