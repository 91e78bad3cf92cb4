package io.sessionrep.transport.jgroups.lane;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sessionrep.transport.jgroups.lane.LaneFrames.MalformedLaneFrame;
import io.sessionrep.transport.jgroups.lane.LaneFrames.Reply;
import io.sessionrep.transport.jgroups.lane.LaneFrames.Request;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Coverage-guided fuzzing of what the data lane reads from a socket before anything else looks at it (without
 * {@code cluster-key}: with it, bytes that do not open are refused before they are parsed). Any bytes, read as a
 * connection's stream, are frames up to a {@link MalformedLaneFrame} or the end of the stream, nothing else (no other
 * exception, no allocation beyond the lane's frame bound); every frame read writes back to bytes that read as the same
 * frame (the reader accepts nothing the writer cannot say). Seeds: valid streams ({@code LaneFramesFuzzTestInputs/}).
 * Long run: <pre>JAZZER_FUZZ=1 JAZZER_MAX_DURATION=30m mvn -B -pl replication-transport test -Dtest='LaneFramesFuzzTest#readAnyServerStream'</pre>
 */
class LaneFramesFuzzTest {

    private static final LaneFrames PLAIN = new LaneFrames(null);
    /** Plain frames are bound to nothing: any link reads and writes them alike. */
    private static final LaneLink LINK = LaneLink.atClient(new org.jgroups.util.UUID(1, 2), new org.jgroups.util.UUID(3, 4));

    /** A backup's side: a hello, then requests and one-way batches, as {@code LaneServer} reads them. */
    @FuzzTest(maxDuration = "5s")
    void readAnyServerStream(byte[] input) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(input));
        try {
            PLAIN.readHello(in);
            while (true) {
                Request request = PLAIN.readRequest(in, LINK);
                if (request.kind() == LaneFrames.ONE_WAYS) {
                    List<byte[]> messages = request.oneWays();
                    assertOneWaysRoundTrip(request, messages);
                } else {
                    assertRequestRoundTrip(request);
                }
            }
        } catch (EOFException | MalformedLaneFrame end) {
            // the stream ended, or the lane would close the connection here
        }
    }

    /** A primary's side: the answers it reads ({@code LaneClient}, {@code OneWayPipe}). */
    @FuzzTest(maxDuration = "5s")
    void readAnyReplyStream(byte[] input) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(input));
        try {
            while (true) {
                Reply reply = PLAIN.readReply(in, LINK, LaneFrames.MAX_PAYLOAD);
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                PLAIN.writeReply(new DataOutputStream(bytes), LINK, reply.exchange(), reply.status(), reply.payload());
                Reply again = PLAIN.readReply(streamOf(bytes), LINK, LaneFrames.MAX_PAYLOAD);
                assertEquals(reply.exchange(), again.exchange());
                assertEquals(reply.status(), again.status());
                assertArrayEquals(reply.payload(), again.payload());
            }
        } catch (EOFException | MalformedLaneFrame end) {
            // the stream ended, or the client would drop the connection here
        }
    }

    private static void assertRequestRoundTrip(Request request) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PLAIN.writeRequest(new DataOutputStream(bytes), LINK, request.exchange(), request.sentBefore(), request.waitMillis(),
                request.payload());
        Request again = readOne(bytes);
        assertEquals(request.exchange(), again.exchange());
        assertEquals(request.sentBefore(), again.sentBefore());
        assertEquals(request.waitMillis(), again.waitMillis());
        assertEquals(request.kind(), again.kind());
        assertArrayEquals(request.payload(), again.payload());
    }

    private static void assertOneWaysRoundTrip(Request request, List<byte[]> messages) throws IOException {
        long messageBytes = 0;
        for (byte[] m : messages) {
            messageBytes += m.length;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PLAIN.writeOneWays(new DataOutputStream(bytes), LINK, request.exchange(), request.sentBefore(), request.waitMillis(),
                messages, LaneFrames.oneWaysLength(messages.size(), messageBytes));
        Request again = readOne(bytes);
        assertEquals(request.exchange(), again.exchange());
        assertEquals(request.sentBefore(), again.sentBefore());
        assertEquals(request.waitMillis(), again.waitMillis());
        assertEquals(LaneFrames.ONE_WAYS, again.kind());
        List<byte[]> messagesAgain = again.oneWays();
        assertEquals(messages.size(), messagesAgain.size());
        for (int i = 0; i < messages.size(); i++) {
            assertArrayEquals(messages.get(i), messagesAgain.get(i));
        }
    }

    private static Request readOne(ByteArrayOutputStream bytes) throws IOException {
        try {
            return PLAIN.readRequest(streamOf(bytes), LINK);
        } catch (MalformedLaneFrame e) {
            throw new AssertionError("a request written from a parsed one does not parse: " + e.getMessage(), e);
        }
    }

    private static DataInputStream streamOf(ByteArrayOutputStream bytes) {
        return new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
    }
}
