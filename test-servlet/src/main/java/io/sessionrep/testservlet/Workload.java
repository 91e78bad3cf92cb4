package io.sessionrep.testservlet;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The sample servlet's session workload, independent of the Servlet API.
 *
 * <p>A session holds an {@code Integer} attribute {@value #VERSION} and byte arrays {@code attr-0 ..
 * attr-(n-1)}. The bytes of {@code attr-i} are a pure function of (version, i, length), so a session's whole
 * state, and its checksum, follow from (number, size, version): {@link #expected} computes it without a
 * server, which is how fail-over tests decide whether a copy is exactly some version.
 */
public final class Workload {

    /** The attribute counting {@code process} calls since {@code initialize} (which sets it to 0). */
    public static final String VERSION = "version";
    /** Prefix of the payload attributes. */
    public static final String ATTRIBUTE_PREFIX = "attr-";

    private Workload() {
    }

    /** Sets version 0 and {@code number} attributes of {@code sizeKiB} KiB; drops other payload attributes. */
    public static void initialize(WorkloadAttributes session, int number, int sizeKiB) {
        for (String name : List.copyOf(session.names())) {
            int index = payloadIndex(name);
            if (index >= number) {
                session.remove(name);
            }
        }
        for (int i = 0; i < number; i++) {
            session.set(ATTRIBUTE_PREFIX + i, pattern(0, i, sizeKiB * 1024));
        }
        session.set(VERSION, 0);
    }

    /**
     * Increments the version and replaces every payload attribute with the next version's bytes, via
     * {@code set}. Returns false (and changes nothing) when the session was never initialized.
     */
    public static boolean process(WorkloadAttributes session) {
        if (!(session.get(VERSION) instanceof Integer current)) {
            return false;
        }
        int next = current + 1;
        for (String name : List.copyOf(session.names())) {
            int index = payloadIndex(name);
            if (index >= 0 && session.get(name) instanceof byte[] old) {
                session.set(name, pattern(next, index, old.length));
            }
        }
        session.set(VERSION, next);
        return true;
    }

    /** The session's workload state; reads only. */
    public static WorkloadState summarize(WorkloadAttributes session) {
        Map<String, Object> sorted = new TreeMap<>();
        int attributes = 0;
        long bytes = 0;
        for (String name : session.names()) {
            boolean payload = payloadIndex(name) >= 0;
            if (payload || VERSION.equals(name)) {
                Object value = session.get(name);
                sorted.put(name, value);
                if (payload) {
                    attributes++;
                    bytes += value instanceof byte[] b ? b.length : 0;
                }
            }
        }
        Integer version = sorted.get(VERSION) instanceof Integer v ? v : null;
        return new WorkloadState(version, attributes, bytes, checksum(sorted));
    }

    /** The state a session initialized with (number, sizeKiB) has after {@code version} process calls. */
    public static WorkloadState expected(int number, int sizeKiB, int version) {
        Map<String, Object> session = new HashMap<>();
        for (int i = 0; i < number; i++) {
            session.put(ATTRIBUTE_PREFIX + i, pattern(version, i, sizeKiB * 1024));
        }
        session.put(VERSION, version);
        return summarize(WorkloadAttributes.of(session));
    }

    /** Deterministic, version- and index-dependent bytes (xorshift64 seeded from both). */
    static byte[] pattern(int version, int index, int length) {
        byte[] out = new byte[length];
        long x = 0x9E3779B97F4A7C15L * (((long) version << 20) + index + 1);
        for (int i = 0; i < length; i++) {
            if ((i & 7) == 0) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
            out[i] = (byte) (x >>> ((i & 7) * 8));
        }
        return out;
    }

    /** The index i of {@code attr-i}, or -1 when {@code name} is not a payload attribute. */
    static int payloadIndex(String name) {
        if (!name.startsWith(ATTRIBUTE_PREFIX) || name.length() == ATTRIBUTE_PREFIX.length()) {
            return -1;
        }
        String digits = name.substring(ATTRIBUTE_PREFIX.length());
        for (int i = 0; i < digits.length(); i++) {
            if (!Character.isDigit(digits.charAt(i))) {
                return -1;
            }
        }
        return digits.length() > 6 ? -1 : Integer.parseInt(digits);
    }

    /** SHA-256 over each (name, type, length, value) in name order. */
    static String checksum(Map<String, Object> sortedByName) {
        MessageDigest sha = sha256();
        for (Map.Entry<String, Object> e : sortedByName.entrySet()) {
            sha.update(e.getKey().getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            Object value = e.getValue();
            byte[] bytes;
            char type;
            if (value instanceof byte[] b) {
                type = 'B';
                bytes = b;
            } else if (value instanceof Integer i) {
                type = 'I';
                bytes = ByteBuffer.allocate(4).putInt(i).array();
            } else {
                type = value instanceof String ? 'S' : '?';
                bytes = String.valueOf(value).getBytes(StandardCharsets.UTF_8);
            }
            sha.update((byte) type);
            sha.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
            sha.update(bytes);
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
