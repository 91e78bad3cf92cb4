package io.sessionrep.core.fuzz;

import io.sessionrep.core.wire.WireCodec;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The committed seed corpus is what {@link FuzzSeeds} generates and still decodes: valid messages
 * decode, valid values decode to what was written, attacks are rejected. If the formats change, run
 * {@link FuzzSeeds#main} again.
 */
class FuzzSeedsTest {

    @Test
    void committedMessageSeedsDecode() throws Exception {
        for (Map.Entry<String, byte[]> seed : FuzzSeeds.messages().entrySet()) {
            byte[] committed = committed("WireCodecFuzzTestInputs/decodeAnyBytes/" + seed.getKey());
            WireCodec.decode(committed);
            assertArrayEquals(committed, committed("ReceiverFuzzTestInputs/handleAnyMessage/" + seed.getKey()));
        }
    }

    @Test
    void committedValueSeedsDecodeToTheirValueOrAreRejected() throws Exception {
        var serializer = FuzzSeeds.serializer();
        Map<String, Object> values = FuzzSeeds.values();
        for (String name : FuzzSeeds.valueBytes().keySet()) {
            byte[] committed = committed("SerializerFuzzTestInputs/decodeAnyBytes/" + name);
            if (name.startsWith("value-")) {
                Object expected = values.get(name.substring(6).replace(FuzzSeeds.FIELD_ORDER_SUFFIX, ""));
                Object actual = serializer.deserialize(committed);
                if (expected instanceof Object[] array) {
                    assertEquals(array.length, ((Object[]) actual).length, name);
                } else {
                    assertEquals(expected, actual, name);
                }
            } else {
                assertThrows(IOException.class, () -> serializer.deserialize(committed), name);
            }
        }
    }

    @Test
    void committedJavaBlobSeedsAreTheGeneratedOnes() throws Exception {
        for (Map.Entry<String, byte[]> seed : FuzzSeeds.javaBlobs().entrySet()) {
            assertArrayEquals(seed.getValue(), committed("SerializerFuzzTestInputs/decodeAnyJavaSerializedValue/" + seed.getKey()),
                    seed.getKey());
        }
    }

    private static byte[] committed(String path) throws IOException {
        try (InputStream in = FuzzSeedsTest.class.getResourceAsStream(path)) {
            assertNotNull(in, "seed " + path + " is committed (run FuzzSeeds.main)");
            return in.readAllBytes();
        }
    }
}
