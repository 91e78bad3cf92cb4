package io.sessionrep.core.serial;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The deserialization attacks a member could send, each rejected quickly (the timeout is only a guard against a
 * hang) as a checked exception, and followed by a valid value decoding correctly on the same serializer.
 * On the code before this change each one hung, overflowed the stack, allocated gigabytes or, for the
 * last one, made a later valid value fail.
 */
class DeserializationAttackTest {
    private static final Duration HANG_GUARD = Duration.ofSeconds(10);

    private final KryoSessionSerializer serializer = new KryoSessionSerializer(
            ClassAllowlist.of(List.of("io.sessionrep.core.serial.")), getClass().getClassLoader());

    record Basket(String owner, List<String> items, Map<String, Integer> counts) implements Serializable {
    }

    private final Basket valid = new Basket("alice", new ArrayList<>(List.of("book", "pen")),
            new HashMap<>(Map.of("book", 1, "pen", 2)));

    private void rejectedThenStillWorking(byte[] hostile) {
        assertTimeoutPreemptively(HANG_GUARD, () -> {
            assertThrows(IOException.class, () -> serializer.deserialize(hostile));
            assertEquals(valid, serializer.deserialize(serializer.serialize(valid)));
        });
    }

    @Test
    void serialDosNestedHashSetsSharingReferencesAreRejected() {
        byte[] attack = HostileValues.serialDos(100);
        assertTrue(attack.length < 2000, "about 1.6 KB: " + attack.length);
        rejectedThenStillWorking(attack);
    }

    /** An allowlisted class with Java serialization hooks, so that its bytes go through the Java fallback. */
    static final class Hooked implements Serializable {
        private void readObject(java.io.ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
        }
    }

    @Test
    void serialDosInsideTheJavaSerializationFallbackIsRejected() {
        // Java serialization keeps shared references, so the shape survives there: the fallback's depth
        // limit (20) rejects it before the sets are rebuilt
        rejectedThenStillWorking(HostileValues.javaBlobAs(Hooked.class.getName(), HostileValues.serialDosSet(100)));
    }

    @Test
    void hashingASharedGraphInsideTheJavaFallbackIsRefusedBeforeAnyHashing() {
        // 16 levels of 6 shared children, within the depth limit: about 3 * 10^12 list hashes for the map to rebuild
        // itself (before hash-based collections were refused here, this one hung the reading thread)
        byte[] attack = HostileValues.javaBlobBytesAs(Hooked.class.getName(), HostileValues.concurrentHashMapOfSharedLists(16, 6));
        assertTrue(attack.length < 1000, "a few hundred bytes: " + attack.length);
        long started = System.nanoTime();
        rejectedThenStillWorking(attack);
        long millis = (System.nanoTime() - started) / 1_000_000;
        assertTrue(millis < 100, "refused in " + millis + " ms");
        for (Object hashed : List.of(new HashSet<>(Set.of("k")), new java.util.LinkedHashMap<>(Map.of("k", "v")),
                new java.util.Hashtable<>(Map.of("k", "v")), new java.util.concurrent.ConcurrentHashMap<>(Map.of("k", "v")))) {
            assertThrows(Exception.class, () -> serializer.deserialize(HostileValues.javaBlobAs(Hooked.class.getName(), hashed)),
                    hashed.getClass().getName()); // refused as hash-based, or outside the allowlist (Hashtable)
        }
    }

    @Test
    void aValueOfTheJavaFallbackHoldingAHashBasedCollectionIsRefusedOnThePrimaryWithWhatToDo() throws Exception {
        UnsupportedValueException refused = assertThrows(UnsupportedValueException.class,
                () -> serializer.serialize(new HookedHolder(new HashMap<>(Map.of("k", "v")))));
        assertEquals(HookedHolder.class.getName(), refused.className());
        assertTrue(refused.getMessage().contains("holds a java.util.HashMap") && refused.getMessage().contains("TreeMap"),
                refused.getMessage());
        Object sorted = new HookedHolder(new java.util.TreeMap<>(Map.of("k", "v")));
        assertEquals(java.util.TreeMap.class,
                ((HookedHolder) serializer.deserialize(serializer.serialize(sorted))).content.getClass());
        Basket plain = new Basket("bob", new ArrayList<>(List.of("a")), new HashMap<>(Map.of("a", 1)));
        assertEquals(plain, serializer.deserialize(serializer.serialize(plain)), "without hooks a HashMap travels as usual");
    }

    @Test
    void aJavaSerializedValueNestedBeyondTheFallbacksLimitIsRefusedOnThePrimary() {
        Object deep = new Hooked();
        for (int i = 0; i < FilteredJavaSerializer.MAX_DEPTH; i++) {
            deep = new ArrayList<>(List.of(deep));
        }
        Object value = new HookedHolder(deep);
        UnsupportedValueException refused = assertThrows(UnsupportedValueException.class, () -> serializer.serialize(value));
        assertEquals(HookedHolder.class.getName(), refused.className());
    }

    /** Java-serialized as a whole (it has a hook), holding a deep list. */
    static final class HookedHolder implements Serializable {
        final Object content;

        HookedHolder(Object content) {
            this.content = content;
        }

        private void writeObject(java.io.ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
        }
    }

    @Test
    void aSetHoldingAListThatContainsItselfIsRejected() {
        byte[] attack = HostileValues.selfContainingSet();
        assertTrue(attack.length < 64, "a few dozen bytes: " + attack.length);
        rejectedThenStillWorking(attack);
    }

    @Test
    void thousandsOfNestedListsAreRejectedBeforeTheStackRunsOut() {
        rejectedThenStillWorking(HostileValues.nestedLists(5_000));
    }

