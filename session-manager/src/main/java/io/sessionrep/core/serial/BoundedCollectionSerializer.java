package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.CollectionSerializer;

import java.util.Collection;

/**
 * Kryo's {@link CollectionSerializer} with two guarantees added at its extension points:
 * <ul>
 *   <li>read: the declared size is checked against the bytes left in the value before anything is
 *       allocated ({@link BoundedInput#requireElements}); Kryo 5.6.2 would otherwise size a list from a
 *       10-byte value claiming 2<sup>29</sup> elements (Kryo issue #1282);</li>
 *   <li>write: a collection whose elements took fewer bytes than their count is refused
 *       ({@link ElementBytes}), so the primary never sends what a backup would refuse;</li>
 *   <li>hash-based collections: at most {@link HashFlood#MAX_EQUAL_HASHES} elements per hash code, on
 *       write and on read (before the set is built).</li>
 * </ul>
 * The element encoding is Kryo's own. A {@link CollectionShape} says how the class is rebuilt, so the
 * unmodifiable and immutable JDK collections come back as the class that was written.
 */
@SuppressWarnings({"rawtypes", "unchecked"})
final class BoundedCollectionSerializer extends CollectionSerializer<Collection> {
    private final CollectionShape shape;
    private final ElementBytes elementBytes = new ElementBytes();

    BoundedCollectionSerializer(CollectionShape shape) {
        this.shape = shape;
    }

    @Override
    public void write(Kryo kryo, Output output, Collection collection) {
        if (collection != null && shape.hashed()) {
            HashFlood.checkWrite(collection, collection);
        }
        super.write(kryo, output, collection);
        if (collection != null) {
            elementBytes.check(output, collection, collection.size());
        }
    }

    @Override
    protected void writeHeader(Kryo kryo, Output output, Collection collection) {
        shape.writeHeader(kryo, output, collection);
        elementBytes.mark(output);
    }

    @Override
    protected Collection create(Kryo kryo, Input input, Class<? extends Collection> type, int size) {
        BoundedInput.requireElements(input, size, type.getName());
        return shape.buffer(kryo, input, type, size);
    }

    @Override
    public Collection read(Kryo kryo, Input input, Class<? extends Collection> type) {
        Collection buffer = super.read(kryo, input, type);
        return buffer == null ? null : shape.finish(buffer);
    }
}
