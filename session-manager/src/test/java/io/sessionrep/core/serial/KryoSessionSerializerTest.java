package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import org.junit.jupiter.api.Test;

import java.io.NotSerializableException;
import java.io.Serializable;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

class KryoSessionSerializerTest {
    private final ClassLoader loader = getClass().getClassLoader();
    private final KryoSessionSerializer jdkOnly = new KryoSessionSerializer(ClassAllowlist.of(List.of()), loader);
    private final KryoSessionSerializer withApp =
            new KryoSessionSerializer(ClassAllowlist.of(List.of("io.sessionrep.core.serial.")), loader);

    record Cart(String owner, List<String> items) implements Serializable {
    }

    static final class CustomHooks implements Serializable {
        transient String derived;
        String base = "b";

        private void readObject(java.io.ObjectInputStream in) throws java.io.IOException, ClassNotFoundException {
            in.defaultReadObject();
            derived = base + "!";
        }
    }

    static final class NotSerializable {
    }

    @Test
    void jdkValuesRoundTripWithoutConfiguration() throws Exception {
        Map<String, Object> value = new HashMap<>(Map.of("date", LocalDate.of(2026, 1, 2), "n", 5L,
                "list", new ArrayList<>(List.of("a", "b"))));
        assertEquals(value, jdkOnly.deserialize(jdkOnly.serialize(value)));
    }

    @Test
    void applicationClassesNeedTheirPackageInTheAllowlist() throws Exception {
        byte[] bytes = withApp.serialize(new Cart("alice", List.of("book")));
        assertEquals(new Cart("alice", List.of("book")), withApp.deserialize(bytes));
        ClassNotAllowedException refused = assertThrows(ClassNotAllowedException.class, () -> jdkOnly.deserialize(bytes));
        assertEquals(Cart.class.getName(), refused.className());
    }

    @Test
    void knownGadgetContainerIsRefused() throws Exception {
        PriorityQueue<String> queue = new PriorityQueue<>(List.of("x")); // classic deserialization gadget entry point
        assertThrows(UnsupportedValueException.class, () -> withApp.serialize(queue)); // never written by a primary
        byte[] bytes = HostileValues.plainKryoBytes(queue);
        ClassNotAllowedException refused = assertThrows(ClassNotAllowedException.class, () -> withApp.deserialize(bytes));
        assertEquals("java.util.PriorityQueue", refused.className());
    }

    @Test
    void classesWithCustomJavaSerializationUseTheFilteredFallback() throws Exception {
        CustomHooks back = (CustomHooks) withApp.deserialize(withApp.serialize(new CustomHooks()));
        assertEquals("b!", back.derived);
        assertThrows(ClassNotAllowedException.class, () -> jdkOnly.deserialize(withApp.serialize(new CustomHooks())));
    }

    @Test
    void nonSerializableValueIsReportedByClassName() {
        UnsupportedValueException e = assertThrows(UnsupportedValueException.class,
                () -> withApp.serialize(new ArrayList<>(List.of(new NotSerializable()))));
        assertEquals(NotSerializable.class.getName(), e.className());
        assertInstanceOf(NotSerializableException.class, e);
    }

    @Test
    void aByteArrayValueIsWrittenExactlyAsKryoWritesIt() throws Exception {
        SessionKryo kryo = new SessionKryo(ClassAllowlist.of(List.of()), loader, ValueFormat.FIELD_ORDER);
        Random random = new Random(11);
        for (int length : new int[] {0, 1, 126, 127, 128, 16_382, 16_383, 16_384, 51_200, 2_097_150, 2_097_151, 2_097_152}) {
            byte[] value = new byte[length];
            random.nextBytes(value);
            Output output = new Output(64, -1);
            kryo.writeClassAndObject(output, value);
            byte[] written = jdkOnly.serialize(value, ValueFormat.FIELD_ORDER);
            assertArrayEquals(output.toBytes(), written, "length " + length);
            assertArrayEquals(value, (byte[]) jdkOnly.deserialize(written), "length " + length);
            assertArrayEquals(value, (byte[]) kryo.readClassAndObject(new Input(written)), "length " + length);
            byte[] named = jdkOnly.serialize(value);
            assertArrayEquals(jdkOnly.writeThroughKryo(value, ValueFormat.NAMED_FIELDS), named, "length " + length);
            assertArrayEquals(value, (byte[]) jdkOnly.deserialize(named), "length " + length);
        }
    }

