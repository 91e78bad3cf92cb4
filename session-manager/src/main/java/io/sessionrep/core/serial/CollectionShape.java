package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * How one collection class is rebuilt by {@link BoundedCollectionSerializer}: what it writes before the
 * elements (a comparator), the mutable buffer the elements are read into, and how the buffer becomes
 * the value (an unmodifiable or immutable wrapper of the same class as the one written).
 */
interface CollectionShape {

    /** Data {@link #buffer} needs (a comparator); written before the elements. */
    default void writeHeader(Kryo kryo, Output output, Collection<?> collection) {
    }

    /** A mutable collection the elements are added to; {@code size} has already been checked against the input. */
    Collection<Object> buffer(Kryo kryo, Input input, Class<?> type, int size);

    /** The value from the filled buffer. */
    default Collection<?> finish(Collection<Object> buffer) {
        return buffer;
    }

    /** Hash-based: elements are checked against {@link HashFlood} on write and before the value is built on read. */
    default boolean hashed() {
        return false;
    }

    /** The class itself, created as Kryo does (no-arg constructor, else without one). */
    @SuppressWarnings("unchecked")
    CollectionShape PLAIN = (kryo, input, type, size) -> {
        if (type == ArrayList.class) {
            return new ArrayList<>(size);
        }
        if (type == HashSet.class) {
            return new HashSet<>(Math.max((int) (size / 0.75f) + 1, 16));
        }
        return (Collection<Object>) kryo.newInstance(type);
    };

    /**
     * A hash-based set (HashSet, LinkedHashSet, an application's subclass), created as Kryo does, filled only
     * after the {@link HashFlood} check.
     */
    @SuppressWarnings("unchecked")
    CollectionShape HASHED = new CollectionShape() {
        @Override
        public Collection<Object> buffer(Kryo kryo, Input input, Class<?> type, int size) {
            Collection<Object> target = type == HashSet.class ? new HashSet<>(Math.max((int) (size / 0.75f) + 1, 16))
                    : (Collection<Object>) kryo.newInstance(type);
            return new HashFlood.StagedCollection(target, size);
        }

        @Override
        public Collection<?> finish(Collection<Object> buffer) {
            return ((HashFlood.StagedCollection) buffer).build();
        }

        @Override
        public boolean hashed() {
            return true;
        }
    };

    /** A {@link TreeSet} (or subclass with a {@code (Comparator)} constructor), comparator included. */
    CollectionShape TREE_SET = new Sorted(null);
    CollectionShape UNMODIFIABLE_SORTED_SET = new Sorted(b -> Collections.unmodifiableSortedSet((TreeSet<Object>) b));
    CollectionShape UNMODIFIABLE_NAVIGABLE_SET = new Sorted(b -> Collections.unmodifiableNavigableSet((TreeSet<Object>) b));
    CollectionShape EMPTY_NAVIGABLE_SET = new Sorted(b -> Collections.emptyNavigableSet());

    CollectionShape UNMODIFIABLE_COLLECTION = wrap(ArrayList::new, Collections::unmodifiableCollection);
    /** A LinkedList (not RandomAccess) inside, so the wrapper is of the same class as the one written. */
    CollectionShape UNMODIFIABLE_LIST = wrap(size -> new LinkedList<>(), b -> Collections.unmodifiableList((List<Object>) b));
    CollectionShape UNMODIFIABLE_RANDOM_ACCESS_LIST = wrap(ArrayList::new, b -> Collections.unmodifiableList((List<Object>) b));
    /** A LinkedHashSet inside keeps the iteration order the primary had. */
    CollectionShape UNMODIFIABLE_SET = hashedWrap(size -> new LinkedHashSet<>(Math.max((int) (size / 0.75f) + 1, 16)),
            b -> Collections.unmodifiableSet((Set<Object>) b));
    CollectionShape ARRAYS_AS_LIST = wrap(ArrayList::new, b -> Arrays.asList(b.toArray()));
    CollectionShape IMMUTABLE_LIST = wrap(ArrayList::new, CollectionShape::immutableList);
    CollectionShape IMMUTABLE_SET = hashedWrap(ArrayList::new, b -> Set.of(b.toArray()));

    private static CollectionShape wrap(java.util.function.IntFunction<Collection<Object>> buffer,
                                        java.util.function.Function<Collection<Object>, Collection<?>> finish) {
        return new CollectionShape() {
            @Override
            public Collection<Object> buffer(Kryo kryo, Input input, Class<?> type, int size) {
                return buffer.apply(size);
            }

            @Override
            public Collection<?> finish(Collection<Object> filled) {
                return finish.apply(filled);
            }
        };
    }

    /** As {@link #wrap}, for hash-based values: the elements are staged and checked before the target is filled. */
    private static CollectionShape hashedWrap(java.util.function.IntFunction<Collection<Object>> target,
                                              java.util.function.Function<Collection<Object>, Collection<?>> finish) {
        return new CollectionShape() {
            @Override
            public Collection<Object> buffer(Kryo kryo, Input input, Class<?> type, int size) {
                return new HashFlood.StagedCollection(target.apply(size), size);
            }

            @Override
            public Collection<?> finish(Collection<Object> staged) {
                return finish.apply(((HashFlood.StagedCollection) staged).build());
            }

            @Override
            public boolean hashed() {
                return true;
            }
        };
    }

    /**
     * {@code List.of} gives List12 for one or two elements and ListN otherwise; {@code Stream.toList()}
     * gives ListN for any size and allows nulls. The class written decides which one is rebuilt; here
     * only the elements are known, so nulls or a one/two-element ListN go through {@code Stream.toList()}.
     */
    private static List<?> immutableList(Collection<Object> buffer) {
        Object[] elements = buffer.toArray();
        boolean hasNull = Arrays.stream(elements).anyMatch(java.util.Objects::isNull);
        return hasNull ? Arrays.stream(elements).toList() : List.of(elements);
    }

    /** Sorted sets: the comparator is written first and may be null (natural order). */
    final class Sorted implements CollectionShape {
        private final java.util.function.Function<Collection<Object>, Collection<?>> finish;

        Sorted(java.util.function.Function<Collection<Object>, Collection<?>> finish) {
            this.finish = finish;
        }

        @Override
        public void writeHeader(Kryo kryo, Output output, Collection<?> collection) {
            kryo.writeClassAndObject(output, ((SortedSet<?>) collection).comparator());
        }

        @Override
        @SuppressWarnings("unchecked")
        public Collection<Object> buffer(Kryo kryo, Input input, Class<?> type, int size) {
            Comparator<Object> comparator = (Comparator<Object>) kryo.readClassAndObject(input);
            if (finish != null || type == TreeSet.class) {
                return new TreeSet<>(comparator);
            }
            try {
                return (Collection<Object>) type.getConstructor(Comparator.class).newInstance(comparator);
            } catch (ReflectiveOperationException e) {
                throw new com.esotericsoftware.kryo.KryoException("cannot create " + type.getName(), e);
            }
        }

        @Override
        public Collection<?> finish(Collection<Object> buffer) {
            return finish == null ? buffer : finish.apply(buffer);
        }
    }
}
