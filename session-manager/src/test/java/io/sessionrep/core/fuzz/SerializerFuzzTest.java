package io.sessionrep.core.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sessionrep.core.serial.ClassNotAllowedException;
import io.sessionrep.core.serial.KryoSessionSerializer;
import io.sessionrep.core.serial.UnsupportedValueException;
import io.sessionrep.core.serial.Verdicts;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Coverage-guided fuzzing of the serializer's read path, and of its round trip.
 * <ul>
 *   <li>{@link #decodeAnyBytes}: any bytes are a value or a {@link ClassNotAllowedException} /
 *       {@link IOException} raised by a limit (an {@link OutOfMemoryError} or {@link StackOverflowError}
 *       turned into a rejection is a finding here); nothing takes longer than Jazzer's per-input timeout. Seeds: {@code SerializerFuzzTestInputs/}.</li>
 *   <li>{@link #roundTripOfGeneratedValues}: nested values built from the fuzzer's data either are
 *       refused on write or come back equal and of the same class.</li>
 * </ul>
 * In {@code mvn test} both run on their seeds only; {@code mvn verify} also fuzzes each for
 * {@code maxDuration}. A long run (one fuzz test per JVM):
 * <pre>JAZZER_FUZZ=1 JAZZER_MAX_DURATION=30m mvn -B -pl session-manager test -Dtest='SerializerFuzzTest#decodeAnyBytes'</pre>
 * {@link #decodeAnyJavaSerializedValue} fuzzes the Java-serialization fallback alone (seeds: Java-serialized values
 * of a class with hooks, and the hash-rebuilding attack).
 */
class SerializerFuzzTest {
    private static final KryoSessionSerializer SERIALIZER = FuzzSeeds.serializer();

    @FuzzTest(maxDuration = "5s")
    void decodeAnyBytes(byte[] input) {
        String decoded;
        try {
            decoded = String.valueOf(SERIALIZER.deserialize(input) != null);
        } catch (ClassNotAllowedException rejected) {
            decoded = rejected.getClass().getSimpleName(); // refused and counted by the caller
        } catch (IOException rejected) {
            // refused and counted by the caller; but a limit must have refused it, not the JVM running out
            for (Throwable t = rejected; t != null; t = t.getCause()) {
                if (t instanceof VirtualMachineError error) {
                    throw new AssertionError("rejected only because the JVM ran out: " + error, rejected);
                }
            }
            decoded = rejected.getClass().getSimpleName();
        }
        assertEquals(decoded, Verdicts.ofCheck(SERIALIZER, input), "decodesToValue and deserialize disagree");
    }

    /**
     * Any bytes as the Java serialization of an allowlisted class with serialization hooks: what the Java
     * fallback reads is chosen by the sender. The same verdicts as {@link #decodeAnyBytes}, within the per-input
     * time-out: the fallback's work is bounded (no hash-based collection is rebuilt there).
     */
    @FuzzTest(maxDuration = "5s")
    void decodeAnyJavaSerializedValue(byte[] blob) {
        decodeAnyBytes(io.sessionrep.core.serial.HostileValues.javaBlobBytesAs(FuzzSeeds.Hooked.class.getName(), blob));
    }

    @FuzzTest(maxDuration = "5s")
    void roundTripOfGeneratedValues(FuzzedDataProvider data) throws Exception {
        Object value = generate(data, 0);
        byte[] bytes;
        try {
            bytes = SERIALIZER.serialize(value);
        } catch (UnsupportedValueException refused) {
            return; // refused on the primary: allowed, as long as what is written comes back exactly
        }
        Object back = SERIALIZER.deserialize(bytes);
        assertSame(value.getClass(), back.getClass());
        assertEquals(value, back);
    }

    /** A nested value of the shapes sessions hold, up to a few levels deep. */
    private static Object generate(FuzzedDataProvider data, int depth) {
        int kind = data.consumeInt(0, depth > 4 ? 3 : 13);
        return switch (kind) {
            case 0 -> data.consumeString(16);
            case 1 -> data.consumeLong();
            case 2 -> data.consumeBoolean();
            case 3 -> data.consumeDouble();
            case 4 -> fill(new ArrayList<>(), data, depth);
            case 5 -> fill(new LinkedList<>(), data, depth);
            case 6 -> fill(new HashSet<>(), data, depth);
            case 7 -> new TreeSet<>(List.of(data.consumeString(8), data.consumeString(8)));
            case 8 -> fillMap(new HashMap<>(), data, depth);
            case 9 -> fillMap(new LinkedHashMap<>(), data, depth);
            case 10 -> new TreeMap<>(Map.of(data.consumeString(4) + "k", generate(data, depth + 1)));
            case 11 -> Optional.of(generate(data, depth + 1));
            case 12 -> Collections.unmodifiableList(fill(new ArrayList<>(), data, depth));
            default -> List.copyOf(fill(new ArrayList<>(), data, depth));
        };
    }

    private static <C extends Collection<Object>> C fill(C collection, FuzzedDataProvider data, int depth) {
        for (int n = data.consumeInt(0, 4); n > 0; n--) {
            collection.add(generate(data, depth + 1));
        }
        return collection;
    }

    private static Map<Object, Object> fillMap(Map<Object, Object> map, FuzzedDataProvider data, int depth) {
        for (int n = data.consumeInt(0, 4); n > 0; n--) {
            map.put(data.consumeString(8), generate(data, depth + 1));
        }
        return map;
    }

}
