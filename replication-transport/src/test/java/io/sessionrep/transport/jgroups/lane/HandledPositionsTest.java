package io.sessionrep.transport.jgroups.lane;

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
class HandledPositionsTest {

    private final HandledPositions positions = new HandledPositions();
    private final Address a = UUID.randomUUID();

    @Test
    void aRequestWaitsForTheMessagesOfItsStreamSentBeforeIt() throws Exception {
        assertTrue(positions.await(a, ChannelPosition.NONE, 0), "nothing sent before: at once");
        assertTrue(positions.await(a, ChannelPosition.of(3, 0), 0), "nothing of this stream sent before: at once");
        positions.handled(a, ChannelPosition.of(1, 1));
        positions.handled(a, ChannelPosition.of(1, 2));

        assertTrue(positions.await(a, ChannelPosition.of(1, 2), 0));
        assertFalse(positions.await(a, ChannelPosition.of(1, 3), 10), "the third message was not handled yet");
        assertFalse(positions.await(a, ChannelPosition.of(2, 1), 10), "nor the first of a later stream");
    }

    @Test
    void aLaterStreamSettlesWhatWasWaitedForOfAnEarlierOneAndLateMessagesOfThatOneMoveNothing() throws Exception {
        positions.handled(a, ChannelPosition.of(1, 5));
        positions.handled(a, ChannelPosition.of(2, 1)); // the sender gave up stream 1 (b left its view) and opened 2

        assertTrue(positions.await(a, ChannelPosition.of(1, 40), 0), "stream 1's messages that never came are not waited for");
        positions.handled(a, ChannelPosition.of(1, 6)); // a late message of stream 1
        assertTrue(positions.await(a, ChannelPosition.of(2, 1), 0), "still at stream 2");
        assertFalse(positions.await(a, ChannelPosition.of(2, 2), 10));
    }

    @Test
    void aSenderThatLeftIsRememberedSoThatItsStreamGoesOnWhenItComesBack() throws Exception {
        positions.handled(a, ChannelPosition.of(1, 20));
        positions.trim(Set.of()); // a left this node's view; few have left: remembered

        assertTrue(positions.await(a, ChannelPosition.of(1, 20), 0), "after a merge, a goes on where it was");
    }

    @Test
    void sendersThatLeftAreForgottenOnceManyHave() throws Exception {
        Address gone = UUID.randomUUID();
        positions.handled(gone, ChannelPosition.of(1, 1));
        for (int i = 0; i < HandledPositions.REMEMBERED_LEFT; i++) {
            positions.handled(UUID.randomUUID(), ChannelPosition.of(1, 1));
        }
        positions.handled(a, ChannelPosition.of(1, 1));
        positions.trim(Set.of(a));

        assertTrue(positions.await(a, ChannelPosition.of(1, 1), 0), "a member is kept");
        assertFalse(positions.await(gone, ChannelPosition.of(1, 1), 10), "the others were forgotten");
    }

    @Test
    void aWaitEndsWhenTheMessageIsHandled() throws Exception {
        Thread later = new Thread(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
            positions.handled(a, ChannelPosition.of(1, 1));
        });
        later.start();
        assertTrue(positions.await(a, ChannelPosition.of(1, 1), 10_000));
        later.join();
    }
}
