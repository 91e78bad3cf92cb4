package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.Member;
import io.sessionrep.discovery.CrashAwareVerifySuspect;
import org.jgroups.Event;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.FD_ALL3;
import org.jgroups.protocols.TP;
import org.jgroups.stack.ProtocolStack;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import org.junit.jupiter.api.Tag;

/**
 * The lane's ordering wait ({@code HandledPositions}) across a split that only one side saw: b stops hearing a and
 * removes it from its view, while a keeps b in its view (as when a stalls, in a long GC pause say, past b's failure
 * detection and the two merge before a's own detection fires). After the merge b must still know where a's channel
 * stream to it stands. With counts kept on each side, b forgot a's at that view change and counted from zero after
 * the merge while a went on from its old count: every lane request of a waited for channel messages b would never
 * see, for good (answered "not handled", a rested its lane and took the channel, again and again).
 */
@Timeout(120)
@Tag("extended")
class LaneAfterMergeTest {

    private final TestNodes nodes = new TestNodes();
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    @AfterEach
    void close() {
        nodes.close();
    }

    @Test
    void afterOnlyTheBackupRemovedTheSenderAndTheyMergedTheLaneServesAgain() throws Exception {
        RecordingReceiver onB = new RecordingReceiver().answering((sender, m) -> new byte[]{1});
        TestNodes.Pair pair = nodes.startPair(new RecordingReceiver(), onB);
        JGroupsTransport a = pair.a();
        JGroupsTransport b = pair.b();
        Member bOfA = TestNodes.other(a);
        for (int i = 0; i < 20; i++) {
            a.send(bOfA, new byte[]{0, (byte) i}); // channel messages that b handles and counts
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> onB.messages.size() == 20);
        assertEquals(1, exchange(a, bOfA, 100).length, "the lane serves before the split");
        long exchangedBefore = a.counters().laneExchanges();

        // the split, seen by b only: b drops what a sends, suspects it and removes it; a's suspicions never conclude
        // (as when a stalls, e.g. in a long GC pause, past b's failure detection, and resumes before its own fires)
        a.channel().getProtocolStack().<FD_ALL3>findProtocol(FD_ALL3.class).setTimeout(600_000);
        a.channel().getProtocolStack().<CrashAwareVerifySuspect>findProtocol(CrashAwareVerifySuspect.class).setTimeout(600_000);
        DISCARD discard = new DISCARD();
        b.channel().getProtocolStack().insertProtocol(discard, ProtocolStack.Position.ABOVE, TP.class);
        discard.addIgnoreMember(a.channel().getAddress());
        CrashAwareVerifySuspect verifier = b.channel().getProtocolStack().findProtocol(CrashAwareVerifySuspect.class);
        verifier.up(new Event(Event.SUSPECT, List.of(a.channel().getAddress())));
        await().atMost(Duration.ofSeconds(20)).until(() -> b.members().size() == 1);
        assertEquals(2, a.members().size(), "a kept b in its view all along (the case where the counts parted)");

        discard.resetIgnoredMembers(); // heal: MERGE3 merges the two views
        await().atMost(Duration.ofSeconds(40)).until(() -> b.members().size() == 2);
        assertEquals(2, a.members().size());

        // as a sync request end does: the lane first, the channel when the lane does not take it
        int overTheLane = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        for (int i = 0; overTheLane < 3 && System.nanoTime() < deadline; i++) {
            byte[] reply = a.requestOverLane(bOfA, new byte[]{2, (byte) i}, TIMEOUT, null);
            if (reply != null) {
                overTheLane++;
            } else {
                a.send(bOfA, new byte[]{3, (byte) i});
                Thread.sleep(200);
            }
        }

        assertTrue(overTheLane == 3, "after the merge the lane takes requests again; over the lane: " + overTheLane
                + ", answered 'not handled' by b: " + b.counters().laneNotHandled());
        assertTrue(a.counters().laneExchanges() >= exchangedBefore + 3);
    }

    private static byte[] exchange(JGroupsTransport from, Member to, int attempts) throws Exception {
        for (int i = 0; i < attempts; i++) {
            byte[] reply = from.requestOverLane(to, new byte[]{9}, TIMEOUT, null);
            if (reply != null) {
                return reply;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the lane never answered");
    }

}
