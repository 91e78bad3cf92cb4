package io.sessionrep.transport.jgroups.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The deadlines that stand in for socket time-outs on the lane's client side, on real loopback sockets: a read that
 * blocks without a socket time-out is ended by its deadline (the socket closed, the deadline expired), and an exchange
 * that finishes in time keeps its connection.
 */
@Timeout(30)
class ReplyDeadlinesTest {

    private final ReplyDeadlines deadlines = new ReplyDeadlines("test-deadlines");
    private final ServerSocket server;
    private final Socket client;
    private final Socket served;

    ReplyDeadlinesTest() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        client = new Socket(server.getInetAddress(), server.getLocalPort());
        served = server.accept();
    }

    @AfterEach
    void close() throws IOException {
        deadlines.close();
        client.close();
        served.close();
        server.close();
    }

    @Test
    void aReadThatGetsNothingIsEndedByItsDeadline() {
        long started = System.nanoTime();
        ReplyDeadlines.Deadline d = deadlines.start(client, 200);
        long waited = millisUntilTheReadFails(started);
        assertTrue(waited >= 190 && waited < 5_000, "ended after " + waited + " ms");
        assertTrue(d.expired());
        assertTrue(client.isClosed());
        assertFalse(deadlines.finish(d), "too late: the connection is not to be used again");
    }

    @Test
    void aDeadlineStillEndsAReadAfterTheThreadParkedForWantOfExchanges() throws Exception {
        ReplyDeadlines.Deadline first = deadlines.start(client, 100);
        assertTrue(deadlines.finish(first));
        Thread.sleep(500); // the thread woke at the finished exchange's deadline, found none in flight, and parked
        ReplyDeadlines.Deadline d = deadlines.start(client, 200);
        assertThrows(IOException.class, () -> client.getInputStream().read(), "the blocked read fails once closed");
        assertTrue(d.expired());
    }

    @Test
    void aDeadlineCutShortEndsTheReadAfterTheGraceAndSaysSo() {
        long started = System.nanoTime();
        ReplyDeadlines.Deadline d = deadlines.start(client, 20_000);
        deadlines.cutShort(d, 100); // the reply is no longer needed
        long waited = millisUntilTheReadFails(started);
        assertTrue(waited >= 90 && waited < 5_000, "ended after " + waited + " ms, not at the 20 s deadline");
        assertTrue(d.expired());
        assertTrue(d.cut(), "given up, not timed out");
    }

    /** A deadline earlier than the one the thread sleeps towards wakes it: it is kept to, not the later one. */
    @Test
    void anEarlierDeadlineStartedAfterALaterOneIsKept() throws Exception {
        try (Socket other = new Socket(server.getInetAddress(), server.getLocalPort()); Socket otherServed = server.accept()) {
            ReplyDeadlines.Deadline late = deadlines.start(other, 20_000);
            Thread.sleep(100); // the thread sleeps towards the 20 s deadline
            long started = System.nanoTime();
            ReplyDeadlines.Deadline early = deadlines.start(client, 200);
            long waited = millisUntilTheReadFails(started);
            assertTrue(waited >= 190 && waited < 5_000, "ended after " + waited + " ms");
            assertTrue(early.expired());
            assertTrue(deadlines.finish(late), "the later exchange is still within its deadline");
            assertFalse(other.isClosed());
        }
    }

    /** Blocks in a read of the client's socket until the deadline closes it; milliseconds from {@code started}. */
    private long millisUntilTheReadFails(long started) {
        assertThrows(IOException.class, () -> client.getInputStream().read(), "the blocked read fails once closed");
        return (System.nanoTime() - started) / 1_000_000;
    }

    @Test
    void aCutThatComesLaterThanTheDeadlineChangesNothing() {
        ReplyDeadlines.Deadline d = deadlines.start(client, 200);
        deadlines.cutShort(d, 10_000);
        assertThrows(IOException.class, () -> client.getInputStream().read());
        assertTrue(d.expired());
        assertFalse(d.cut(), "it timed out at its own deadline");
    }

    @Test
    void anExchangeThatEndsInTimeKeepsItsConnection() throws Exception {
        ReplyDeadlines.Deadline d = deadlines.start(client, 300);
        served.getOutputStream().write(9);
        assertEquals(9, client.getInputStream().read());
        assertTrue(deadlines.finish(d));
        Thread.sleep(600); // past the deadline: nothing happens to a finished exchange
        assertFalse(d.expired());
        assertFalse(client.isClosed());
        served.getOutputStream().write(10);
        assertEquals(10, client.getInputStream().read(), "still connected");
    }
}
