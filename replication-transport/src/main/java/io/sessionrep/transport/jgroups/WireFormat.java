package io.sessionrep.transport.jgroups;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The frame this transport puts around the core's bytes: a fixed header of {@value #HEADER_BYTES} bytes,
 * then the payload.
 * <pre>
 * byte 0     format version ({@value #VERSION})
 * byte 1     kind: 0 one-way, 1 request, 2 reply, 3 failure (the reply to a request that got none)
 * bytes 2-9  correlation id, big-endian (0 for one-way messages)
 * bytes 10-  payload: the core's bytes; for a failure, the reason in UTF-8
 * </pre>
 */
final class WireFormat {

    static final byte VERSION = 1;
    static final int HEADER_BYTES = 10;

    enum Kind {
        ONE_WAY, REQUEST, REPLY, FAILURE;

        private static final Kind[] BY_CODE = values();
    }

    /** A decoded frame; {@code payload} is a copy the receiver may keep. */
    record Frame(Kind kind, long correlationId, byte[] payload) {
        String payloadAsText() {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    /** A frame that cannot be read; the message says why. */
    static final class MalformedFrameException extends Exception {
        MalformedFrameException(String message) {
            super(message);
        }
    }

    private WireFormat() {
    }

    static byte[] encode(Kind kind, long correlationId, byte[] payload) {
        byte[] frame = new byte[HEADER_BYTES + payload.length];
        frame[0] = VERSION;
        frame[1] = (byte) kind.ordinal();
        for (int i = 0; i < 8; i++) {
            frame[2 + i] = (byte) (correlationId >>> (56 - 8 * i));
        }
        System.arraycopy(payload, 0, frame, HEADER_BYTES, payload.length);
        return frame;
    }

    static byte[] encodeFailure(long correlationId, String reason) {
        return encode(Kind.FAILURE, correlationId, reason.getBytes(StandardCharsets.UTF_8));
    }

    static Frame decode(byte[] buffer, int offset, int length) throws MalformedFrameException {
        if (buffer == null || length < HEADER_BYTES) {
            throw new MalformedFrameException("frame of " + length + " bytes is shorter than the "
                    + HEADER_BYTES + "-byte header");
        }
        if (buffer[offset] != VERSION) {
            throw new MalformedFrameException("frame version " + buffer[offset] + " is not supported; this node "
                    + "speaks version " + VERSION + " (mixed releases in one cluster?)");
        }
        int code = buffer[offset + 1];
        if (code < 0 || code >= Kind.BY_CODE.length) {
            throw new MalformedFrameException("frame kind " + code + " is unknown");
        }
        long id = 0;
        for (int i = 0; i < 8; i++) {
            id = (id << 8) | (buffer[offset + 2 + i] & 0xffL);
        }
        byte[] payload = Arrays.copyOfRange(buffer, offset + HEADER_BYTES, offset + length);
        return new Frame(Kind.BY_CODE[code], id, payload);
    }
}
