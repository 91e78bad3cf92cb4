package io.sessionrep.transport.jgroups;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where a reply is handled, over two real channels: the thread that reads it from the connection completes
 * the request (no pool thread is woken on the way back to a waiting sync request end), while requests and
 * one-way messages still run on JGroups' pool, never on the reading thread.
 */
@Timeout(60)
class RepliesOnReceiverThreadTest {

    @Test
    void theThreadThatReadsAReplyCompletesTheRequestWhileRequestsRunOnThePool() throws Exception {
        try (TestNodes nodes = new TestNodes()) {
            CountDownLatch answer = new CountDownLatch(1);
            CompletableFuture<String> answeredOn = new CompletableFuture<>();
            RecordingReceiver onB = new RecordingReceiver().answering((sender, message) -> {
                answeredOn.complete(Thread.currentThread().getName());
                try {
                    answer.await(20, TimeUnit.SECONDS); // until the requester has chained its callback
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return "stored".getBytes(StandardCharsets.UTF_8);
            });
            TestNodes.Pair pair = nodes.startPair(new RecordingReceiver(), onB);

            CompletableFuture<byte[]> reply = pair.a().request(pair.b().localMember(),
                    "update".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(20));
            CompletableFuture<String> completedOn = reply.thenApply(bytes -> Thread.currentThread().getName());
            answer.countDown();

            // completedOn first: a thread blocked in reply.get() may itself run reply's pending callbacks once the
            // reply is in (CompletableFuture lets the waiting thread help), and the callback would report main
            String replyThread = completedOn.get(20, TimeUnit.SECONDS);
            assertArrayEquals("stored".getBytes(StandardCharsets.UTF_8), reply.get(20, TimeUnit.SECONDS));
            String requestThread = answeredOn.get(20, TimeUnit.SECONDS);
            assertTrue(isConnectionReader(replyThread), "the reply completed the request on the thread that read it,"
                    + " not on " + replyThread);
            assertTrue(!isConnectionReader(requestThread), "the request was handled on JGroups' pool, not on the "
                    + "connection's reader: " + requestThread);
            assertEquals(1, pair.a().counters().repliesReceived(), pair.a().counters().toString());
        }
    }

    /** JGroups' TCP names the thread that reads a connection "Connection.Receiver [local - remote]". */
    private static boolean isConnectionReader(String threadName) {
        return threadName.startsWith("Connection.Receiver");
    }
}
