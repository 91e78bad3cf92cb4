package io.sessionrep.transport.jgroups;

import org.jgroups.protocols.UNICAST3;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * UNICAST3 keeps every sent message until the receiver acknowledges it. Over real channels with the
 * product's stack, a steady stream of 50 KiB updates is held for milliseconds on average, not the quarter
 * second that JGroups' default acknowledgement timer (500 ms) gave: measured here 8 ms against 231 ms, so the
 * bound of 120 ms leaves room for a slow machine and still fails with the default (checked).
 */
@Timeout(60)
class SentUpdatesReleasedTest {

    @Test
    void aSenderHoldsASteadyStreamOfUpdatesOnlyBrieflyBeforeTheyAreAcknowledged() throws Exception {
        try (TestNodes nodes = new TestNodes()) {
            RecordingReceiver onB = new RecordingReceiver();
            TestNodes.Pair pair = nodes.startPair(new RecordingReceiver(), onB);
            UNICAST3 unicast = WireTap.channel(pair.a()).getProtocolStack().findProtocol(UNICAST3.class);
            byte[] update = new byte[50 * 1024];

            long heldSamples = 0;
            int samples = 0;
            int sent = 0;
            long start = System.nanoTime();
            while (System.nanoTime() - start < 3_000_000_000L) {
                pair.a().send(pair.b().localMember(), update);
                sent++;
                Thread.sleep(5);
                heldSamples += unicast.getNumUnackedMessages();
                samples++;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            double meanHoldMillis = 1000.0 * heldSamples / samples / (sent / seconds); // Little's law: held = rate x time
            int total = sent;
            await().atMost(Duration.ofSeconds(20)).until(() -> onB.messages.size() == total);
            assertTrue(meanHoldMillis < 120, "sent updates were held " + Math.round(meanHoldMillis)
                    + " ms on average before their acknowledgement (" + sent + " sent in " + seconds + " s)");
        }
    }
}
