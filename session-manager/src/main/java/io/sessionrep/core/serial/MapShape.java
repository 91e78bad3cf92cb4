package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;

import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * How one map class is rebuilt by {@link BoundedMapSerializer}: the data written before the entries
 * (comparator, enum key type), the mutable buffer the entries are read into, and the final value.
 */
interface MapShape {

    default void writeHeader(Kryo kryo, Output output, Map<?, ?> map) {
    }

    /** A mutable map the entries are put into; {@code size} has already been checked against the input. */
    Map<Object, Object> buffer(Kryo kryo, Input input, Class<?> type, int size);

    default Map<?, ?> finish(Map<Object, Object> buffer) {
        return buffer;
    }

    /** Hash-based: keys are checked against {@link HashFlood} on write and before the value is built on read. */
    default boolean hashed() {
        return false;
    }

    /**
     * A hash-based map (HashMap, LinkedHashMap, ConcurrentHashMap, an application's map), created as Kryo
     * does, filled only after the {@link HashFlood} check of its keys.
     */
    MapShape HASHED = staged((kryo, type, size) -> type == HashMap.class
            ? new HashMap<>(Math.max((int) (size / 0.75f) + 1, 16))
            : newInstance(kryo, type), map -> map);

    MapShape TREE_MAP = new Sorted(null);
    MapShape UNMODIFIABLE_SORTED_MAP = new Sorted(b -> Collections.unmodifiableSortedMap((TreeMap<Object, Object>) b));
    MapShape UNMODIFIABLE_NAVIGABLE_MAP = new Sorted(b -> Collections.unmodifiableNavigableMap((TreeMap<Object, Object>) b));
    MapShape EMPTY_NAVIGABLE_MAP = new Sorted(b -> Collections.emptyNavigableMap());

    /** A LinkedHashMap inside keeps the iteration order the primary had. */
    MapShape UNMODIFIABLE_MAP = staged((kryo, type, size) -> new LinkedHashMap<>(Math.max((int) (size / 0.75f) + 1, 16)),
            Collections::unmodifiableMap);
    /** {@code Map.of}: Map1 for one entry, MapN otherwise, as {@code Map.ofEntries} chooses. */
    MapShape IMMUTABLE_MAP = staged((kryo, type, size) -> new LinkedHashMap<>(Math.max((int) (size / 0.75f) + 1, 16)),
            b -> Map.ofEntries(b.entrySet().toArray(new Map.Entry[0])));

    /** The key type is written first: an empty EnumMap does not reveal it without reflection, so it is refused. */
    MapShape ENUM_MAP = new MapShape() {
        @Override
        public void writeHeader(Kryo kryo, Output output, Map<?, ?> map) {
            if (map.isEmpty()) {
                throw new KryoException(new UnsupportedValueException(EnumMap.class.getName(),
                        "an empty EnumMap does not tell its key type; store null or a map with an entry instead"));
            }
            kryo.writeClass(output, ((Enum<?>) map.keySet().iterator().next()).getDeclaringClass());
        }

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public Map<Object, Object> buffer(Kryo kryo, Input input, Class<?> type, int size) {
            com.esotericsoftware.kryo.Registration key = kryo.readClass(input);
            Class<?> keyType = key == null ? null : key.getType();
            if (keyType == null || !keyType.isEnum()) {
                throw new KryoException("EnumMap key type is not an enum: " + keyType);
            }
            return new EnumMap(keyType);
        }
    };

    /** The target map a hash-based shape fills after the check. */
    interface Target {
        Map<Object, Object> create(Kryo kryo, Class<?> type, int size);
    }

    @SuppressWarnings("unchecked")
    private static Map<Object, Object> newInstance(Kryo kryo, Class<?> type) {
        return (Map<Object, Object>) kryo.newInstance(type);
    }

    /** Entries are staged, keys checked against {@link HashFlood}, then the target is filled and finished. */
    private static MapShape staged(Target target, Function<Map<Object, Object>, Map<?, ?>> finish) {
        return new MapShape() {
            @Override
            public Map<Object, Object> buffer(Kryo kryo, Input input, Class<?> type, int size) {
                return new HashFlood.StagedMap(target.create(kryo, type, size), size);
            }

            @Override
            public Map<?, ?> finish(Map<Object, Object> staged) {
                return finish.apply(((HashFlood.StagedMap) staged).build());
            }

            @Override
            public boolean hashed() {
                return true;
            }
        };
    }

    /** Sorted maps: the comparator is written first and may be null (natural order). */
    final class Sorted implements MapShape {
        private final Function<Map<Object, Object>, Map<?, ?>> finish;

        Sorted(Function<Map<Object, Object>, Map<?, ?>> finish) {
            this.finish = finish;
        }

        @Override
        public void writeHeader(Kryo kryo, Output output, Map<?, ?> map) {
            kryo.writeClassAndObject(output, ((SortedMap<?, ?>) map).comparator());
        }

        @Override
        @SuppressWarnings("unchecked")
        public Map<Object, Object> buffer(Kryo kryo, Input input, Class<?> type, int size) {
            Comparator<Object> comparator = (Comparator<Object>) kryo.readClassAndObject(input);
            if (finish != null || type == TreeMap.class) {
                return new TreeMap<>(comparator);
            }
            try {
                return (Map<Object, Object>) type.getConstructor(Comparator.class).newInstance(comparator);
            } catch (ReflectiveOperationException e) {
                throw new KryoException("cannot create " + type.getName(), e);
            }
        }

        @Override
        public Map<?, ?> finish(Map<Object, Object> buffer) {
            return finish == null ? buffer : finish.apply(buffer);
        }
    }
}
