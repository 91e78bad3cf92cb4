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

/**
 * Plain Java serialization for the application classes Kryo cannot copy field by field (custom
 * writeObject / readObject / writeReplace, Externalizable). JDK classes never come here ({@link ValueTypes}).
 *
 * <p>Reading goes through the same allowlist as Kryo, enforced twice: in {@code resolveClass} and by an
 * {@link ObjectInputFilter}, which also bounds the nesting to {@link #MAX_DEPTH}, and array lengths and
 * the number of objects to the blob's size. Java serialization keeps shared references, so the
 * exponential "SerialDOS" shape is possible inside a blob; the low depth limit bounds it (at most about
 * 2<sup>{@value #MAX_DEPTH}</sup> hash steps). Dynamic proxies are always refused.
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
            throw new KryoException(new UnsupportedValueException(object.getClass().getName(),
                    "its Java serialization would be refused by the backups (" + e.getMessage() + "): nest it less than "
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
        try (ObjectInputStream in = new AllowlistObjectInputStream(new ByteArrayInputStream(data), data.length)) {
            return in.readObject();
        } catch (NotAllowed e) {
            throw new KryoException(new ClassNotAllowedException(e.classname));
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
            throw new KryoException("Java deserialization failed: " + e, e);
        }
    }

    /** A class outside the allowlist (the filter's other rejections are limits: depth, size). */
    private static final class NotAllowed extends InvalidClassException {
        NotAllowed(String className) {
            super(className, "not in serialization-allowlist");
        }
    }

    private final class AllowlistObjectInputStream extends ObjectInputStream {
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
