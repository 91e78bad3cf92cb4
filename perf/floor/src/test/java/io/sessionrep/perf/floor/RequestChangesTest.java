package io.sessionrep.perf.floor;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RequestChangesTest {

    @Test
    void recordsOnlyDuringARequestAndAnInvalidationCoversTheRemovalsThatFollowIt() {
        RequestChanges changes = RequestChanges.onThisThread();
        changes.record(new Change.Set("s", "a", 1)); // no request: Tomcat's background expiry, say
        changes.begin();
        changes.record(new Change.Set("s", "a", 2));
        changes.record(new Change.Destroy("s"));
        changes.record(new Change.Remove("s", "a"));
        changes.record(new Change.Remove("t", "a"));
        assertEquals(List.of(new Change.Set("s", "a", 2), new Change.Destroy("s"), new Change.Remove("t", "a")), changes.end());
        changes.record(new Change.Set("s", "b", 3));
        changes.begin();
        assertTrue(changes.end().isEmpty());
    }
}
