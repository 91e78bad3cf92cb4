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
 * Plain Java serialization for the classes Kryo cannot copy field by field (custom writeObject /
 * readObject / writeReplace, Externalizable). Reading goes through the same allowlist as Kryo, enforced
 * twice: in {@code resolveClass} and by an {@link ObjectInputFilter} that also bounds depth, references
 * and array sizes. Dynamic proxies are always refused.
 */
final class FilteredJavaSerializer extends Serializer<Object> {
    private static final long MAX_DEPTH = 64;
    private static final long MAX_REFS = 200_000;
    private static final long MAX_ARRAY = 16 * 1024 * 1024;

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
        output.writeVarInt(bytes.size(), true);
        output.writeBytes(bytes.toByteArray());
    }

    @Override
    public Object read(Kryo kryo, Input input, Class<?> type) {
        int length = input.readVarInt(true);
        if (length < 0 || length > MAX_ARRAY) {
            throw new KryoException("invalid Java-serialized length " + length);
        }
        byte[] data = input.readBytes(length);
        try (ObjectInputStream in = new AllowlistObjectInputStream(new ByteArrayInputStream(data))) {
            return in.readObject();
        } catch (InvalidClassException e) {
            throw new KryoException(new ClassNotAllowedException(e.classname == null ? "?" : e.classname));
        } catch (IOException | ClassNotFoundException e) {
            throw new KryoException("Java deserialization failed", e);
        }
    }

    private final class AllowlistObjectInputStream extends ObjectInputStream {
        AllowlistObjectInputStream(InputStream in) throws IOException {
            super(in);
            setObjectInputFilter(info -> {
                if (info.depth() > MAX_DEPTH || info.references() > MAX_REFS || info.arrayLength() > MAX_ARRAY) {
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
                throw new InvalidClassException(desc.getName(), "not in serialization-allowlist");
            }
            return Class.forName(desc.getName(), false, classLoader);
        }

        @Override
        protected Class<?> resolveProxyClass(String[] interfaces) throws IOException {
            throw new InvalidClassException(String.join(",", interfaces), "dynamic proxies are never deserialized");
        }
    }
}