    @Test
    void nestingUpToTheLimitIsAccepted() throws Exception {
        Object deep = "bottom";
        for (int i = 0; i < SessionKryo.MAX_DEPTH - 2; i++) {
            deep = new ArrayList<>(List.of(deep));
        }
        assertEquals(deep, serializer.deserialize(serializer.serialize(deep)));
        Object deeper = new ArrayList<>(List.of(deep, deep));
        for (int i = 0; i < 3; i++) {
            deeper = new ArrayList<>(List.of(deeper));
        }
        Object tooDeep = deeper;
        UnsupportedValueException refused = assertThrows(UnsupportedValueException.class, () -> serializer.serialize(tooDeep));
        assertTrue(refused.getMessage().contains("nested deeper than"), refused.getMessage());
    }

    @Test
    void aTenByteValueDeclaringATwoGigabyteArrayIsRejectedWithoutAllocating() {
        byte[] attack = HostileValues.hugeLongArray(Integer.MAX_VALUE / 8 - 16);
        assertTrue(attack.length <= 10, "10 bytes: " + attack.length);
        rejectedThenStillWorking(attack);
        rejectedThenStillWorking(HostileValues.hugeObjectArray(Integer.MAX_VALUE - 16));
        rejectedThenStillWorking(HostileValues.hugeString(Integer.MAX_VALUE - 16));
    }

    @Test
    void aCollectionDeclaringTwoToTheTwentyNineElementsIsRejectedWithoutAllocating() {
        rejectedThenStillWorking(HostileValues.hugeNullList(1 << 29));
        rejectedThenStillWorking(HostileValues.hugeList(1 << 29));
    }

    @Test
    void hashFloodingWithCollidingListsIsRejectedBeforeTheSetIsBuilt() {
        // 60,000 lists sharing one hash code: about 0.5 MB, minutes of equals calls when inserted
        byte[] attack = HostileValues.hashFlood(60_000);
        assertTrue(attack.length < 1024 * 1024, "within the default max-session-size: " + attack.length);
        rejectedThenStillWorking(attack);
        rejectedThenStillWorking(HostileValues.hashFlood(HashFlood.MAX_EQUAL_HASHES + 1));
    }

    @Test
    void aHashSetWithTooManyCollidingElementsIsRefusedOnThePrimary() throws Exception {
        Set<Object> colliding = new HashSet<>();
        Map<Object, Object> collidingKeys = new HashMap<>();
        for (int i = 0; i <= HashFlood.MAX_EQUAL_HASHES; i++) {
            colliding.add(new ArrayList<>(List.of(i, -31 * i)));
            collidingKeys.put(new ArrayList<>(List.of(i, -31 * i)), i);
        }
        UnsupportedValueException refused = assertThrows(UnsupportedValueException.class, () -> serializer.serialize(colliding));
        assertEquals(ArrayList.class.getName(), refused.className());
        assertThrows(UnsupportedValueException.class, () -> serializer.serialize(collidingKeys));
        colliding.remove(new ArrayList<>(List.of(0, 0)));
        assertEquals(colliding, serializer.deserialize(serializer.serialize(colliding)), "up to the bound it replicates");
    }

    @Test
    void aFailedReadInsideAGenericFieldDoesNotPoisonTheNextRead() throws Exception {
        // Kryo issue #1281: a read failing inside a generic field (List<String>, Map<String, Integer>)
        // leaves its generics stack behind; the pooled instance then decoded the next value wrong.
        byte[] bytes = serializer.serialize(valid);
        for (int cut = 1; cut < bytes.length; cut++) {
            byte[] truncated = Arrays.copyOf(bytes, cut);
            assertThrows(IOException.class, () -> serializer.deserialize(truncated));
            assertEquals(valid, serializer.deserialize(bytes), "after a read that failed at byte " + cut);
        }
        for (int at = 0; at < bytes.length; at++) {
            byte[] corrupted = bytes.clone();
            corrupted[at] ^= (byte) 0xA5;
            try {
                serializer.deserialize(corrupted);
            } catch (IOException | ClassNotAllowedException expected) {
                // most corruptions are refused; some decode to another valid value
            }
            assertEquals(valid, serializer.deserialize(bytes), "after a corruption at byte " + at);
        }
    }

    @Test
    void sharedReferencesArriveAsEqualCopiesAndCyclesAreRefusedOnThePrimary() throws Exception {
        List<String> shared = new ArrayList<>(List.of("x"));
        Map<String, Object> value = new HashMap<>(Map.of("a", shared, "b", shared));
        @SuppressWarnings("unchecked")
        Map<String, Object> back = (Map<String, Object>) serializer.deserialize(serializer.serialize(value));
        assertEquals(value, back);

        List<Object> cyclic = new ArrayList<>();
        cyclic.add(cyclic);
        assertThrows(UnsupportedValueException.class, () -> serializer.serialize(cyclic));
        Set<Object> selfHolding = new HashSet<>();
        List<Object> inner = new ArrayList<>();
        selfHolding.add(inner);
        inner.add(selfHolding);
        assertThrows(UnsupportedValueException.class, () -> serializer.serialize(inner));
        assertEquals(valid, serializer.deserialize(serializer.serialize(valid)));
    }

    @Test
    void everyAttackBackToBackLeavesTheSerializerWorking() {
        Executable all = () -> {
            for (byte[] attack : List.of(HostileValues.serialDos(100), HostileValues.selfContainingSet(),
                    HostileValues.nestedLists(5_000), HostileValues.hugeLongArray(1 << 28),
                    HostileValues.hugeNullList(1 << 29))) {
                assertThrows(IOException.class, () -> serializer.deserialize(attack));
            }
            assertEquals(valid, serializer.deserialize(serializer.serialize(valid)));
        };
        assertTimeoutPreemptively(HANG_GUARD, all);
    }
}
