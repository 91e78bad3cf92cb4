package io.sessionrep.transport.jgroups;

import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The TCP transport's frame-length cap (max-session-size 1MiB: 2MiB) over real channels: a frame longer
 * than the cap, sent by a peer straight through its transport (no fragmentation), never reaches the
 * receiver's stack, while a frame under the cap does; the receiver stays in the cluster and replicates on.
 */
@Timeout(120)
class FrameLengthCapTest {

    @Test
    void aFrameOverTheCapIsRefusedAndTheNodeKeepsWorking() throws Exception {
        try (TestNodes nodes = new TestNodes()) {
            RecordingReceiver onB = new RecordingReceiver();
            TestNodes.Pair pair = nodes.startPair(new RecordingReceiver(), onB);
            JGroupsTransport a = pair.a();
            JGroupsTransport b = pair.b();
            WireTap sender = WireTap.on(a);
            WireTap receiver = WireTap.on(b);
            Address bAddress = WireTap.channel(b).getAddress();

            sender.inject(new BytesMessage(bAddress, new byte[1024 * 1024 + 7]));
            await().atMost(Duration.ofSeconds(20)).until(() -> receiver.receivedLengths.contains(1024 * 1024 + 7));
            // the receiver reads the announced length, refuses it and closes the connection
            sender.inject(new BytesMessage(bAddress, new byte[3 * 1024 * 1024]));
            Thread.sleep(2_000);
            assertFalse(receiver.receivedLengths.contains(3 * 1024 * 1024), "the 3MiB frame was refused");

            byte[] after = "still replicating".getBytes(StandardCharsets.UTF_8);
            a.send(b.localMember(), after);
            await().atMost(Duration.ofSeconds(20)).until(() -> !onB.messages.isEmpty());
            assertArrayEquals(after, onB.messages.get(onB.messages.size() - 1).message());
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> b.members().size() == 2);
        }
    }
}
