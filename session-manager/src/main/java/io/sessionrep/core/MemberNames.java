package io.sessionrep.core;

import java.util.AbstractSet;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A set of a few member names, kept in an array sized to them. The primary keeps four such sets for every
 * session it owns ({@link PrimaryEntry}), usually holding one name or none. Counted from the object layout
 * (compressed references), a {@code HashSet} takes about 120 bytes for one name and 64 for none, this 48 and
 * 24; scenario 7 measured the primary's heap per session with this and two other cuts together
 * (run 20261125-memory, in git history). Look-ups scan the array: a session has a handful of backups at most. Not
 * thread-safe: the owner synchronizes.
 */
final class MemberNames extends AbstractSet<String> {
    private static final String[] NONE = {};

    private String[] names = NONE;
    private int size;
    private int modifications;

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean contains(Object name) {
        return indexOf(name) >= 0;
    }

    @Override
    public boolean add(String name) {
        if (name == null) {
            throw new NullPointerException("member name");
        }
        if (indexOf(name) >= 0) {
            return false;
        }
        if (size == names.length) {
            names = Arrays.copyOf(names, size + 1);
        }
        names[size++] = name;
        modifications++;
        return true;
    }

    @Override
    public boolean remove(Object name) {
        int index = indexOf(name);
        if (index < 0) {
            return false;
        }
        removeAt(index);
        return true;
    }

    @Override
    public void clear() {
        names = NONE;
        size = 0;
        modifications++;
    }

    @Override
    public Iterator<String> iterator() {
        return new Iterator<>() {
            private int next;
            private int last = -1;
            private int expected = modifications;

            @Override
            public boolean hasNext() {
                return next < size;
            }

            @Override
            public String next() {
                if (expected != modifications) {
                    throw new ConcurrentModificationException();
                }
                if (next >= size) {
                    throw new NoSuchElementException();
                }
                last = next++;
                return names[last];
            }

            @Override
            public void remove() {
                if (last < 0) {
                    throw new IllegalStateException();
                }
                if (expected != modifications) {
                    throw new ConcurrentModificationException();
                }
                removeAt(last);
                next = last;
                last = -1;
                expected = modifications;
            }
        };
    }

    private int indexOf(Object name) {
        for (int i = 0; i < size; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** Removes by moving the last name into the gap; the array shrinks with the set (sets stay tiny). */
    private void removeAt(int index) {
        size--;
        if (size == 0) {
            names = NONE;
        } else {
            String[] smaller = Arrays.copyOf(names, size);
            if (index < size) {
                smaller[index] = names[size];
            }
            names = smaller;
        }
        modifications++;
    }
}
