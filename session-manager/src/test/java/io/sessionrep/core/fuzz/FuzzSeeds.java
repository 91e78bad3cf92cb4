package io.sessionrep.core.fuzz;

import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.serial.ClassAllowlist;
import io.sessionrep.core.serial.HostileValues;
import io.sessionrep.core.serial.KryoSessionSerializer;
import io.sessionrep.core.serial.ValueFormat;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;

import java.io.IOException;
import java.io.NotSerializableException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Structure-aware seeds for the fuzz tests: attribute values (nested collections of every shape the
 * serializer rebuilds, plus the attacks) and valid wire messages of every type, carrying such
 * values. {@link #main} writes them to the seed directories Jazzer reads in regression mode and starts
 * fuzzing from ({@code src/test/resources/io/sessionrep/core/fuzz/<Test>Inputs/<method>/});
 * {@link FuzzSeedsTest} checks that the committed seeds still decode.
 *
 * Regenerate after a format change: run {@code FuzzSeeds.main} with the test class path from
 * {@code session-manager/} (it writes under {@code src/test/resources}).
 */
public final class FuzzSeeds {
    /** The serializer the fuzz tests decode with: JDK types plus this package's test classes. */
    static KryoSessionSerializer serializer() {
        return new KryoSessionSerializer(ClassAllowlist.of(List.of("io.sessionrep.core.fuzz.")),
                FuzzSeeds.class.getClassLoader());
    }

    enum Kind { A, B }

    /** An application class with Java serialization hooks: its values take the Java-serialization fallback. */
    static final class Hooked implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        Object content;

        Hooked(Object content) {
            this.content = content;
        }

        private void readObject(java.io.ObjectInputStream in) throws java.io.IOException, ClassNotFoundException {
            in.defaultReadObject();
        }
    }

    /** Java serialization blobs the fallback reads: values of {@link Hooked}, and the hash-rebuilding attack. */
    static Map<String, byte[]> javaBlobs() {
        Map<String, byte[]> blobs = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : Map.<String, Object>of("list", new ArrayList<>(List.of("a", 1, 2L)),
                "tree-map", new TreeMap<>(Map.of("k", new LinkedList<>(List.of(3)))), "cart", values().get("cart"),
                "nested", new Hooked(new Hooked("in"))).entrySet()) {
            java.io.ByteArrayOutputStream blob = new java.io.ByteArrayOutputStream();
            try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(blob)) {
                out.writeObject(new Hooked(e.getValue()));
            } catch (IOException x) {
                throw new java.io.UncheckedIOException(x);
            }
            blobs.put("hooked-" + e.getKey(), blob.toByteArray());
        }
        blobs.put("attack-concurrent-hash-map-of-shared-lists", HostileValues.concurrentHashMapOfSharedLists(16, 6));
        return blobs;
    }

    /** An application record, in the named-fields format written by component name. */
    record Line(String sku, int quantity, Kind kind) implements java.io.Serializable {
    }

    /** An application class holding the others, each field framed in the named-fields format. */
    static final class Cart implements java.io.Serializable {
        private static final long serialVersionUID = 7L;
        String owner;
        List<Line> lines;
        long total;
        Kind kind;

        Cart(String owner, List<Line> lines, long total, Kind kind) {
            this.owner = owner;
            this.lines = lines;
            this.total = total;
            this.kind = kind;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Cart c && java.util.Objects.equals(owner, c.owner) && java.util.Objects.equals(lines, c.lines)
                    && total == c.total && kind == c.kind;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(owner, lines, total, kind);
        }
    }

    private FuzzSeeds() {
    }

    /** Valid attribute values of many shapes, nested. */
    static Map<String, Object> values() {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("string", "hello");
        values.put("long", 42L);
        values.put("list", new ArrayList<>(List.of("a", 1, 2.5, true)));
        values.put("nested-lists", new ArrayList<>(List.of(new ArrayList<>(List.of(new LinkedList<>(List.of(1, 2)))))));
        values.put("hash-set-of-sets", new HashSet<>(Set.of(new HashSet<>(Set.of("x")), new HashSet<>(Set.of("y", "z")))));
        values.put("map-of-lists", new HashMap<>(Map.of("k", new ArrayList<>(List.of(1L, 2L)), "m", Map.of("n", Set.of()))));
        values.put("tree-map", new TreeMap<>(Map.of("b", 2, "a", 1)));
        values.put("tree-set", new TreeSet<>(List.of(3, 1, 2)));
        values.put("linked", new LinkedHashMap<>(Map.of("o", new LinkedHashSet<>(List.of("p", "q")))));
        values.put("immutables", List.of(List.of(1), Set.of(2, 3, 4), Map.of("a", 1)));
        values.put("unmodifiable", Collections.unmodifiableMap(new HashMap<>(Map.of("u",
                Collections.unmodifiableList(new ArrayList<>(List.of(Optional.of(LocalDate.of(2026, 1, 2)))))))));
        EnumMap<Kind, Object> enumMap = new EnumMap<>(Kind.class);
        enumMap.put(Kind.B, UUID.fromString("123e4567-e89b-12d3-a456-426614174000"));
        values.put("enum-map", enumMap);
        values.put("arrays", new Object[] {new int[] {1, 2}, new String[] {"s", null}, new byte[] {9}});
        values.put("time", new ArrayList<>(List.of(Instant.ofEpochSecond(1_700_000_000L, 5), Optional.empty())));
        values.put("cart", new Cart("ann", new ArrayList<>(List.of(new Line("A-1", 2, Kind.B), new Line("B-2", 1, null))),
                1_999L, Kind.A));
        values.put("carts", new ArrayList<>(List.of(new Cart("bob", List.of(), -1, null), new Cart(null, null, 0, Kind.B))));
        return values;
    }

    /** The deserialization attacks (bytes, not values: no primary writes them). */
    static Map<String, byte[]> attacks() {
        Map<String, byte[]> attacks = new LinkedHashMap<>();
        attacks.put("serial-dos", HostileValues.serialDos(30));
        attacks.put("self-containing-set", HostileValues.selfContainingSet());
        attacks.put("nested-lists", HostileValues.nestedLists(200));
        attacks.put("huge-long-array", HostileValues.hugeLongArray(1 << 28));
        attacks.put("huge-null-list", HostileValues.hugeNullList(1 << 29));
        return attacks;
    }

    /** The seed name suffix of a value in the field-order format (no suffix: named fields). */
    static final String FIELD_ORDER_SUFFIX = "-field-order";

    /** Encoded attribute values: the valid ones in both formats, then the attacks. */
    static Map<String, byte[]> valueBytes() throws NotSerializableException {
        KryoSessionSerializer serializer = serializer();
        Map<String, byte[]> bytes = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : values().entrySet()) {
            bytes.put("value-" + e.getKey(), serializer.serialize(e.getValue()));
        }
        for (Map.Entry<String, Object> e : values().entrySet()) { // the format of protocol 2, which nodes still read
            bytes.put("value-" + e.getKey() + FIELD_ORDER_SUFFIX, serializer.serialize(e.getValue(), ValueFormat.FIELD_ORDER));
        }
        for (Map.Entry<String, byte[]> e : attacks().entrySet()) {
            bytes.put("attack-" + e.getKey(), e.getValue());
        }
        return bytes;
    }

    /** One valid message of every type; updates carry the valid values and one attack. */
    static Map<String, byte[]> messages() throws NotSerializableException {
        Map<String, byte[]> values = valueBytes();
        Map<String, byte[]> attributes = new LinkedHashMap<>();
        values.forEach((name, bytes) -> {
            if (name.startsWith("value-") && !name.endsWith(FIELD_ORDER_SUFFIX)) {
                attributes.put(name.substring(6), bytes);
            }
        });
        SessionUpdate full = new SessionUpdate("seed-session", 0, 3, true, 1_000, 2_000, 1800, attributes, Set.of());
        SessionUpdate delta = new SessionUpdate("seed-session", 3, 4, false, 1_000, 3_000, 1800,
                Map.of("list", values.get("value-list"), "dos", values.get("attack-serial-dos")), Set.of("tree-map"));
        Map<String, byte[]> messages = new LinkedHashMap<>();
        messages.put("update-full", WireCodec.encode(new Message.Update(full, true)));
        messages.put("update-delta", WireCodec.encode(new Message.Update(delta, false)));
        SessionUpdate older = new SessionUpdate("seed-session", 4, 5, false, 1_000, 4_000, 1800,
                Map.of("cart", values.get("value-cart" + FIELD_ORDER_SUFFIX)), Set.of());
        messages.put("update-protocol-2", WireCodec.encode(new Message.Update(older, true), WireCodec.OLDEST_READ));
        messages.put("ack", WireCodec.encode(new Message.Ack(Message.AckStatus.APPLIED, 4)));
        messages.put("invalidate", WireCodec.encode(new Message.Invalidate("seed-session")));
        messages.put("ownership", WireCodec.encode(new Message.Ownership("seed-session", 9, "a", true)));
        messages.put("fetch", WireCodec.encode(new Message.Fetch("seed-session")));
        messages.put("fetch-reply", WireCodec.encode(new Message.FetchReply(full, true)));
        messages.put("fetch-reply-none", WireCodec.encode(new Message.FetchReply(null, false)));
        messages.put("resync", WireCodec.encode(new Message.Resync("seed-session")));
        messages.put("refused", WireCodec.encode(new Message.Refused("seed-session")));
        messages.put("touch", WireCodec.encode(new Message.Touch(List.of(new Message.Touch.Entry("seed-session", 5_000)))));
        messages.put("release", WireCodec.encode(new Message.Release("seed-session", 4)));
        messages.put("reconcile", WireCodec.encode(new Message.Reconcile(List.of("seed-session", "other"))));
        messages.put("reconcile-reply", WireCodec.encode(new Message.ReconcileReply(List.of(
                new Message.ReconcileReply.Claim("seed-session", Message.ClaimKind.values()[0], 4)))));
        return messages;
    }

    /** Writes the seed directories under {@code args[0]} (the test resources root). */
    public static void main(String[] args) throws IOException {
        Path root = Path.of(args.length > 0 ? args[0] : "src/test/resources").resolve("io/sessionrep/core/fuzz");
        write(root.resolve("SerializerFuzzTestInputs/decodeAnyBytes"), valueBytes());
        write(root.resolve("SerializerFuzzTestInputs/decodeAnyJavaSerializedValue"), javaBlobs());
        write(root.resolve("WireCodecFuzzTestInputs/decodeAnyBytes"), messages());
        write(root.resolve("ReceiverFuzzTestInputs/handleAnyMessage"), messages());
    }

    private static void write(Path dir, Map<String, byte[]> seeds) throws IOException {
        Files.createDirectories(dir);
        for (Map.Entry<String, byte[]> seed : seeds.entrySet()) {
            Files.write(dir.resolve(seed.getKey()), seed.getValue());
        }
    }
}
