package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.SerializerFactory;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.FieldSerializer;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import com.esotericsoftware.kryo.util.MapReferenceResolver;
import com.esotericsoftware.kryo.util.Pool;
import org.objenesis.strategy.StdInstantiatorStrategy;

import java.io.Externalizable;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.Serializable;

/**
 * Kryo with unregistered classes written by name, references tracked, and every class name read from
 * the network checked against a {@link ClassAllowlist} before it is loaded. Classes with custom Java
 * serialization hooks fall back to {@link FilteredJavaSerializer}. Like Java serialization, only
 * {@link Serializable} values (and the JDK types Kryo knows) are accepted on write, so that what
 * replicates here would also replicate in any servlet container.
 */
public final class KryoSessionSerializer implements SessionSerializer {
    private static final int MAX_BUFFER = 256 * 1024 * 1024;

    private final Pool<Kryo> kryos;
    private final Pool<Output> outputs;

    public KryoSessionSerializer(ClassAllowlist allowlist, ClassLoader classLoader) {
        this.kryos = new Pool<>(true, false, 32) {
            @Override
            protected Kryo create() {
                return newKryo(allowlist, classLoader);
            }
        };
        this.outputs = new Pool<>(true, false, 32) {
            @Override
            protected Output create() {
                return new Output(4096, MAX_BUFFER);
            }
        };
    }

    private static Kryo newKryo(ClassAllowlist allowlist, ClassLoader classLoader) {
        Kryo kryo = new Kryo(new AllowlistClassResolver(allowlist), new MapReferenceResolver());
        kryo.setRegistrationRequired(false);
        kryo.setReferences(true);
        kryo.setClassLoader(classLoader);
        kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        SerializerFactory.FieldSerializerFactory fields = new SerializerFactory.FieldSerializerFactory();
        kryo.setDefaultSerializer(new SerializerFactory<Serializer<?>>() {
            @Override
            public Serializer<?> newSerializer(Kryo k, Class type) {
                if (!Serializable.class.isAssignableFrom(type) && !type.isArray() && !type.isPrimitive()) {
                    return new RefuseSerializer(type);
                }
                if (needsJavaSerialization(type)) {
                    return new FilteredJavaSerializer(allowlist, classLoader);
                }
                FieldSerializer<?> serializer = fields.newSerializer(k, type);
                return serializer;
            }

            @Override
            public boolean isSupported(Class type) {
                return true;
            }
        });
        return kryo;
    }

    private static boolean needsJavaSerialization(Class<?> type) {
        if (Externalizable.class.isAssignableFrom(type)) {
            return true;
        }
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (String hook : new String[] {"writeObject", "readObject", "writeReplace", "readResolve"}) {
                for (var m : c.getDeclaredMethods()) {
                    if (m.getName().equals(hook)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    @Override
    public byte[] serialize(Object value) throws NotSerializableException {
        Kryo kryo = kryos.obtain();
        Output output = outputs.obtain();
        try {
            output.reset();
            kryo.writeClassAndObject(output, value);
            return output.toBytes();
        } catch (KryoException e) {
            NotSerializableException nse = new NotSerializableException(describe(e, value));
            nse.initCause(e);
            throw nse;
        } finally {
            if (output.getBuffer().length > 1024 * 1024) {
                output.setBuffer(new byte[4096], MAX_BUFFER); // do not pin large buffers in the pool
            }
            outputs.free(output);
            kryo.reset();
            kryos.free(kryo);
        }
    }

    private static String describe(KryoException e, Object value) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof NotSerializableException nse) {
                return nse.getMessage();
            }
        }
        return value.getClass().getName() + ": " + e.getMessage();
    }

    @Override
    public Object deserialize(byte[] bytes) throws ClassNotAllowedException, IOException {
        Kryo kryo = kryos.obtain();
        try {
            return kryo.readClassAndObject(new Input(bytes));
        } catch (KryoException | IndexOutOfBoundsException | NegativeArraySizeException | ClassCastException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof ClassNotAllowedException rejected) {
                    throw rejected;
                }
            }
            throw new IOException("undecodable attribute value: " + e.getMessage(), e);
        } catch (OutOfMemoryError e) {
            throw new IOException("attribute value claims an impossible size", e);
        } finally {
            kryo.reset();
            kryos.free(kryo);
        }
    }

    /** Writing a value that is not Serializable fails with the class name, like Java serialization. */
    private static final class RefuseSerializer extends Serializer<Object> {
        private final Class<?> type;

        RefuseSerializer(Class<?> type) {
            this.type = type;
        }

        @Override
        public void write(Kryo kryo, Output output, Object object) {
            throw new KryoException(new NotSerializableException(type.getName()));
        }

        @Override
        public Object read(Kryo kryo, Input input, Class<?> t) {
            throw new KryoException(new NotSerializableException(type.getName()));
        }
    }
}
