package io.sessionrep.perf.jmh;

import io.sessionrep.core.serial.ClassAllowlist;
import io.sessionrep.core.serial.KryoSessionSerializer;
import io.sessionrep.core.serial.ValueFormat;
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
 * The product's {@link KryoSessionSerializer} (with its allowlist) in its two value formats against the
 * alternatives, for a {@link TypicalSession}: each attribute serialized on its own, as the product replicates
 * attributes. Sizes go to the side file.
 * <ul>
 *   <li>{@code kryo}: named fields, the format of wire protocol 3 (survives class changes);</li>
 *   <li>{@code kryo-field-order}: fields in declaration order, the format of protocol 2 (does not);</li>
 *   <li>{@code kryo-compatible}: stock Kryo with its {@code CompatibleFieldSerializer} (chunked), without the
 *       product's hardening: the library's own answer to class changes, for reference;</li>
 *   <li>{@code java}: plain Java serialization, what Tomcat's managers use.</li>
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SerializationBenchmark {

    @Param({"kryo", "kryo-field-order", "kryo-compatible", "java"})
    public String serializer;

    private Map<String, Object> attributes;
    private byte[][] encoded;
    private KryoSessionSerializer kryo;
    private com.esotericsoftware.kryo.Kryo compatible;

    @Setup(Level.Trial)
    public void start() throws Exception {
        attributes = TypicalSession.attributes();
        kryo = new KryoSessionSerializer(ClassAllowlist.of(List.of("io.sessionrep.perf.jmh.")),
                SerializationBenchmark.class.getClassLoader());
        compatible = new com.esotericsoftware.kryo.Kryo();
        compatible.setRegistrationRequired(false);
        compatible.setReferences(false);
        compatible.setInstantiatorStrategy(new com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy(
                new org.objenesis.strategy.StdInstantiatorStrategy()));
        com.esotericsoftware.kryo.serializers.CompatibleFieldSerializer.CompatibleFieldSerializerConfig config =
                new com.esotericsoftware.kryo.serializers.CompatibleFieldSerializer.CompatibleFieldSerializerConfig();
        config.setChunkedEncoding(true);
        compatible.setDefaultSerializer(new com.esotericsoftware.kryo.SerializerFactory.CompatibleFieldSerializerFactory(config));
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
        switch (serializer) {
            case "kryo":
                return kryo.serialize(value);
            case "kryo-field-order":
                return kryo.serialize(value, ValueFormat.FIELD_ORDER);
            case "kryo-compatible":
                com.esotericsoftware.kryo.io.Output output = new com.esotericsoftware.kryo.io.Output(256, -1);
                compatible.writeClassAndObject(output, value);
                return output.toBytes();
            default:
                break;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }

    private Object decode(byte[] bytes) throws Exception {
        if (serializer.startsWith("kryo-compatible")) {
            return compatible.readClassAndObject(new com.esotericsoftware.kryo.io.Input(bytes));
        }
        if (serializer.startsWith("kryo")) {
            return kryo.deserialize(bytes);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
            return in.readObject();
        }
    }
}
