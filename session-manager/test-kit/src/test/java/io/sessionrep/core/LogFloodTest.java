package io.sessionrep.core;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.InMemoryNetwork;
import io.sessionrep.core.transport.Member;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a peer or a client can make a node log is bounded per minute; every refusal is still counted. */
class LogFloodTest {

    @Test
    void twoHundredThousandMalformedMessagesWriteOneWarningAndAreAllCounted() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        AtomicInteger lines = new AtomicInteger();
        Handler counting = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    lines.incrementAndGet();
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger(IncomingMessages.class.getName());
        try (SessionReplicator a = SessionReplicator.start(ReplicationConfig.builder().nodeName("a").machineId("a").build(),
                network.transport("a", "a"), getClass().getClassLoader(), meters, SessionEvents.NONE);
             SessionReplicator b = SessionReplicator.start(ReplicationConfig.builder().nodeName("b").machineId("b").build(),
                     network.transport("b", "b"), getClass().getClassLoader(), meters, SessionEvents.NONE)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> b.members().size() == 2);
            logger.addHandler(counting);
            Member fromA = new Member("a", "a");
            byte[] empty = new byte[0];
            byte[] unknownType = {0x53, 3, 99};
            for (int i = 0; i < 100_000; i++) {
                b.incoming().onMessage(fromA, empty);
                b.incoming().onMessage(fromA, unknownType);
            }
            assertEquals(200_000.0, meters.find(ReplicationMetrics.REJECTED).tag("node", "b")
                    .tag("reason", ReplicationMetrics.REASON_MALFORMED).counter().count());
            assertEquals(1, lines.get(), "one warning a minute");
        } finally {
            logger.removeHandler(counting);
        }
    }

    @Test
    void aFullReportOnceSetStillLetsAWarningThroughEachInterval() throws Exception {
        ReportOnce once = new ReportOnce(3, Duration.ofMillis(200));
        assertTrue(once.firstTime("a") && once.firstTime("b") && once.firstTime("c"));
        assertFalse(once.firstTime("a"), "a key is reported once");
        assertTrue(once.firstTime("filler-1"), "the set is full: the first other key of the interval goes through");
        for (int i = 2; i < 10_000; i++) {
            assertFalse(once.firstTime("filler-" + i), "then none until the interval has passed");
        }
        Thread.sleep(250);
        assertTrue(once.firstTime("genuine"), "a genuine warning is not silenced for longer than the interval");
    }
}
