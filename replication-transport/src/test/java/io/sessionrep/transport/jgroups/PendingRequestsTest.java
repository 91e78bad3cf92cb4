package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.Member;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Requests waiting for replies: each ends once, by its reply or its timeout, at little cost per request. */
@Timeout(30)
class PendingRequestsTest {
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
    private final TransportCounters counters = new TransportCounters();
    private final PendingRequests pending = new PendingRequests(timer, counters);
    private final Member backup = new Member("b", "b");
    private final UUID address = UUID.randomUUID();

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    @Test
    void aRequestWithoutReplyTimesOutNotBeforeItsTimeoutAndIsCounted() {
        long started = System.nanoTime();
        PendingRequests.Registration r = pending.register(backup, address, Duration.ofMillis(100));
        ExecutionException e = assertThrows(ExecutionException.class, () -> r.future().get(10, TimeUnit.SECONDS));
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        assertInstanceOf(TimeoutException.class, e.getCause());
        assertTrue(tookMs >= 100, "not before its timeout: " + tookMs + " ms");
        assertEquals(1, counters.requestsTimedOut());
        assertEquals(0, pending.size());
    }

    @Test
    void aReplyEndsTheRequestAndNoTimeoutFollows() throws Exception {
        PendingRequests.Registration r = pending.register(backup, address, Duration.ofMillis(50));
        pending.complete(r.id(), address, new byte[] {7});
        assertArrayEquals(new byte[] {7}, r.future().get(1, TimeUnit.SECONDS));
        Thread.sleep(200); // past the timeout
        assertEquals(0, counters.requestsTimedOut());
        assertEquals(0, pending.size());
    }

    @Test
    void answeredRequestsLeaveNothingBehindInTheTimer() throws Exception {
        for (int i = 0; i < 10_000; i++) {
            PendingRequests.Registration r = pending.register(backup, address, Duration.ofSeconds(30));
            pending.complete(r.id(), address, new byte[0]);
        }
        assertEquals(0, pending.size());
        assertTrue(timer.getQueue().size() <= 1, "one sweep at most, not a task per request: " + timer.getQueue().size());
        PendingRequests.Registration late = pending.register(backup, address, Duration.ofMillis(50));
        ExecutionException e = assertThrows(ExecutionException.class, () -> late.future().get(10, TimeUnit.SECONDS));
        assertInstanceOf(TimeoutException.class, e.getCause(), "timeouts still work after the sweeps stopped");
    }
}
