package io.sessionrep.core;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What requests did to a session's attributes, as request end sees it. */
class ChangeTrackerTest {

    @Test
    void nothingRecordedDrainsEmpty() {
        ChangeTracker tracker = new ChangeTracker();
        assertTrue(tracker.drain().isEmpty());
        tracker.attributeRead("name", "an immutable string");
        assertTrue(tracker.drain().isEmpty(), "reading an immutable value is not a change");
    }

    @Test
    void writesRemovalsAndMutableReadsAreDrainedOnce() {
        ChangeTracker tracker = new ChangeTracker();
        tracker.attributeSet("cart");
        tracker.attributeRemoved("coupon");
        tracker.attributeRead("history", new ArrayList<>(List.of("a")));
        ChangeTracker.Changes changes = tracker.drain();
        assertEquals(Set.of("cart", "history"), changes.written());
        assertEquals(Set.of("coupon"), changes.removed());
        assertTrue(tracker.drain().isEmpty(), "drained");
    }

    @Test
    void theLastOfASetAndARemovalWins() {
        ChangeTracker tracker = new ChangeTracker();
        tracker.attributeSet("cart");
        tracker.attributeRemoved("cart");
        tracker.attributeRead("cart", new ArrayList<>()); // read after the removal: not written
        ChangeTracker.Changes changes = tracker.drain();
        assertEquals(Set.of(), changes.written());
        assertEquals(Set.of("cart"), changes.removed());
        tracker.attributeRemoved("cart");
        tracker.attributeSet("cart");
        changes = tracker.drain();
        assertEquals(Set.of("cart"), changes.written());
        assertEquals(Set.of(), changes.removed());
    }

    @Test
    void restoredChangesComeBackUnlessNewerOnesContradictThem() {
        ChangeTracker tracker = new ChangeTracker();
        tracker.attributeSet("a");
        tracker.attributeSet("b");
        tracker.attributeRemoved("c");
        ChangeTracker.Changes failed = tracker.drain();
        tracker.attributeRemoved("a"); // a request after the failed attempt removed it
        tracker.restore(failed);
        ChangeTracker.Changes changes = tracker.drain();
        assertEquals(Set.of("b"), changes.written());
        assertEquals(Set.of("a", "c"), changes.removed());
    }
}
