package io.sessionrep.core.wire;

import io.sessionrep.core.delta.SessionUpdate;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Binary encoding of {@link Message}s. Every message starts with a magic byte, the protocol version and
 * a type byte. It writes the version it is told ({@link ProtocolRange}: what every member of the view reads) and
 * reads every version from {@link #OLDEST_READ} to {@link #CURRENT}; the messages themselves are the same in both,
 * the attribute values inside differ (see {@link ProtocolRange}). The decoder checks every length against the bytes actually present before it allocates,
 * so hostile input costs at most the size of the input; anything wrong is a
 * {@link MalformedMessageException}, never another exception.
 *
 * <pre>
 * header   : magic 0x53, version (2 to 4), type
 * string   : u16 length, UTF-8 bytes           (ids, names; at most 4096 bytes)
 * bytes    : i32 length, bytes
 * UPDATE   : flags(1: full, 2: ack requested) id from to created accessed maxInactive(i32)
 *            changedCount(i32) {string bytes}* removedCount(i32) {string}*
 * ACK      : status(u8) version [id, protocol 4 on; empty: none]
 * INVALIDATE, FETCH, RESYNC, REFUSED : id
 * OWNERSHIP: id version owner serving(u8: 0 promoted, 1 serving)
 * FETCH_REPLY: found(u8: 0 none, 1 backup copy, 2 primary copy) [UPDATE body]
 * TOUCH    : count(i32) {id accessed}*
 * RELEASE  : id version
 * RECONCILE: count(i32) {id}*
 * RECONCILE_REPLY: count(i32) {id kind(u8) version}*
 * ADMIN_QUERY (protocol 4 and later): kind(u8) argument offset(i32) limit(i32)
 * ADMIN_REPLY (protocol 4 and later): total(i32) count(i32) {session owner backupCount(i32) {name}* size(i64)
 *            accessed(i64) principal}*
 * </pre>
 */
public final class WireCodec {
    static final byte MAGIC = 0x53;
    /**
     * The newest protocol: 4, which adds the operator's queries ({@link Message.AdminQuery}) to the messages of 3
     * and acknowledgements that name their session. 3: attribute values with named fields. 2: values with fields in
     * declaration order (read,
     * and written while a member reads nothing newer). 1 (values with references) is refused as malformed: its
     * values would decode wrong without an error.
     */
    public static final int CURRENT = 4;
    /** The oldest protocol with {@link Message.AdminQuery} and {@link Message.AdminReply}. */
    public static final int ADMIN_SINCE = 4;
    /** The oldest protocol this build reads. */
    public static final int OLDEST_READ = 2;
    static final int MAX_STRING = 4096;

    private static final byte UPDATE = 1;
    private static final byte ACK = 2;
    private static final byte INVALIDATE = 3;
    private static final byte OWNERSHIP = 4;
    private static final byte FETCH = 5;
    private static final byte FETCH_REPLY = 6;
    private static final byte RESYNC = 7;
    private static final byte TOUCH = 8;
    private static final byte RELEASE = 9;
    private static final byte RECONCILE = 10;
    private static final byte RECONCILE_REPLY = 11;
    private static final byte ACQUIRE = 12;
    private static final byte ACQUIRE_REPLY = 13;
    private static final byte ACQUIRE_CANCEL = 14;
    private static final byte REFUSED = 15;
    private static final byte ADMIN_QUERY = 16;
    private static final byte ADMIN_REPLY = 17;

    /**
     * Versions above this are refused: a node adds one per change or hand-over, so it is never reached, and
     * a peer cannot push one close to {@code Long.MAX_VALUE} to make the next increment wrap around.
     */
    public static final long MAX_VERSION = 1L << 62;
    private static final int FLAG_FULL = 1;
    private static final int FLAG_ACK = 2;

    private WireCodec() {
    }

    /** {@code message} in the {@link #CURRENT} protocol. */
    public static byte[] encode(Message message) {
        return encode(message, CURRENT);
    }

    /**
     * {@code message} in protocol {@code version}. The caller makes its attribute values readable in that version
     * (protocol 2 reads only field-order values).
     */
    public static byte[] encode(Message message, int version) {
        if (version < OLDEST_READ || version > CURRENT) {
            throw new IllegalArgumentException("protocol " + version + " is not written by this build (" + OLDEST_READ
                    + "-" + CURRENT + ")");
        }
        if ((message instanceof Message.AdminQuery || message instanceof Message.AdminReply) && version < ADMIN_SINCE) {
            throw new IllegalArgumentException("protocol " + version + " has no operator queries (since " + ADMIN_SINCE + ")");
        }
        Writer w = new Writer(estimate(message));
        w.u8(MAGIC);
        w.u8((byte) version);
        if (message instanceof Message.Update m) {
            w.u8(UPDATE);
            writeUpdate(w, m.update(), m.ackRequested());
        } else if (message instanceof Message.Ack m) {
            w.u8(ACK);
            w.u8((byte) m.status().ordinal());
            w.i64(m.version());
            if (version >= 4) {
                w.string(m.sessionId() == null ? "" : m.sessionId());
            }
        } else if (message instanceof Message.Invalidate m) {
            w.u8(INVALIDATE);
            w.string(m.sessionId());
        } else if (message instanceof Message.Ownership m) {
            w.u8(OWNERSHIP);
            w.string(m.sessionId());
            w.i64(m.version());
            w.string(m.owner());
            w.u8((byte) ((m.serving() ? 1 : 0) | (m.handedOver() ? 2 : 0)));
        } else if (message instanceof Message.Fetch m) {
            w.u8(FETCH);
            w.string(m.sessionId());
        } else if (message instanceof Message.FetchReply m) {
            w.u8(FETCH_REPLY);
            w.u8((byte) (m.copy() == null ? 0 : m.primary() ? 2 : 1));
            if (m.copy() != null) {
                writeUpdate(w, m.copy(), false);
            }
        } else if (message instanceof Message.Resync m) {
            w.u8(RESYNC);
            w.string(m.sessionId());
        } else if (message instanceof Message.Refused m) {
            w.u8(REFUSED);
            w.string(m.sessionId());
        } else if (message instanceof Message.Touch m) {
            w.u8(TOUCH);
            w.i32(m.entries().size());
            for (Message.Touch.Entry e : m.entries()) {
                w.string(e.sessionId());
                w.i64(e.lastAccessedTime());
            }
        } else if (message instanceof Message.Release m) {
            w.u8(RELEASE);
            w.string(m.sessionId());
            w.i64(m.version());
        } else if (message instanceof Message.Reconcile m) {
            w.u8(RECONCILE);
            w.i32(m.sessionIds().size());
            for (String id : m.sessionIds()) {
                w.string(id);
            }
        } else if (message instanceof Message.ReconcileReply m) {
            w.u8(RECONCILE_REPLY);
            w.i32(m.claims().size());
            for (Message.ReconcileReply.Claim c : m.claims()) {
                w.string(c.sessionId());
                w.u8((byte) c.kind().ordinal());
                w.i64(c.version());
            }
        } else if (message instanceof Message.Acquire m) {
            w.u8(ACQUIRE);
            w.string(m.sessionId());
            w.i64(m.requestId());
            w.i64(m.heldVersion());
        } else if (message instanceof Message.AcquireReply m) {
            w.u8(ACQUIRE_REPLY);
            w.string(m.sessionId());
            w.i64(m.requestId());
            w.u8((byte) m.outcome().ordinal());
            w.string(m.ownerHint() == null ? "" : m.ownerHint());
            w.i32(m.holders().size());
            for (String holder : m.holders()) {
                w.string(holder);
            }
            w.u8((byte) (m.state() == null ? 0 : 1));
            if (m.state() != null) {
                writeUpdate(w, m.state(), false);
            }
        } else if (message instanceof Message.AcquireCancel m) {
            w.u8(ACQUIRE_CANCEL);
            w.string(m.sessionId());
            w.i64(m.requestId());
        } else if (message instanceof Message.AdminQuery m) {
            w.u8(ADMIN_QUERY);
            w.u8((byte) m.kind().ordinal());
            w.string(m.argument());
            w.i32(m.offset());
            w.i32(m.limit());
        } else if (message instanceof Message.AdminReply m) {
            w.u8(ADMIN_REPLY);
            w.i32(m.total());
            w.i32(m.rows().size());
            for (Message.AdminRow row : m.rows()) {
                w.string(row.session());
                w.string(row.owner());
                w.i32(row.backups().size());
                for (String backup : row.backups()) {
                    w.string(backup);
                }
                w.i64(row.sizeBytes());
                w.i64(row.lastAccessedTime());
                w.string(row.principal());
            }
        } else {
            throw new IllegalArgumentException("unknown message " + message);
        }
        return w.toBytes();
    }

    /**
     * The buffer to start with: the exact size of the frequent messages that carry values (an update, a fetch
     * reply with a copy), so that {@link Writer#toBytes} hands the buffer over instead of copying the whole
     * frame once more; an estimate for the others (the buffer grows or is trimmed as needed).
     */
    private static int estimate(Message message) {
        if (message instanceof Message.Update m) {
            return (int) Math.min(Integer.MAX_VALUE - 1024, 3 + updateSize(m.update()));
        }
        if (message instanceof Message.FetchReply m && m.copy() != null) {
            return (int) Math.min(Integer.MAX_VALUE - 1024, 4 + updateSize(m.copy()));
        }
        if (message instanceof Message.Touch m) {
            return 16 + 48 * m.entries().size();
        }
        if (message instanceof Message.Reconcile m) {
            return 16 + 40 * m.sessionIds().size();
        }
        if (message instanceof Message.ReconcileReply m) {
            return 16 + 48 * m.claims().size();
        }
        if (message instanceof Message.AdminReply m) {
            return 16 + 96 * m.rows().size();
        }
        if (message instanceof Message.AcquireReply m && m.state() != null) {
            return 160 + (int) Math.min(Integer.MAX_VALUE - 1024, m.state().valueBytes()) + 32 * m.state().changed().size();
        }
        return 64;
    }

    /** Bytes {@link #writeUpdate} writes for {@code u}. */
    static long updateSize(SessionUpdate u) {
        long size = 1 + stringSize(u.sessionId()) + 4 * 8 + 4 + 4 + 4;
        for (Map.Entry<String, byte[]> e : u.changed().entrySet()) {
            size += stringSize(e.getKey()) + 4 + e.getValue().length;
        }
        for (String name : u.removed()) {
            size += stringSize(name);
        }
        return size;
    }

    /** Bytes {@link Writer#string} writes: the u16 length and the UTF-8 bytes ({@code getBytes}' replacement included). */
    static int stringSize(String s) {
        int n = s.length();
        int bytes = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                bytes++; // a lone surrogate: getBytes writes '?'
            } else {
                bytes += 3;
            }
        }
        return 2 + bytes;
    }

    private static void writeUpdate(Writer w, SessionUpdate u, boolean ackRequested) {
        w.u8((byte) ((u.full() ? FLAG_FULL : 0) | (ackRequested ? FLAG_ACK : 0)));
        w.string(u.sessionId());
        w.i64(u.fromVersion());
        w.i64(u.toVersion());
        w.i64(u.creationTime());
        w.i64(u.lastAccessedTime());
        w.i32(u.maxInactiveSeconds());
        w.i32(u.changed().size());
        for (Map.Entry<String, byte[]> e : u.changed().entrySet()) {
            w.string(e.getKey());
            w.bytes(e.getValue());
        }
        w.i32(u.removed().size());
        for (String name : u.removed()) {
            w.string(name);
        }
    }

    /** A message of any protocol this build reads. */
    public static Message decode(byte[] data) throws MalformedMessageException {
        return decode(data, CURRENT);
    }

    /** A message of a protocol from {@link #OLDEST_READ} to {@code newest} (what the node states it reads). */
    public static Message decode(byte[] data, int newest) throws MalformedMessageException {
        Reader r = new Reader(data);
        if (r.u8() != MAGIC) {
            throw new MalformedMessageException("bad magic byte");
        }
        int version = r.u8();
        if (version < OLDEST_READ || version > Math.min(newest, CURRENT)) {
            throw new MalformedMessageException("unsupported protocol version " + version + " (this node reads "
                    + OLDEST_READ + "-" + Math.min(newest, CURRENT) + ")");
        }
        int type = r.u8();
        Message message = switch (type) {
            case UPDATE -> {
                int flags = r.u8();
                yield new Message.Update(readUpdateAfterFlags(r, flags), (flags & FLAG_ACK) != 0);
            }
            case ACK -> {
                int status = r.u8();
                if (status >= Message.AckStatus.values().length) {
                    throw new MalformedMessageException("unknown ack status " + status);
                }
                long acked = r.i64();
                String id = version >= 4 ? r.string() : "";
                yield new Message.Ack(Message.AckStatus.values()[status], acked, id.isEmpty() ? null : id);
            }
            case INVALIDATE -> new Message.Invalidate(r.string());
            case OWNERSHIP -> {
                String id = r.string();
                long ownedAt = r.i64();
                String owner = r.string();
                if (ownedAt < 0 || ownedAt > MAX_VERSION) {
                    throw new MalformedMessageException("bad ownership version " + ownedAt);
                }
                int flags = r.u8();
                if (flags > 3) {
                    throw new MalformedMessageException("bad ownership flags " + flags);
                }
                yield new Message.Ownership(id, ownedAt, owner, (flags & 1) != 0, (flags & 2) != 0);
            }
            case FETCH -> new Message.Fetch(r.string());
            case FETCH_REPLY -> {
                int found = r.u8();
                if (found == 0) {
                    yield new Message.FetchReply(null);
                }
                if (found > 2) {
                    throw new MalformedMessageException("bad fetch reply flag " + found);
                }
                yield new Message.FetchReply(readUpdateAfterFlags(r, r.u8()), found == 2);
            }
            case RESYNC -> new Message.Resync(r.string());
            case REFUSED -> new Message.Refused(r.string());
            case TOUCH -> {
                int count = r.count(2 + 8);
                java.util.List<Message.Touch.Entry> entries = new java.util.ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    entries.add(new Message.Touch.Entry(r.string(), r.i64()));
                }
                yield new Message.Touch(entries);
            }
            case RELEASE -> {
                String id = r.string();
                long releasedAt = r.i64();
                if (releasedAt < 0 || releasedAt > MAX_VERSION) {
                    throw new MalformedMessageException("bad release version " + releasedAt);
                }
                yield new Message.Release(id, releasedAt);
            }
            case RECONCILE -> {
                int count = r.count(2);
                java.util.List<String> ids = new java.util.ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    ids.add(r.string());
                }
                yield new Message.Reconcile(ids);
            }
            case RECONCILE_REPLY -> {
                int count = r.count(2 + 1 + 8);
                java.util.List<Message.ReconcileReply.Claim> claims = new java.util.ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    String id = r.string();
                    int kind = r.u8();
                    if (kind >= Message.ClaimKind.values().length) {
                        throw new MalformedMessageException("unknown claim kind " + kind);
                    }
                    claims.add(new Message.ReconcileReply.Claim(id, Message.ClaimKind.values()[kind], r.i64()));
                }
                yield new Message.ReconcileReply(claims);
            }
            case ACQUIRE -> new Message.Acquire(r.string(), r.i64(), r.i64());
            case ACQUIRE_REPLY -> {
                String id = r.string();
                long requestId = r.i64();
                int outcome = r.u8();
                if (outcome >= Message.AcquireOutcome.values().length) {
                    throw new MalformedMessageException("unknown acquire outcome " + outcome);
                }
                String hint = r.string();
                int holderCount = r.count(2);
                java.util.List<String> holders = new java.util.ArrayList<>(holderCount);
                for (int i = 0; i < holderCount; i++) {
                    holders.add(r.string());
                }
                int hasState = r.u8();
                if (hasState > 1) {
                    throw new MalformedMessageException("bad acquire state flag " + hasState);
                }
                SessionUpdate state = hasState == 1 ? readUpdateAfterFlags(r, r.u8()) : null;
                Message.AcquireOutcome kind = Message.AcquireOutcome.values()[outcome];
                if ((kind == Message.AcquireOutcome.GRANTED) != (state != null)) {
                    throw new MalformedMessageException("a grant carries the state, and only a grant does");
                }
                if (state != null && (!state.full() || !state.sessionId().equals(id))) {
                    throw new MalformedMessageException("a grant carries a full copy of the session it names");
                }
                yield new Message.AcquireReply(id, requestId, kind, state, hint.isEmpty() ? null : hint, holders);
            }
            case ACQUIRE_CANCEL -> new Message.AcquireCancel(r.string(), r.i64());
            case ADMIN_QUERY -> readAdminQuery(r, version);
            case ADMIN_REPLY -> readAdminReply(r, version);
            default -> throw new MalformedMessageException("unknown message type " + type);
        };
        if (r.remaining() != 0) {
            throw new MalformedMessageException(r.remaining() + " trailing bytes");
        }
        return message;
    }

    private static Message.AdminQuery readAdminQuery(Reader r, int version) throws MalformedMessageException {
        requireAdmin(version);
        int kind = r.u8();
        if (kind >= Message.AdminKind.values().length) {
            throw new MalformedMessageException("unknown query kind " + kind);
        }
        String argument = r.string();
        int offset = r.i32();
        int limit = r.i32();
        if (offset < 0 || limit < 0 || limit > Message.AdminQuery.MAX_ROWS) {
            throw new MalformedMessageException("bad query window " + offset + "+" + limit);
        }
        return new Message.AdminQuery(Message.AdminKind.values()[kind], argument, offset, limit);
    }

    private static Message.AdminReply readAdminReply(Reader r, int version) throws MalformedMessageException {
        requireAdmin(version);
        int total = r.i32();
        int count = r.count(2 + 2 + 4 + 8 + 8 + 2);
        if (total < 0 || count > Message.AdminQuery.MAX_ROWS || count > total) {
            throw new MalformedMessageException("bad reply size " + count + " of " + total);
        }
        java.util.List<Message.AdminRow> rows = new java.util.ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String session = r.string();
            String owner = r.string();
            int backupCount = r.count(2);
            java.util.List<String> backups = new java.util.ArrayList<>(backupCount);
            for (int b = 0; b < backupCount; b++) {
                backups.add(r.string());
            }
            rows.add(new Message.AdminRow(session, owner, backups, r.i64(), r.i64(), r.string()));
        }
        return new Message.AdminReply(total, rows);
    }

    private static void requireAdmin(int version) throws MalformedMessageException {
        if (version < ADMIN_SINCE) {
            throw new MalformedMessageException("operator queries need protocol " + ADMIN_SINCE + ", not " + version);
        }
    }

    private static SessionUpdate readUpdateAfterFlags(Reader r, int flags) throws MalformedMessageException {
        if ((flags & ~(FLAG_FULL | FLAG_ACK)) != 0) {
            throw new MalformedMessageException("unknown update flags " + flags);
        }
        String id = r.string();
        long from = r.i64();
        long to = r.i64();
        if (to <= 0 || from < 0 || from >= to || to > MAX_VERSION) {
            throw new MalformedMessageException("bad versions " + from + " -> " + to);
        }
        long created = r.i64();
        long accessed = r.i64();
        int maxInactive = r.i32();
        int changedCount = r.count(2 + 4);
        Map<String, byte[]> changed = new HashMap<>(Math.max(4, changedCount * 2));
        for (int i = 0; i < changedCount; i++) {
            String name = r.string();
            if (changed.put(name, r.bytes()) != null) {
                throw new MalformedMessageException("attribute sent twice: " + name);
            }
        }
        int removedCount = r.count(2);
        Set<String> removed = new HashSet<>(Math.max(4, removedCount * 2));
        for (int i = 0; i < removedCount; i++) {
            String name = r.string();
            if (!removed.add(name)) { // also keeps one encoding per message: a set sized for duplicates iterates in another order
                throw new MalformedMessageException("attribute removed twice: " + name);
            }
        }
        boolean full = (flags & FLAG_FULL) != 0;
        if (full && !removed.isEmpty()) {
            throw new MalformedMessageException("a full copy cannot remove attributes");
        }
        return new SessionUpdate(id, from, to, full, created, accessed, maxInactive, changed, removed);
    }

    /** Growable big-endian writer. */
    private static final class Writer {
        private byte[] buf;
        private int pos;

        Writer(int capacity) {
            buf = new byte[Math.max(16, capacity)];
        }

        private void ensure(int n) {
            if (pos + n > buf.length) {
                buf = java.util.Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
            }
        }

        void u8(byte b) {
            ensure(1);
            buf[pos++] = b;
        }

        void i32(int v) {
            ensure(4);
            buf[pos++] = (byte) (v >>> 24);
            buf[pos++] = (byte) (v >>> 16);
            buf[pos++] = (byte) (v >>> 8);
            buf[pos++] = (byte) v;
        }

        void i64(long v) {
            i32((int) (v >>> 32));
            i32((int) v);
        }

        void string(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            if (b.length > MAX_STRING) {
                throw new IllegalArgumentException("string longer than " + MAX_STRING + " bytes: " + s.substring(0, 40) + "...");
            }
            ensure(2 + b.length);
            buf[pos++] = (byte) (b.length >>> 8);
            buf[pos++] = (byte) b.length;
            System.arraycopy(b, 0, buf, pos, b.length);
            pos += b.length;
        }

        void bytes(byte[] b) {
            i32(b.length);
            ensure(b.length);
            System.arraycopy(b, 0, buf, pos, b.length);
            pos += b.length;
        }

        byte[] toBytes() {
            return pos == buf.length ? buf : java.util.Arrays.copyOf(buf, pos);
        }
    }

    /** Bounds-checked big-endian reader. */
    private static final class Reader {
        private final byte[] buf;
        private int pos;

        Reader(byte[] buf) {
            this.buf = buf;
        }

        int remaining() {
            return buf.length - pos;
        }

        private void need(int n) throws MalformedMessageException {
            if (n < 0 || n > remaining()) {
                throw new MalformedMessageException("truncated: need " + n + " bytes, have " + remaining());
            }
        }

        int u8() throws MalformedMessageException {
            need(1);
            return buf[pos++] & 0xff;
        }

        int i32() throws MalformedMessageException {
            need(4);
            int v = ((buf[pos] & 0xff) << 24) | ((buf[pos + 1] & 0xff) << 16) | ((buf[pos + 2] & 0xff) << 8) | (buf[pos + 3] & 0xff);
            pos += 4;
            return v;
        }

        long i64() throws MalformedMessageException {
            long hi = i32() & 0xffffffffL;
            long lo = i32() & 0xffffffffL;
            return (hi << 32) | lo;
        }

        /** A count of entries each at least {@code minEntrySize} bytes long: checked against what is left. */
        int count(int minEntrySize) throws MalformedMessageException {
            int n = i32();
            if (n < 0 || (long) n * minEntrySize > remaining()) {
                throw new MalformedMessageException("impossible entry count " + n);
            }
            return n;
        }

        String string() throws MalformedMessageException {
            need(2);
            int len = ((buf[pos] & 0xff) << 8) | (buf[pos + 1] & 0xff);
            pos += 2;
            if (len > MAX_STRING) {
                throw new MalformedMessageException("string too long: " + len);
            }
            need(len);
            String s;
            if (isAscii(pos, len)) { // session ids and attribute names nearly always are: no decoder needed
                s = new String(buf, pos, len, StandardCharsets.US_ASCII);
            } else {
                try { // strict: malformed UTF-8 would decode to U+FFFD, so two byte strings could name one session
                    s = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(buf, pos, len)).toString();
                } catch (java.nio.charset.CharacterCodingException e) {
                    throw new MalformedMessageException("string is not valid UTF-8");
                }
            }
            pos += len;
            return s;
        }

        private boolean isAscii(int from, int len) {
            for (int i = from; i < from + len; i++) {
                if (buf[i] < 0) {
                    return false;
                }
            }
            return true;
        }

        byte[] bytes() throws MalformedMessageException {
            int len = i32();
            need(len);
            byte[] b = java.util.Arrays.copyOfRange(buf, pos, pos + len);
            pos += len;
            return b;
        }
    }
}
