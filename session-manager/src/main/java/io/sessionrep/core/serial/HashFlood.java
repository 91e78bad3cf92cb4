package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.KryoException;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The hash-flooding bound. Elements (or keys) whose {@code hashCode}s are equal land in one bucket; when
 * they are not {@link Comparable}, as lists, sets and maps are not, every insertion compares with the
 * whole bucket, so n crafted elements cost n<sup>2</sup> {@code equals} calls (16,000 two-element lists
 * in 135 KB took 2 s to read). A hash-based collection therefore may hold at most
 * {@link #MAX_EQUAL_HASHES} elements with one hash code: checked on write (the primary refuses the value,
 * naming the class whose {@code hashCode} collides) and on read, before the collection is built, so
 * reading costs at most that many comparisons per element. Distinct values sharing a 32-bit hash code
 * that often do not occur by chance.
 */
final class HashFlood {
    static final int MAX_EQUAL_HASHES = 64;

    private HashFlood() {
    }

    /** The first element whose hash code is shared by more than {@link #MAX_EQUAL_HASHES} elements, or null. */
    static Object flooding(Iterable<?> elements) {
        Map<Integer, int[]> counts = new HashMap<>();
        for (Object e : elements) {
            int[] count = counts.computeIfAbsent(e == null ? 0 : e.hashCode(), h -> new int[1]);
            if (++count[0] > MAX_EQUAL_HASHES) {
                return e == null ? "null" : e;
            }
        }
        return null;
    }

    /** On write: refuses a collection or map (keys) that a backup would refuse. */
    static void checkWrite(Object container, Iterable<?> elements) {
        Object flooding = flooding(elements);
        if (flooding != null) {
            throw new KryoException(new UnsupportedValueException(flooding.getClass().getName(), "more than "
                    + MAX_EQUAL_HASHES + " elements of a " + container.getClass().getName() + " share one hashCode; "
                    + "a backup refuses that (hash flooding): give the class a better hashCode or use a list"));
        }
    }

    private static void checkRead(Iterable<?> elements) {
        if (flooding(elements) != null) {
            throw new KryoException("more than " + MAX_EQUAL_HASHES + " elements share one hash code (hash flooding)");
        }
    }

    /** A collection buffer that only lists the elements; {@link #build} checks them, then fills the target. */
    static final class StagedCollection extends ArrayList<Object> {
        private final Collection<Object> target;

        StagedCollection(Collection<Object> target, int size) {
            super(size);
            this.target = target;
        }

        Collection<Object> build() {
            checkRead(this);
            target.addAll(this);
            return target;
        }
    }

    /** A map buffer that only lists the entries (MapSerializer only calls put); {@link #build} fills the target. */
    static final class StagedMap extends AbstractMap<Object, Object> {
        private final Map<Object, Object> target;
        private final List<Map.Entry<Object, Object>> entries;

        StagedMap(Map<Object, Object> target, int size) {
            this.target = target;
            this.entries = new ArrayList<>(size);
        }

        @Override
        public Object put(Object key, Object value) {
            entries.add(new SimpleEntry<>(key, value));
            return null;
        }

        @Override
        public Set<Entry<Object, Object>> entrySet() {
            return new AbstractSet<>() {
                @Override
                public Iterator<Entry<Object, Object>> iterator() {
                    return entries.iterator();
                }

                @Override
                public int size() {
                    return entries.size();
                }
            };
        }

        Map<Object, Object> build() {
            checkRead(keySet());
            for (Entry<Object, Object> e : entries) {
                target.put(e.getKey(), e.getValue());
            }
            return target;
        }
    }
}
