package io.sessionrep.core.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sessionrep.core.wire.MalformedMessageException;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * Coverage-guided fuzzing of {@link WireCodec#decode}: any bytes are a message or a
 * {@link MalformedMessageException}; and a decoded message encodes to bytes that decode to a message
 * with the same encoding (the decoder accepts nothing the encoder cannot say). Seeds: a valid message
 * of every type ({@code WireCodecFuzzTestInputs/}). Long run:
 * <pre>JAZZER_FUZZ=1 JAZZER_MAX_DURATION=30m mvn -B -pl session-manager test -Dtest='WireCodecFuzzTest'</pre>
 */
class WireCodecFuzzTest {

    @FuzzTest(maxDuration = "5s")
    void decodeAnyBytes(byte[] input) throws MalformedMessageException {
        Message message;
        try {
            message = WireCodec.decode(input);
        } catch (MalformedMessageException rejected) {
            return;
        }
        byte[] encoded = WireCodec.encode(message);
        assertArrayEquals(encoded, WireCodec.encode(WireCodec.decode(encoded)));
    }
}
