package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import org.objenesis.strategy.StdInstantiatorStrategy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Attribute values an attacker can send, built with an unhardened Kryo 5.6 (references on, no limits)
 * or byte by byte: the deserialization attacks a member could send. Shared by the attack tests and the fuzzers'
 * seeds.
 */
public final class HostileValues {
    private HostileValues() {
    }

    /** What a stock Kryo (references on, any class, no limits) writes for {@code value}. */
    public static byte[] plainKryoBytes(Object value) {
        Kryo kryo = new Kryo();
        kryo.setRegistrationRequired(false);
        kryo.setReferences(true);
        kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        Output output = new Output(256, -1);
        kryo.writeClassAndObject(output, value);
        return output.toBytes();
    }

    /**
     * The SerialDOS shape: {@code levels} nested pairs of HashSets where both sets of a level hold the
     * same two children. With references it is about 16 bytes per level; read as a tree it is
     * 2<sup>levels</sup> sets, and rebuilding the outer sets hashes all of them.
     */
    public static byte[] serialDos(int levels) {
        return plainKryoBytes(serialDosSet(levels));
    }

    /**
     * A HashSet of {@code n} distinct lists [i, -31i] that all have the hash code 961: each insertion
     * compares with the whole bucket (lists are not Comparable), n<sup>2</sup> equals calls in all. Written
     * as a LinkedList by a stock Kryo without references (the format this project uses), then renamed.
     */
    public static byte[] hashFlood(int n) {
        List<Object> lists = new java.util.LinkedList<>();
        for (int i = 0; i < n; i++) {
            lists.add(new ArrayList<>(List.of(i, -31 * i)));
        }
        Kryo kryo = new Kryo();
        kryo.setRegistrationRequired(false);
        kryo.setReferences(false);
        Output output = new Output(256, -1);
        kryo.writeClassAndObject(output, lists);
        byte[] asList = output.toBytes();
        Output renamed = new Output(asList.length, -1);
        writeName(renamed, true, "java.util.HashSet");
        int nameEnd = 2 + "java.util.LinkedList".length();
        renamed.writeBytes(asList, nameEnd, asList.length - nameEnd);
        return renamed.toBytes();
    }

    /** A HashSet holding a list that contains itself: hashing it while the set is rebuilt never ends. */
    public static byte[] selfContainingSet() {
        List<Object> list = new ArrayList<>();
        Set<Object> set = new HashSet<>();
        set.add(list); // hashed while still empty
        list.add(list);
        return plainKryoBytes(set);
    }

    /** {@code depth} ArrayLists nested in one another (written without references: a plain tree). */
    public static byte[] nestedLists(int depth) {
        Output output = new Output(16 * depth, -1);
        for (int i = 0; i < depth; i++) {
            writeName(output, i == 0, "java.util.ArrayList");
            output.writeVarIntFlag(false, 2, true); // mixed element types, one element
        }
        output.writeByte(0); // the innermost element: null
        return output.toBytes();
    }

    /** A long[] declaring {@code length} elements, with nothing after the declaration (about 10 bytes). */
    public static byte[] hugeLongArray(int length) {
        Output output = new Output(16, -1);
        writeName(output, true, "[J");
        output.writeVarInt(length + 1, true);
        return output.toBytes();
    }

    /** An Object[] declaring {@code length} elements. */
    public static byte[] hugeObjectArray(int length) {
        Output output = new Output(32, -1);
        writeName(output, true, "[Ljava.lang.Object;");
        output.writeVarInt(length + 1, true);
        return output.toBytes();
    }

    /** A String (UTF-8 form) declaring {@code chars} characters. */
    public static byte[] hugeString(int chars) {
        Output output = new Output(16, -1);
        new Kryo().writeClass(output, String.class); // registered by Kryo: an id, not a name
        output.writeVarIntFlag(true, chars + 1, true);
        output.writeByte('x');
        return output.toBytes();
    }

    /**
     * An ArrayList declaring {@code size} elements that are "all null": Kryo 5.6.2 adds that many nulls
     * without reading a byte (issue #1282).
     */
    public static byte[] hugeNullList(int size) {
        Output output = new Output(32, -1);
        writeName(output, true, "java.util.ArrayList");
        output.writeVarIntFlag(true, size + 1, true); // same type
        output.writeByte(0); // element class: null = all elements null
        return output.toBytes();
    }

