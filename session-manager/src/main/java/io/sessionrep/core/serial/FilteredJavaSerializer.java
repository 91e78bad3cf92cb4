package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Plain Java serialization for the application classes Kryo cannot copy field by field (custom
 * writeObject / readObject / writeReplace, Externalizable). JDK classes never come here ({@link ValueTypes}).
 *
 * <p>Reading goes through the same allowlist as Kryo, enforced twice: in {@code resolveClass} and by an
 * {@link ObjectInputFilter}, which also bounds the nesting to {@link #MAX_DEPTH}, and array lengths and
 * the number of objects to the blob's size. Dynamic proxies are always refused.
 *
 * <p><b>Work.</b> Java serialization keeps shared references: a few bytes can describe a graph whose tree is
 * exponentially large (lists that hold the same child several times, level after level), and neither its depth
 * nor its number of objects says how long hashing it takes. Nothing here hashes or compares what it reads, except
 * the JDK's hash-based collections, which rebuild their tables in {@code readObject}. So no class that is (or
 * extends) {@link HashMap}, {@link HashSet}, {@link Hashtable} or {@link ConcurrentHashMap} is accepted inside a
 * blob ({@link #isHashBased}), whatever the allowlist says: then reading a blob costs time linear in its bytes and
 * objects (plus what the application's own {@code readObject} hooks do). A value holding one is refused on the
 * primary with what to use instead. Outside the fallback (fields by name, the bounded Kryo collections) such
 * collections travel as usual.
 *
 * <p>Writing reads the blob back through the same filter, so that a value the backups would refuse is
 * refused on the primary instead; this costs one extra deserialization, only for these classes.
 */
final class FilteredJavaSerializer extends Serializer<Object> {
    /** Nesting levels inside one Java-serialized blob. */
    static final long MAX_DEPTH = 20;

    private final ClassAllowlist allowlist;
    private final ClassLoader classLoader;

    FilteredJavaSerializer(ClassAllowlist allowlist, ClassLoader classLoader) {
        this.allowlist = allowlist;
        this.classLoader = classLoader;
    }

    @Override
    public void write(Kryo kryo, Output output, Object object) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(object);
        } catch (IOException e) {
            throw new KryoException("Java serialization failed for " + object.getClass().getName(), e);
        }
        byte[] data = bytes.toByteArray();
        try {
            readBlob(data);
        } catch (KryoException e) {
            HashBased hashBased = causeOf(e, HashBased.class);
            throw new KryoException(new UnsupportedValueException(object.getClass().getName(), hashBased != null
                    ? "it uses Java serialization (writeObject/readObject/writeReplace/readResolve or Externalizable) and"
                            + " holds a " + hashBased.classname + ": hash-based JDK collections are not accepted inside"
                            + " Java-serialized values (rebuilding them can be made to take unbounded time); hold a"
                            + " TreeMap, TreeSet or ArrayList there, or drop the serialization hooks so that its fields"
                            + " travel by name"
                    : "its Java serialization would be refused by the backups (" + e.getMessage() + "): nest it less than "
                            + MAX_DEPTH + " levels deep and keep every class it holds in serialization-allowlist"));
        }
        output.writeVarInt(data.length, true);
        output.writeBytes(data);
    }

    @Override
    public Object read(Kryo kryo, Input input, Class<?> type) {
        int length = input.readVarInt(true);
        BoundedInput.requireElements(input, length, "Java-serialized " + type.getName());
        Object value = readBlob(input.readBytes(length));
        if (!type.isInstance(value)) {
            throw new KryoException("Java-serialized value is a " + value.getClass().getName() + ", not a " + type.getName());
        }
        return value;
    }

    private Object readBlob(byte[] data) {
        AllowlistObjectInputStream stream = null;
        try (ObjectInputStream in = stream = new AllowlistObjectInputStream(new ByteArrayInputStream(data), data.length)) {
            return in.readObject();
        } catch (NotAllowed e) {
            throw new KryoException(new ClassNotAllowedException(e.classname));
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
            if (stream != null && stream.hashBased != null) {
                throw new KryoException("Java deserialization refused: " + stream.hashBased.getMessage(), stream.hashBased);
            }
            throw new KryoException("Java deserialization failed: " + e, e);
        }
    }

    /** Whether {@code type} rebuilds a hash table while it is read (see the class comment). */
    static boolean isHashBased(Class<?> type) {
        return HashMap.class.isAssignableFrom(type) || HashSet.class.isAssignableFrom(type)
                || Hashtable.class.isAssignableFrom(type) || ConcurrentHashMap.class.isAssignableFrom(type);
    }

    private static <T extends Throwable> T causeOf(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    /** A class outside the allowlist (the filter's other rejections are limits: depth, size). */
    private static final class NotAllowed extends InvalidClassException {
        NotAllowed(String className) {
            super(className, "not in serialization-allowlist");
        }
    }

    /** A hash-based collection inside a blob: refused by the filter, remembered to say so. */
    private static final class HashBased extends InvalidClassException {
        HashBased(String className) {
            super(className, "hash-based collections are not accepted inside a Java-serialized value");
        }
    }

    private final class AllowlistObjectInputStream extends ObjectInputStream {
        /** The hash-based class the filter refused, if it refused one. */
        HashBased hashBased;

        AllowlistObjectInputStream(InputStream in, int size) throws IOException {
            super(in);
            setObjectInputFilter(info -> {
                if (info.depth() > MAX_DEPTH || info.references() > size || info.arrayLength() > size) {
                    return ObjectInputFilter.Status.REJECTED;
                }
                Class<?> c = info.serialClass();
                if (c != null && !allowlist.allows(c.getName())) {
                    return ObjectInputFilter.Status.REJECTED;
                }
                if (c != null && isHashBased(c)) {
                    hashBased = new HashBased(c.getName());
                    return ObjectInputFilter.Status.REJECTED;
                }
                return ObjectInputFilter.Status.UNDECIDED;
            });
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            if (!allowlist.allows(desc.getName())) {
                throw new NotAllowed(desc.getName());
            }
            return Class.forName(desc.getName(), false, classLoader);
        }

        @Override
        protected Class<?> resolveProxyClass(String[] interfaces) throws IOException {
            throw new InvalidClassException(String.join(",", interfaces), "dynamic proxies are never deserialized");
        }
    }
}
