package io.sessionrep.perf.jmh;

import io.sessionrep.core.serial.ClassAllowlist;
import io.sessionrep.core.serial.KryoSessionSerializer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Kryo (the product's {@link KryoSessionSerializer}, with its allowlist) against plain Java serialization
 * (what Tomcat's managers use) for a {@link TypicalSession}: each attribute serialized on its own, as the
 * product replicates attributes. Sizes go to the side file.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SerializationBenchmark {

    @Param({"kryo", "java"})
    public String serializer;

    private Map<String, Object> attributes;
    private byte[][] encoded;
    private KryoSessionSerializer kryo;

    @Setup(Level.Trial)
    public void start() throws Exception {
        attributes = TypicalSession.attributes();
        kryo = new KryoSessionSerializer(ClassAllowlist.of(List.of("io.sessionrep.perf.jmh.")),
                SerializationBenchmark.class.getClassLoader());
        encoded = new byte[attributes.size()][];
        int i = 0;
        long total = 0;
        for (Object value : attributes.values()) {
            encoded[i] = encode(value);
            total += encoded[i++].length;
        }
        for (byte[] bytes : encoded) {
            decode(bytes);
        }
        Nodes.sideResult(String.format(Locale.ROOT, "serialization\t%s\t%d\t%d", serializer, attributes.size(), total));
    }

    @Benchmark
    public void serialize(Blackhole bh) throws Exception {
        for (Object value : attributes.values()) {
            bh.consume(encode(value));
        }
    }

    @Benchmark
    public void deserialize(Blackhole bh) throws Exception {
        for (byte[] bytes : encoded) {
            bh.consume(decode(bytes));
        }
    }

    private byte[] encode(Object value) throws IOException {
        if (serializer.equals("kryo")) {
            return kryo.serialize(value);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }

    private Object decode(byte[] bytes) throws Exception {
        if (serializer.equals("kryo")) {
            return kryo.deserialize(bytes);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
            return in.readObject();
        }
    }
}