    /** An ArrayList declaring {@code size} elements of mixed types (each then read by class). */
    public static byte[] hugeList(int size) {
        Output output = new Output(32, -1);
        writeName(output, true, "java.util.ArrayList");
        output.writeVarIntFlag(false, size + 1, true);
        return output.toBytes();
    }

    /**
     * Kryo bytes naming {@code className} (an allowlisted class read by Java serialization) followed by
     * a Java-serialized {@code payload} of any class: what the Java fallback actually reads is chosen by
     * the sender.
     */
    public static byte[] javaBlobAs(String className, Object payload) {
        java.io.ByteArrayOutputStream blob = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(blob)) {
            out.writeObject(payload);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Output output = new Output(64, -1);
        writeName(output, true, className);
        output.writeVarInt(blob.size(), true);
        output.writeBytes(blob.toByteArray());
        return output.toBytes();
    }

    /**
     * The Java serialization of a {@link java.util.concurrent.ConcurrentHashMap} whose one key is
     * {@link #sharedLists}: its class descriptor declares no fields (the sender writes the descriptor, and without
     * the {@code segments} field no class outside the allowlist is named), then the key and value, as the map's
     * {@code readObject} reads them and hashes each key.
     */
    public static byte[] concurrentHashMapOfSharedLists(int levels, int fanout) {
        java.io.ByteArrayOutputStream blob = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(blob) {
            @Override
            protected void writeClassDescriptor(java.io.ObjectStreamClass desc) throws java.io.IOException {
                if (desc.forClass() != ForgedConcurrentHashMap.class) {
                    super.writeClassDescriptor(desc);
                    return;
                }
                writeUTF("java.util.concurrent.ConcurrentHashMap");
                writeLong(java.io.ObjectStreamClass.lookup(java.util.concurrent.ConcurrentHashMap.class).getSerialVersionUID());
                writeByte(0x02 | 0x01); // serializable, with a writeObject method
                writeShort(0); // no fields
            }
        }) {
            out.writeObject(new ForgedConcurrentHashMap(sharedLists(levels, fanout)));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return blob.toByteArray();
    }

    /** Writes what {@code ConcurrentHashMap.readObject} reads after its fields: key, value, then two nulls. */
    private static final class ForgedConcurrentHashMap implements java.io.Serializable {
        private final transient Object key;

        ForgedConcurrentHashMap(Object key) {
            this.key = key;
        }

        private void writeObject(java.io.ObjectOutputStream out) throws java.io.IOException {
            out.defaultWriteObject();
            out.writeObject(key);
            out.writeObject("v");
            out.writeObject(null);
            out.writeObject(null);
        }
    }

    /** A list of {@code levels} nested lists, each holding the next one {@code fanout} times (shared). */
    public static List<Object> sharedLists(int levels, int fanout) {
        List<Object> level = new ArrayList<>(List.of("x"));
        for (int i = 0; i < levels; i++) {
            List<Object> up = new ArrayList<>();
            for (int j = 0; j < fanout; j++) {
                up.add(level);
            }
            level = up;
        }
        return level;
    }

    /** Kryo bytes naming {@code className} followed by the Java serialization {@code blob}. */
    public static byte[] javaBlobBytesAs(String className, byte[] blob) {
        Output output = new Output(64, -1);
        writeName(output, true, className);
        output.writeVarInt(blob.length, true);
        output.writeBytes(blob);
        return output.toBytes();
    }

    /** The SerialDOS shape as objects (see {@link #serialDos}). */
    public static Set<Object> serialDosSet(int levels) {
        Set<Object> root = new HashSet<>();
        Set<Object> s1 = root;
        Set<Object> s2 = new HashSet<>();
        for (int i = 0; i < levels; i++) {
            Set<Object> t1 = new HashSet<>();
            Set<Object> t2 = new HashSet<>();
            t1.add("foo");
            s1.add(t1);
            s1.add(t2);
            s2.add(t1);
            s2.add(t2);
            s1 = t1;
            s2 = t2;
        }
        return root;
    }

    /** A class written by name, as Kryo's DefaultClassResolver does: NAME+2, name id, then the name once. */
    private static void writeName(Output output, boolean first, String className) {
        output.writeByte(1);
        output.writeVarInt(0, true);
        if (first) {
            output.writeAscii(className);
        }
    }
}
