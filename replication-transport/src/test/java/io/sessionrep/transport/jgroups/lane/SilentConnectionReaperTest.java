package io.sessionrep.transport.jgroups.lane;

import io.sessionrep.transport.jgroups.TestNodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The reaper that stands in for socket time-outs on the lane's server side, on real loopback sockets with short
 * time-outs: a connection with no hello, or no request after it, is closed (the peer reads end-of-stream), one that
 * keeps talking is not, one forgotten (its reader ended) is left alone, and closing the reaper closes them all.
 */
@Timeout(30)
class SilentConnectionReaperTest {

    private static final int HELLO_MILLIS = 300;
    private static final int IDLE_MILLIS = 800;

    private final List<String> reasons = new CopyOnWriteArrayList<>();
    private final SilentConnectionReaper reaper = new SilentConnectionReaper(HELLO_MILLIS, IDLE_MILLIS, "test-reaper",
            (socket, why) -> {
                reasons.add(why);
                LaneFrames.closeQuietly(socket);
            });
    private final ServerSocket server;

    SilentConnectionReaperTest() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    }

    @AfterEach
    void close() throws IOException {
        reaper.close();
        server.close();
    }

    /** A client connection and the server's end of it. */
    private record Pair(Socket client, Socket served) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            client.close();
            served.close();
        }
    }

    private Pair connect() throws IOException {
        Socket client = new Socket(server.getInetAddress(), server.getLocalPort());
        client.setSoTimeout(10_000); // the reads that check a connection is still open
        return new Pair(client, server.accept());
    }

    private static long millisUntilClosed(Socket client) {
        long started = System.nanoTime();
        assertTrue(TestNodes.closedByTheLane(client, Duration.ofSeconds(10)), "closed");
        return (System.nanoTime() - started) / 1_000_000;
    }

    @Test
    void aConnectionWithoutHelloIsClosedAfterTheHelloTimeOut() throws Exception {
        try (Pair p = connect()) {
            reaper.watch(p.served());
            long waited = millisUntilClosed(p.client());
            assertTrue(waited >= HELLO_MILLIS - 50 && waited < IDLE_MILLIS, "closed after " + waited + " ms");
            assertTrue(reasons.get(0).startsWith("no hello"), reasons.toString());
        }
    }

    @Test
    void aConnectionThatSaidHelloAndThenNothingIsClosedAfterTheIdleTimeOut() throws Exception {
        try (Pair p = connect()) {
            reaper.watch(p.served()).heard();
            long waited = millisUntilClosed(p.client());
            assertTrue(waited >= IDLE_MILLIS - 50, "closed after " + waited + " ms");
            assertTrue(reasons.get(0).startsWith("idle"), reasons.toString());
        }
    }

    @Test
    void aConnectionThatKeepsSendingFramesStaysOpen() throws Exception {
        try (Pair p = connect()) {
            SilentConnectionReaper.Watched w = reaper.watch(p.served());
            long until = System.nanoTime() + 3L * IDLE_MILLIS * 1_000_000;
            while (System.nanoTime() < until) {
                w.heard(); // a frame every 100 ms: never silent for the hello's nor the idle time-out
                Thread.sleep(100);
            }
            assertTrue(reasons.isEmpty(), reasons.toString());
            assertFalse(p.served().isClosed());
            p.served().getOutputStream().write(7);
            assertEquals(7, p.client().getInputStream().read(), "still connected");
        }
    }

    @Test
    void closingTheReaperClosesEveryConnectionItWatchesAndAnyWatchedAfter() throws Exception {
        try (Pair talking = connect(); Pair late = connect()) {
            reaper.watch(talking.served()).heard();
            reaper.close(); // the lane closing
            assertTrue(TestNodes.closedByTheLane(talking.client(), Duration.ofSeconds(5)), "an open connection closed");
            reaper.watch(late.served()); // accepted as the lane closed
            assertTrue(TestNodes.closedByTheLane(late.client(), Duration.ofSeconds(5)), "a late connection closed");
        }
    }

    @Test
    void aForgottenConnectionIsLeftAlone() throws Exception {
        try (Pair p = connect()) {
            reaper.forget(reaper.watch(p.served()));
            Thread.sleep(2L * IDLE_MILLIS);
            assertTrue(reasons.isEmpty(), reasons.toString());
            assertFalse(p.served().isClosed());
        }
    }
}
