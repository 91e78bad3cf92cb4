package io.sessionrep.core.store;

import io.sessionrep.core.delta.SessionUpdate;
import net.openhft.hashing.LongTupleHashFunction;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The replicated form of one session at one version: metadata and, per attribute, either its serialized
 * value or only a digest of it.
 * <ul>
 *   <li>A backup holds values: it must be able to rebuild the session.</li>
 *   <li>A primary whose container holds the session live keeps digests only ({@link #releaseValues}): the
 *       live objects are the values, and a second serialized copy would double the session's memory. The
 *       digests tell which attributes a request really changed. Full copies are then serialized from the
 *       live session. A primary without a live session (promoted from a backup, granted by a hand-over)
 *       holds values until a request makes the session live.</li>
 * </ul>
 * Digests are 128-bit XXH3 (OpenHFT's zero-allocation-hashing) with a 64-bit seed drawn at start, plus the
 * length: a change that goes unnoticed needs two different values of one attribute with equal digests, which
 * by accident is out of reach (2^-128 per changed value). XXH3 is fast, not cryptographic: it is not claimed to
 * resist someone who can craft attribute values to collide. Not thread-safe: callers synchronize.
 */
public final class SessionCopy {
    private static final LongTupleHashFunction HASH = LongTupleHashFunction.xx128(new SecureRandom().nextLong());

    /** What a primary keeps of one attribute value: its digest and its size. */
    private record ValueDigest(long high, long low, int length) {
        static ValueDigest of(byte[] bytes) {
            long[] hash = HASH.hashBytes(bytes);
            return new ValueDigest(hash[0], hash[1], bytes.length);
        }
    }

    /**
     * Heap a copy takes besides its values, ids and names (the object, its map, their headers): part of what
     * {@link #heldBytes} counts, so that many small copies with long ids or names are not free.
     */
    public static final int COPY_OVERHEAD = 200;
    /** Heap one attribute takes besides its value and name (map entry, table slot, array and string headers). */
    public static final int ENTRY_OVERHEAD = 64;

    private final String sessionId;
    private long version;
    private long creationTime;
    private long lastAccessedTime;
    private int maxInactiveSeconds;
    /** The serialized values, while this copy holds them (then an empty map that holds no table). */
    private Map<String, byte[]> attributes = new HashMap<>();
    /** Digests instead of values (null while this copy holds values). */
    private Map<String, ValueDigest> digests;
    /**
     * Digests {@link #sameValue} computed for values that differ, by value identity: {@link #apply} records
     * them without hashing the same bytes again (both run on the request thread). Null when empty.
     */
    private Map<byte[], ValueDigest> computed;
    private long valueBytes;
    /** {@link #ENTRY_OVERHEAD} and two bytes per name character, for each attribute held. */
    private long entryBytes;

    public SessionCopy(String sessionId) {
        this.sessionId = sessionId;
    }

    /** Builds a copy from a full update. */
    public static SessionCopy of(SessionUpdate full) {
        SessionCopy copy = new SessionCopy(full.sessionId());
        copy.apply(full);
        return copy;
    }

    /** Applies a full copy or a delta whose {@code fromVersion} the caller has checked. */
    public void apply(SessionUpdate update) {
        if (update.full()) {
            if (digests != null) {
                digests.clear();
            } else {
                attributes.clear();
            }
            valueBytes = 0;
            entryBytes = 0;
        }
        for (String name : update.removed()) {
            Object old = digests == null ? attributes.remove(name) : digests.remove(name);
            valueBytes -= lengthOf(old);
            entryBytes -= old == null ? 0 : entryBytes(name);
        }
        for (Map.Entry<String, byte[]> e : update.changed().entrySet()) {
            Object old = digests == null ? attributes.put(e.getKey(), e.getValue())
                    : digests.put(e.getKey(), digestOf(e.getValue()));
            valueBytes += e.getValue().length - lengthOf(old);
            entryBytes += old == null ? entryBytes(e.getKey()) : 0;
        }
        computed = null;
        version = update.toVersion();
        creationTime = update.creationTime();
        lastAccessedTime = update.lastAccessedTime();
        maxInactiveSeconds = update.maxInactiveSeconds();
    }

    private ValueDigest digestOf(byte[] bytes) {
        ValueDigest known = computed == null ? null : computed.get(bytes);
        return known != null ? known : ValueDigest.of(bytes);
    }

    private static long lengthOf(Object value) {
        if (value instanceof byte[] bytes) {
            return bytes.length;
        }
        return value instanceof ValueDigest d ? d.length() : 0;
    }

    /** Whether this copy holds the serialized values (else digests only: see the class comment). */
    public boolean holdsValues() {
        return digests == null;
    }

    /** Keeps only a digest of each value from now on (a primary whose container holds the session live). */
    public void releaseValues() {
        if (digests != null) {
            return;
        }
        digests = new HashMap<>(Math.max(4, attributes.size() * 2));
        for (Map.Entry<String, byte[]> e : attributes.entrySet()) {
            digests.put(e.getKey(), ValueDigest.of(e.getValue()));
        }
        attributes = Map.of(); // a cleared HashMap would keep its table, for every session a primary owns
    }

    /**
     * This copy as a full update at its current version. Only while it {@link #holdsValues}; otherwise see
     * {@link #toFullUpdate(Map)}.
     */
    public SessionUpdate toFullUpdate() {
        if (digests != null) {
            throw new IllegalStateException("session copy holds digests only: its values are the live session's");
        }
        return toFullUpdate(new HashMap<>(attributes));
    }

    /** A full update at this copy's version and metadata, with {@code values} (serialized from the live session). */
    public SessionUpdate toFullUpdate(Map<String, byte[]> values) {
        return new SessionUpdate(sessionId, 0, version, true, creationTime, lastAccessedTime, maxInactiveSeconds,
                values, Set.of());
    }

    /** A read-only access: only the last access time moves (never backwards). */
    public void touch(long accessedAt) {
        lastAccessedTime = Math.max(lastAccessedTime, accessedAt);
    }

    /** Renumbers the copy (a new primary continues after the version it took over). */
    public void setVersion(long version) {
        this.version = version;
    }

    public String sessionId() {
        return sessionId;
    }

    public long version() {
        return version;
    }

    public long lastAccessedTime() {
        return lastAccessedTime;
    }

    public int maxInactiveSeconds() {
        return maxInactiveSeconds;
    }

    /** The serialized value; null when absent or when this copy keeps digests only. */
    public byte[] attribute(String name) {
        return attributes.get(name);
    }

    public boolean hasAttribute(String name) {
        return digests == null ? attributes.containsKey(name) : digests.containsKey(name);
    }

    /** Whether the attribute's value serializes to exactly {@code bytes} (by digest, when values are released). */
    public boolean sameValue(String name, byte[] bytes) {
        if (digests == null) {
            return Arrays.equals(bytes, attributes.get(name));
        }
        ValueDigest digest = ValueDigest.of(bytes);
        if (digest.equals(digests.get(name))) {
            return true;
        }
        if (computed == null) {
            computed = new java.util.IdentityHashMap<>(4);
        }
        computed.put(bytes, digest);
        return false;
    }

    /** Sum of the serialized attribute sizes. */
    public long valueBytes() {
        return valueBytes;
    }

    /** What holding this copy costs in heap, roughly: values, names, the id, and the overheads above. */
    public long heldBytes() {
        return COPY_OVERHEAD + 2L * sessionId.length() + entryBytes + valueBytes;
    }

    /** {@link #valueBytes} and {@link #heldBytes} this copy would have after {@code update}, which is not applied. */
    public long[] sizesAfter(SessionUpdate update) {
        if (update.full()) {
            return sizesOf(update);
        }
        long values = valueBytes;
        long entries = entryBytes;
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (String name : update.removed()) {
            if (hasAttribute(name) && seen.add(name)) {
                values -= lengthOfHeld(name);
                entries -= entryBytes(name);
            }
        }
        for (Map.Entry<String, byte[]> e : update.changed().entrySet()) {
            if (hasAttribute(e.getKey()) && !seen.contains(e.getKey())) {
                values -= lengthOfHeld(e.getKey());
            } else {
                entries += entryBytes(e.getKey());
            }
            values += e.getValue().length;
        }
        return new long[] {values, COPY_OVERHEAD + 2L * sessionId.length() + entries + values};
    }

    /** {@link #valueBytes} and {@link #heldBytes} of a copy made of the full update {@code full}. */
    public static long[] sizesOf(SessionUpdate full) {
        long values = 0;
        long entries = 0;
        for (Map.Entry<String, byte[]> e : full.changed().entrySet()) {
            values += e.getValue().length;
            entries += entryBytes(e.getKey());
        }
        return new long[] {values, COPY_OVERHEAD + 2L * full.sessionId().length() + entries + values};
    }

    private long lengthOfHeld(String name) {
        return lengthOf(digests == null ? attributes.get(name) : digests.get(name));
    }

    private static long entryBytes(String name) {
        return ENTRY_OVERHEAD + 2L * name.length();
    }
}
