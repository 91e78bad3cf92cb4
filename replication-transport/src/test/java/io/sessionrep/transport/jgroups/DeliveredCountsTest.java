package io.sessionrep.transport.jgroups;

import org.jgroups.Address;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lane's wait for the channel, by positions: a request waits for the messages of its sender's stream sent before
 * it, a later stream (the sender reopened it after a split) settles it, and late messages of an earlier stream move
 * nothing back.
 */
class DeliveredCountsTest {

    private final DeliveredCounts counts = new DeliveredCounts();
    private final Address a = UUID.randomUUID();

    @Test
    void aRequestWaitsForTheMessagesOfItsStreamSentBeforeIt() throws Exception {
        assertTrue(counts.await(a, ChannelPosition.NONE, 0), "nothing sent before: at once");
        assertTrue(counts.await(a, ChannelPosition.of(3, 0), 0), "nothing of this stream sent before: at once");
        counts.handled(a, ChannelPosition.of(1, 1));
        counts.handled(a, ChannelPosition.of(1, 2));

        assertTrue(counts.await(a, ChannelPosition.of(1, 2), 0));
        assertFalse(counts.await(a, ChannelPosition.of(1, 3), 10), "the third message was not handled yet");
        assertFalse(counts.await(a, ChannelPosition.of(2, 1), 10), "nor the first of a later stream");
    }

    @Test
    void aLaterStreamSettlesWhatWasWaitedForOfAnEarlierOneAndLateMessagesOfThatOneMoveNothing() throws Exception {
        counts.handled(a, ChannelPosition.of(1, 5));
        counts.handled(a, ChannelPosition.of(2, 1)); // the sender gave up stream 1 (b left its view) and opened 2

        assertTrue(counts.await(a, ChannelPosition.of(1, 40), 0), "stream 1's messages that never came are not waited for");
        counts.handled(a, ChannelPosition.of(1, 6)); // a late message of stream 1
        assertTrue(counts.await(a, ChannelPosition.of(2, 1), 0), "still at stream 2");
        assertFalse(counts.await(a, ChannelPosition.of(2, 2), 10));
    }

    @Test
    void aSenderThatLeftIsRememberedSoThatItsStreamGoesOnWhenItComesBack() throws Exception {
        counts.handled(a, ChannelPosition.of(1, 20));
        counts.trim(Set.of()); // a left this node's view; few have left: remembered

        assertTrue(counts.await(a, ChannelPosition.of(1, 20), 0), "after a merge, a goes on where it was");
    }

    @Test
    void sendersThatLeftAreForgottenOnceManyHave() throws Exception {
        Address gone = UUID.randomUUID();
        counts.handled(gone, ChannelPosition.of(1, 1));
        for (int i = 0; i < DeliveredCounts.REMEMBERED_LEFT; i++) {
            counts.handled(UUID.randomUUID(), ChannelPosition.of(1, 1));
        }
        counts.handled(a, ChannelPosition.of(1, 1));
        counts.trim(Set.of(a));

        assertTrue(counts.await(a, ChannelPosition.of(1, 1), 0), "a member is kept");
        assertFalse(counts.await(gone, ChannelPosition.of(1, 1), 10), "the others were forgotten");
    }

    @Test
    void aWaitEndsWhenTheMessageIsHandled() throws Exception {
        Thread later = new Thread(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
            counts.handled(a, ChannelPosition.of(1, 1));
        });
        later.start();
        assertTrue(counts.await(a, ChannelPosition.of(1, 1), 10_000));
        later.join();
    }
}
