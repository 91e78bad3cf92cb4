package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.MapSerializer;

import java.util.Map;

/**
 * Kryo's {@link MapSerializer} with the guarantees of {@link BoundedCollectionSerializer}: the declared
 * entry count is checked against the bytes left before anything is allocated, a map whose entries took
 * fewer bytes than their count is refused on write, hash-based maps are held to the {@link HashFlood}
 * bound on their keys, and a {@link MapShape} rebuilds the class written.
 */
@SuppressWarnings({"rawtypes", "unchecked"})
final class BoundedMapSerializer extends MapSerializer<Map> {
    private final MapShape shape;
    private final ElementBytes elementBytes = new ElementBytes();

    BoundedMapSerializer(MapShape shape) {
        this.shape = shape;
    }

    @Override
    public void write(Kryo kryo, Output output, Map map) {
        if (map != null && shape.hashed()) {
            HashFlood.checkWrite(map, map.keySet());
        }
        super.write(kryo, output, map);
        if (map != null) {
            elementBytes.check(output, map, map.size());
        }
    }

    @Override
    protected void writeHeader(Kryo kryo, Output output, Map map) {
        shape.writeHeader(kryo, output, map);
        elementBytes.mark(output);
    }

    @Override
    protected Map create(Kryo kryo, Input input, Class<? extends Map> type, int size) {
        BoundedInput.requireElements(input, size, type.getName());
        return shape.buffer(kryo, input, type, size);
    }

    @Override
    public Map read(Kryo kryo, Input input, Class<? extends Map> type) {
        Map buffer = super.read(kryo, input, type);
        return buffer == null ? null : shape.finish(buffer);
    }
}
