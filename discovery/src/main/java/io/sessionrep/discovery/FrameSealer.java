package io.sessionrep.discovery;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Seals and opens the frames of {@code cluster-key}: authenticated encryption with replay protection,
 * built only from the JDK's AES-GCM and HMAC-SHA256. No JGroups in here (see {@link SealedFrames}).
 *
 * <pre>
 * frame = version (1 byte, 1) | instance (16 bytes) | counter (8) | sent-at millis (8) | AES-256-GCM ciphertext + 16-byte tag
 * </pre>
 * <ul>
 *   <li><b>instance</b>: random per sealer (per node start). Each instance encrypts with its own key,
 *       HMAC-SHA256(cluster key, "sessionrep frame key v1" | instance), so the 96-bit GCM nonce
 *       (4 zero bytes | counter) is never reused under one key, however many nodes share the cluster key.</li>
 *   <li><b>counter</b>: 1, 2, 3, ... per instance; a receiver accepts each counter of an instance once
 *       ({@link ReplayWindow}).</li>
 *   <li><b>sent-at</b>: the sender's clock; a receiver refuses a frame more than {@link #maxClockSkew} away
 *       from its own clock, so frames of an instance it no longer remembers (a node that left) cannot be
 *       replayed later. The nodes' clocks must therefore agree within that bound (NTP).</li>
 *   <li>The first 33 bytes are the GCM's additional authenticated data: nothing in a frame can be changed
 *       without {@link #open} refusing it.</li>
 * </ul>
 * Thread-safe. {@link #open} keeps state only for frames that authenticated, so frames from outsiders
 * cannot grow it; state of an instance is dropped after it has been silent for twice the clock skew plus a
 * minute, when its frames can no longer be fresh.
 */
final class FrameSealer {

    static final byte VERSION = 1;
    static final int INSTANCE_BYTES = 16;
    static final int HEADER_BYTES = 1 + INSTANCE_BYTES + 8 + 8;
    static final int TAG_BITS = 128;
    static final int OVERHEAD = HEADER_BYTES + TAG_BITS / 8;
    private static final String CIPHER = "AES/GCM/NoPadding";
    private static final byte[] KEY_LABEL = "sessionrep frame key v1".getBytes(StandardCharsets.US_ASCII);
    /**
     * One AES-GCM cipher per thread, initialized again for every frame: looking one up in the providers for each frame
     * cost about 4 us per frame sealed and opened, four fifths of what a 100-byte frame cost in all (SealingBenchmark).
     * A JDK class only, so a container's threads keep nothing of a web application's.
     */
    private static final ThreadLocal<Cipher> CIPHERS = ThreadLocal.withInitial(FrameSealer::newCipher);

    /** Why {@link #open} refused a frame. */
    enum Refusal {
        MALFORMED("malformed (too short or unknown version)"),
        STALE("not fresh (sent-at too far from this node's clock: replayed, or the clocks differ)"),
        REPLAYED("already received (replayed)"),
        NOT_AUTHENTIC("not authentic (another cluster-key, or altered on the way)");

        final String description;

        Refusal(String description) {
            this.description = description;
        }
    }

    /** A frame that {@link #open} refused. */
    static final class RefusedFrame extends Exception {
        final Refusal reason;

        RefusedFrame(Refusal reason, String detail) {
            super(reason.description + (detail.isEmpty() ? "" : ": " + detail), null, false, false);
            this.reason = reason;
        }
    }

    private final SecretKey clusterKey;
    private final Clock clock;
    private final long maxSkewMillis;
    private final byte[] instance = new byte[INSTANCE_BYTES];
    private final SecretKey sealingKey;
    private final AtomicLong counter = new AtomicLong();
    private final Map<Instance, Peer> peers = new ConcurrentHashMap<>();
    private final AtomicLong lastPurge = new AtomicLong();

    /**
     * @param clusterKey    the key derived from {@code cluster-key} ({@link ClusterKeyEncryption#deriveKey})
     * @param clock         the clock for sent-at and freshness
     * @param maxClockSkew  how far sent-at may be from this node's clock
     */
    FrameSealer(SecretKey clusterKey, Clock clock, Duration maxClockSkew) {
        this.clusterKey = Objects.requireNonNull(clusterKey, "clusterKey");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.maxSkewMillis = maxClockSkew.toMillis();
        new SecureRandom().nextBytes(instance);
        this.sealingKey = instanceKey(instance);
    }

    Duration maxClockSkew() {
        return Duration.ofMillis(maxSkewMillis);
    }

    /** The frame for {@code length} bytes of {@code plain} from {@code offset}. */
    byte[] seal(byte[] plain, int offset, int length) {
        return seal(plain, offset, length, null);
    }

    /**
     * The frame for {@code length} bytes of {@code plain} from {@code offset}, authenticating {@code binding} too
     * (null: nothing more): bytes both ends know and the frame does not carry, which {@link #open} must be given alike.
     */
    byte[] seal(byte[] plain, int offset, int length, byte[] binding) {
        long n = counter.incrementAndGet();
        byte[] frame = new byte[HEADER_BYTES + length + TAG_BITS / 8];
        ByteBuffer.wrap(frame).put(VERSION).put(instance).putLong(n).putLong(clock.millis());
        try {
            Cipher cipher = CIPHERS.get();
            cipher.init(Cipher.ENCRYPT_MODE, sealingKey, new GCMParameterSpec(TAG_BITS, nonce(n)));
            cipher.updateAAD(frame, 0, HEADER_BYTES);
            if (binding != null) {
                cipher.updateAAD(binding);
            }
            cipher.doFinal(plain, offset, length, frame, HEADER_BYTES);
            return frame;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot seal a frame with AES-GCM: " + e, e);
        }
    }

    /**
     * The plaintext of {@code frame}, accepted at most once.
     *
     * @throws RefusedFrame when the frame is malformed, not fresh, replayed or not authentic
     */
    byte[] open(byte[] frame, int offset, int length) throws RefusedFrame {
        return open(frame, offset, length, null);
    }

    /**
     * The plaintext of a frame sealed with {@code binding} ({@link #seal(byte[], int, int, byte[])}), accepted at most
     * once; a frame sealed with other binding bytes is not authentic.
     */
    byte[] open(byte[] frame, int offset, int length, byte[] binding) throws RefusedFrame {
        if (length < OVERHEAD || frame[offset] != VERSION) {
            throw new RefusedFrame(Refusal.MALFORMED, length + " bytes");
        }
        ByteBuffer header = ByteBuffer.wrap(frame, offset + 1, HEADER_BYTES - 1);
        Instance sender = new Instance(header.getLong(), header.getLong());
        long n = header.getLong();
        long sentAt = header.getLong();
        long now = clock.millis();
        if (Math.abs(now - sentAt) > maxSkewMillis) {
            throw new RefusedFrame(Refusal.STALE, "sent-at is " + (now - sentAt) / 1000 + " s from this node's clock,"
                    + " at most " + maxSkewMillis / 1000 + " s allowed");
        }
        Peer known = peers.get(sender);
        if (known != null && known.window.refuses(n)) {
            throw new RefusedFrame(Refusal.REPLAYED, "counter " + n);
        }
        SecretKey key = known != null ? known.key : instanceKey(sender.bytes());
        byte[] plain;
        try {
            Cipher cipher = CIPHERS.get();
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce(n)));
            cipher.updateAAD(frame, offset, HEADER_BYTES);
            if (binding != null) {
                cipher.updateAAD(binding);
            }
            plain = cipher.doFinal(frame, offset + HEADER_BYTES, length - HEADER_BYTES);
        } catch (AEADBadTagException e) {
            throw new RefusedFrame(Refusal.NOT_AUTHENTIC, "");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot open a frame with AES-GCM: " + e, e);
        }
        Peer peer = known != null ? known : peers.computeIfAbsent(sender, s -> new Peer(key));
        if (!peer.window.accept(n)) {
            throw new RefusedFrame(Refusal.REPLAYED, "counter " + n);
        }
        peer.lastSeen = now;
        purgeSilentPeers(now);
        return plain;
    }

    /** How many sender instances this sealer remembers (for tests). */
    int rememberedInstances() {
        return peers.size();
    }

    private void purgeSilentPeers(long now) {
        long last = lastPurge.get();
        long retention = 2 * maxSkewMillis + 60_000;
        if (now - last < 30_000 || !lastPurge.compareAndSet(last, now)) {
            return;
        }
        for (Iterator<Peer> it = peers.values().iterator(); it.hasNext(); ) {
            if (now - it.next().lastSeen > retention) {
                it.remove();
            }
        }
    }

    private SecretKey instanceKey(byte[] instanceId) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(clusterKey.getAlgorithm().equals("HmacSHA256") ? clusterKey
                    : new SecretKeySpec(clusterKey.getEncoded(), "HmacSHA256"));
            mac.update(KEY_LABEL);
            return new SecretKeySpec(mac.doFinal(instanceId), "AES");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot derive a frame key with HMAC-SHA256: " + e, e);
        }
    }

    private static Cipher newCipher() {
        try {
            return Cipher.getInstance(CIPHER);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no " + CIPHER + ": " + e, e);
        }
    }

    private static byte[] nonce(long counter) {
        return ByteBuffer.allocate(12).putInt(0).putLong(counter).array();
    }

    /** A sender instance id (16 bytes as two longs). */
    private record Instance(long high, long low) {
        byte[] bytes() {
            return ByteBuffer.allocate(INSTANCE_BYTES).putLong(high).putLong(low).array();
        }
    }

    /** What a receiver remembers of one sender instance whose frames authenticated. */
    private static final class Peer {
        final SecretKey key;
        final ReplayWindow window = new ReplayWindow();
        volatile long lastSeen;

        Peer(SecretKey key) {
            this.key = key;
        }
    }
}