    @Test
    void aWholeByteArrayIsRecognizedWithoutDecodingAndEveryOtherShapeGetsDeserializesVerdict() throws Exception {
        for (ValueFormat format : ValueFormat.values()) {
            aWholeByteArrayIsRecognizedWithoutDecoding(format);
        }
    }

    private void aWholeByteArrayIsRecognizedWithoutDecoding(ValueFormat format) throws Exception {
        java.util.Random random = new java.util.Random(7);
        for (int length : new int[] {0, 1, 126, 127, 128, 16_383, 16_384, 51_200, 2_097_151, 2_097_152}) {
            byte[] value = new byte[length];
            random.nextBytes(value);
            byte[] bytes = jdkOnly.serialize(value, format);
            assertEquals(true, jdkOnly.isWholeByteArray(bytes), "length " + length);
            assertEquals(true, jdkOnly.decodesToValue(bytes));
            assertEquals(length, ((byte[]) jdkOnly.deserialize(bytes)).length);
            List<byte[]> variants = new ArrayList<>(List.of(
                    java.util.Arrays.copyOf(bytes, bytes.length - 1),   // one byte short
                    java.util.Arrays.copyOf(bytes, bytes.length + 1))); // one byte left over
            if (length > 0) {
                variants.add(java.util.Arrays.copyOf(bytes, bytes.length - length)); // the header and the length only
            }
            for (byte[] variant : variants) {
                assertEquals(false, jdkOnly.isWholeByteArray(variant), "length " + length + ", variant of " + variant.length);
                assertEquals(Verdicts.ofDeserialize(jdkOnly, variant), Verdicts.ofCheck(jdkOnly, variant), "length " + length);
            }
        }
        byte[] empty = jdkOnly.serialize(new byte[0], format);
        byte[] header = java.util.Arrays.copyOf(empty, empty.length - 1);
        byte[] nullArray = java.util.Arrays.copyOf(header, header.length + 1); // length + 1 = 0: a null array
        byte[] overlong = java.util.Arrays.copyOf(header, header.length + 6);  // a varint of six bytes
        java.util.Arrays.fill(overlong, header.length, overlong.length, (byte) 0x80);
        for (byte[] odd : List.of(nullArray, overlong, new byte[] {0}, jdkOnly.serialize("text", format),
                jdkOnly.serialize(List.of(new byte[3]), format))) {
            assertEquals(false, jdkOnly.isWholeByteArray(odd));
            assertEquals(Verdicts.ofDeserialize(jdkOnly, odd), Verdicts.ofCheck(jdkOnly, odd));
        }
        assertEquals("false", Verdicts.ofCheck(jdkOnly, nullArray)); // decodes to null: not a value a backup keeps
        assertEquals("true", Verdicts.ofCheck(jdkOnly, jdkOnly.serialize(List.of(new byte[3]), format))); // decoded in full
    }

    @Test
    void aNegativeClassIdIsRefusedByAFreshKryoAndByAUsedOne() throws Exception {
        // a list of two elements whose first class id is the varint ff ff ff ff ff (-1): a fresh Kryo 5.6 read
        // it as null (its memoized id starts at -1), a used one failed or read another value
        byte[] header = java.util.Arrays.copyOf(jdkOnly.serialize(new ArrayList<>(List.of(1)), ValueFormat.FIELD_ORDER), 21); // 01 00 "java.util.ArrayList"
        byte[] hostile = java.util.Arrays.copyOf(header, header.length + 9);
        byte[] tail = {0x03, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x08, (byte) 0xe4, 0x00};
        System.arraycopy(tail, 0, hostile, header.length, tail.length);
        KryoSessionSerializer fresh = new KryoSessionSerializer(ClassAllowlist.of(List.of()), loader);
        String first = Verdicts.ofDeserialize(fresh, hostile);
        fresh.deserialize(fresh.serialize("used")); // the pooled Kryo has now resolved a class id
        assertEquals("IOException", first);
        assertEquals(first, Verdicts.ofDeserialize(fresh, hostile));
    }
}
