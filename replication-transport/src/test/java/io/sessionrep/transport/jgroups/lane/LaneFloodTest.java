package io.sessionrep.transport.jgroups.lane;

import io.sessionrep.transport.jgroups.TestNodes;
import io.sessionrep.transport.jgroups.RecordingReceiver;
import io.sessionrep.transport.jgroups.LaneHooks;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.ReplicationTransport.Outbound;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A backup's data lane under a flood of connections that never say hello, opened as fast as one thread can while a
 * primary sends it sync requests and async batches: the primary's own connections may be closed before their hello
 * is read (the lane keeps only the newest {@link LaneServer#MAX_SILENT} silent ones), and then what they carried
 * takes the channel. Whichever way each went: every message arrives, the async ones first arrive in the order sent,
 * no call waits past its time-out, and the backup's lane threads stay bounded (one per connection would be thousands).
 */
class LaneFloodTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    /** Messages of each kind sent during the flood. */
    private static final int MESSAGES = 150;
    /** Threads opening silent connections. */
    private static final int FLOODERS = 4;
    /** Connections each flooder keeps open on its side (the lane closes all but its newest silent ones long before). */
    private static final int FLOODER_KEEPS = 2_000;

    private final TestNodes nodes = new TestNodes();

    @AfterEach
    void close() {
        nodes.close();
    }

    @Test
    void aFloodOfSilentConnectionsLosesNothingHangsNothingAndDoesNotMultiplyThreads() throws Exception {
        RecordingReceiver onB = new RecordingReceiver().answering((sender, m) -> new byte[]{1});
        TestNodes.Pair p = nodes.startPair(new RecordingReceiver(), onB);
        Member b = TestNodes.other(p.a());
        int lanePort = p.b().dataLanePort();
        assertTrue(lanePort > 0);
        int threadsBefore = laneThreads();

        AtomicBoolean flooding = new AtomicBoolean(true);
        AtomicInteger opened = new AtomicInteger();
        AtomicInteger mostLaneThreads = new AtomicInteger();
        List<Thread> flooders = new ArrayList<>();
        for (int f = 0; f < FLOODERS; f++) {
            flooders.add(new Thread(() -> flood(lanePort, flooding, opened), "silent-flooder-" + f));
        }
        flooders.add(new Thread(() -> {
            while (flooding.get()) {
                mostLaneThreads.accumulateAndGet(laneThreads(), Math::max);
                try {
                    Thread.sleep(5); // each count stops every thread of the JVM for a moment
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "lane-thread-counter"));
        long floodStarted = System.nanoTime();
        flooders.forEach(Thread::start);

        long slowestNanos = 0;
        int overTheLane = 0;
        try {
            await().atMost(Duration.ofSeconds(5)).until(() -> opened.get() > 10 * LaneServer.MAX_SILENT);
            for (int i = 0; i < MESSAGES; i++) {
                p.a().sendAll(List.of(new Outbound(b, numbered(ASYNC, i))));
                long started = System.nanoTime();
                byte[] sync = numbered(SYNC, i);
                byte[] reply;
                try {
                    reply = LaneHooks.requestOverLane(p.a(), b, sync, TIMEOUT);
                } catch (TimeoutException e) {
                    reply = null; // as a sync request end does: it is sent over the channel too
                }
                slowestNanos = Math.max(slowestNanos, System.nanoTime() - started);
                if (reply == null) {
                    p.a().send(b, sync);
                } else {
                    overTheLane++;
                }
            }
        } finally {
            flooding.set(false);
            for (Thread t : flooders) {
                t.join(10_000);
            }
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> distinct(onB, ASYNC).size() == MESSAGES
                && distinct(onB, SYNC).size() == MESSAGES);
        assertEquals(IntStream.range(0, MESSAGES).boxed().toList(), new ArrayList<>(distinct(onB, ASYNC)),
                "every async message arrived, and each first in the order sent");
        String figures = "flood of " + opened.get() + " connections in "
                + (System.nanoTime() - floodStarted) / 1_000_000 + " ms; sync over the lane " + overTheLane + " of " + MESSAGES
                + "; lane refusals counted by b " + p.b().counters().laneRefused() + "; most lane threads " + mostLaneThreads.get()
                + " (before " + threadsBefore + "); slowest sync call " + slowestNanos / 1_000_000 + " ms";
        System.out.println("[lane flood] " + figures);
        // those still in the accept backlog when the flood stopped were closed by the flooder, not by the lane
        assertTrue(p.b().counters().laneRefused() >= opened.get() - LaneServer.MAX_SILENT - LaneServer.ACCEPT_BACKLOG,
                "the silent connections beyond the newest ones were closed and counted: " + figures);
        assertTrue(mostLaneThreads.get() <= threadsBefore + 2 * LaneServer.MAX_SILENT + 8,
                "the lane's threads stayed bounded during the flood: " + figures);
        assertTrue(slowestNanos <= TIMEOUT.toNanos() + Duration.ofSeconds(1).toNanos(),
                "no call waited past its time-out: " + figures);
    }

    /** Opens connections that say nothing as fast as it can while {@code flooding}, keeping the newest open. */
    private static void flood(int lanePort, AtomicBoolean flooding, AtomicInteger opened) {
        ArrayDeque<Socket> kept = new ArrayDeque<>();
        try {
            while (flooding.get()) {
                try {
                    kept.addLast(new Socket(TestNodes.LOOPBACK, lanePort));
                    opened.incrementAndGet();
                } catch (java.io.IOException refused) {
                    Thread.onSpinWait(); // backlog full for a moment
                }
                if (kept.size() > FLOODER_KEEPS) {
                    LaneFrames.closeQuietly(kept.pollFirst());
                }
            }
        } finally {
            kept.forEach(LaneFrames::closeQuietly);
        }
    }

    private static final byte ASYNC = 1;
    private static final byte SYNC = 2;

    /** Message {@code i} of a kind: the kind in its first byte, its number in the next 4. */
    private static byte[] numbered(byte kind, int i) {
        return ByteBuffer.allocate(64).put(kind).putInt(i).array();
    }

    /** The numbers of the messages of {@code kind} b received, each once, in the order first received. */
    private static Set<Integer> distinct(RecordingReceiver r, byte kind) {
        Set<Integer> seen = new LinkedHashSet<>();
        for (RecordingReceiver.Received m : r.messages) {
            ByteBuffer bytes = ByteBuffer.wrap(m.message());
            if (bytes.get() == kind) {
                seen.add(bytes.getInt());
            }
        }
        return seen;
    }


    /** Live threads of the lane servers of this JVM that serve a connection (not their acceptors, not the pipes' readers). */
    private static int laneThreads() {
        int n = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String name = t.getName();
            if (name.startsWith("sessionrep-lane-") && !name.startsWith("sessionrep-lane-accept-")
                    && !name.startsWith("sessionrep-lane-answers-")) {
                n++;
            }
        }
        return n;
    }
}
