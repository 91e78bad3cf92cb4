package io.sessionrep.transport.jgroups;

import io.sessionrep.transport.jgroups.WireFormat.Frame;
import io.sessionrep.transport.jgroups.WireFormat.Kind;
import io.sessionrep.transport.jgroups.WireFormat.MalformedFrameException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WireFormatTest {

    @Test
    void roundTripsEveryKindWithLargeIdsAndAnOffset() throws Exception {
        byte[] payload = {1, 2, 3, -1};
        for (Kind kind : Kind.values()) {
            byte[] frame = WireFormat.encode(kind, Long.MIN_VALUE + 7, payload);
            byte[] shifted = new byte[frame.length + 5];
            System.arraycopy(frame, 0, shifted, 3, frame.length);

            Frame decoded = WireFormat.decode(shifted, 3, frame.length);

            assertEquals(kind, decoded.kind());
            assertEquals(Long.MIN_VALUE + 7, decoded.correlationId());
            assertArrayEquals(payload, decoded.payload());
        }
    }

    @Test
    void emptyPayloadAndFailureText() throws Exception {
        assertEquals(0, WireFormat.decode(WireFormat.encode(Kind.ONE_WAY, 0, new byte[0]), 0,
                WireFormat.HEADER_BYTES).payload().length);
        byte[] failure = WireFormat.encodeFailure(9, "no reply ü");
        assertEquals("no reply ü", WireFormat.decode(failure, 0, failure.length).payloadAsText());
    }

    @Test
    void rejectsTruncatedForeignVersionAndUnknownKind() {
        byte[] frame = WireFormat.encode(Kind.REQUEST, 1, "x".getBytes(StandardCharsets.UTF_8));
        assertThrows(MalformedFrameException.class, () -> WireFormat.decode(frame, 0, WireFormat.HEADER_BYTES - 1));

        byte[] otherVersion = frame.clone();
        otherVersion[0] = 2;
        MalformedFrameException e = assertThrows(MalformedFrameException.class,
                () -> WireFormat.decode(otherVersion, 0, otherVersion.length));
        assertTrue(e.getMessage().contains("version 2"), e.getMessage());

        byte[] unknownKind = frame.clone();
        unknownKind[1] = 42;
        assertThrows(MalformedFrameException.class, () -> WireFormat.decode(unknownKind, 0, unknownKind.length));
    }
}
