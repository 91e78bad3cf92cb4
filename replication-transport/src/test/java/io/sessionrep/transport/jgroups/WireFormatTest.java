package io.sessionrep.transport.jgroups;

import io.sessionrep.transport.jgroups.WireFormat.Frame;
import io.sessionrep.transport.jgroups.WireFormat.Kind;
import io.sessionrep.transport.jgroups.WireFormat.MalformedFrameException;
import org.jgroups.BytesMessage;
import org.jgroups.Message;
import org.jgroups.util.ByteArray;
import org.jgroups.util.Util;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The frame header and payload as JGroups serializes them, and what a receiver refuses. */
class WireFormatTest {

    /** What the receiving node's stack makes of a message: JGroups' own serialization, there and back. */
    private static Message overTheWire(Message sent) throws Exception {
        ByteArray bytes = Util.messageToBuffer(sent);
        return Util.messageFromBuffer(bytes.getArray(), bytes.getOffset(), bytes.getLength());
    }

    @Test
    void everyKindWithLargeIdsSurvivesJGroupsSerialization() throws Exception {
        byte[] payload = {1, 2, 3, -1};
        for (Kind kind : Kind.values()) {
            Message sent = WireFormat.message(null, kind, Long.MIN_VALUE + 7, payload);
            assertSame(payload, sent.getArray(), "the sender's array goes out as is, no frame copy");

            Frame decoded = WireFormat.read(overTheWire(sent));

            assertEquals(kind, decoded.kind());
            assertEquals(Long.MIN_VALUE + 7, decoded.correlationId());
            assertArrayEquals(payload, decoded.payload());
        }
    }

    @Test
    void aReceivedArrayThatIsExactlyThePayloadIsHandedOverAndASliceIsCopied() throws Exception {
        Message whole = WireFormat.message(null, Kind.ONE_WAY, 0, new byte[]{5, 6, 7});
        assertSame(whole.getArray(), WireFormat.read(whole).payload());

        Message slice = new BytesMessage(null, new byte[]{9, 5, 6, 7, 9}, 1, 3)
                .putHeader(WireFormat.HEADER_ID, new WireFormat.FrameHeader(WireFormat.VERSION, Kind.ONE_WAY.ordinal(), 0));
        byte[] payload = WireFormat.read(slice).payload();
        assertArrayEquals(new byte[]{5, 6, 7}, payload);
        assertNotSame(slice.getArray(), payload);
    }

    @Test
    void theHeaderClassHoldsItsMagicId() {
        WireFormat.registerHeader(); // throws if the magic id were taken by another header class
    }

    @Test
    void emptyPayloadAndFailureText() throws Exception {
        assertEquals(0, WireFormat.read(overTheWire(WireFormat.message(null, Kind.ONE_WAY, 0, new byte[0]))).payload().length);
        Frame failure = WireFormat.read(overTheWire(WireFormat.failure(null, 9, "no reply ü")));
        assertEquals(Kind.FAILURE, failure.kind());
        assertEquals("no reply ü", failure.payloadAsText());
    }

    @Test
    void refusesAMessageWithoutOurHeaderAForeignVersionAndAnUnknownKind() throws Exception {
        byte[] x = "x".getBytes(StandardCharsets.UTF_8);
        MalformedFrameException none = assertThrows(MalformedFrameException.class,
                () -> WireFormat.read(new BytesMessage(null, x)));
        assertTrue(none.getMessage().contains("without a sessionrep frame header"), none.getMessage());

        MalformedFrameException version = assertThrows(MalformedFrameException.class,
                () -> WireFormat.read(withHeader(x, WireFormat.VERSION + 1, 1)));
        assertTrue(version.getMessage().contains("version " + (WireFormat.VERSION + 1)), version.getMessage());

        assertThrows(MalformedFrameException.class, () -> WireFormat.read(withHeader(x, WireFormat.VERSION, 42)));
        assertThrows(MalformedFrameException.class, () -> WireFormat.read(withHeader(x, WireFormat.VERSION, -1)));
    }

    /** A message whose header was forged byte by byte, read back by JGroups as the receiver would. */
    private static Message withHeader(byte[] payload, int version, int kind) throws Exception {
        Message forged = WireFormat.message(null, Kind.ONE_WAY, 1, payload);
        forged.putHeader(WireFormat.HEADER_ID, new WireFormat.FrameHeader((byte) version, kind, 1));
        return overTheWire(forged);
    }
}
