package io.sessionrep.core;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A recurring warning goes through once per interval. */
class WarningIntervalTest {

    @Test
    void theFirstGoesThroughThenNoneUntilTheIntervalHasPassed() throws InterruptedException {
        WarningInterval minute = new WarningInterval(Duration.ofMinutes(1));
        assertTrue(minute.due());
        assertFalse(minute.due());
        assertFalse(minute.due());

        WarningInterval brief = new WarningInterval(Duration.ofMillis(1));
        assertTrue(brief.due());
        Thread.sleep(5);
        assertTrue(brief.due(), "the interval has passed");
    }
}
