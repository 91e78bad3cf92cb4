package io.sessionrep.discovery;

import java.time.Clock;

/**
 * {@code cluster-key}'s sealing for byte frames that travel outside the JGroups stack (the data lane of the
 * transport): the same authenticated encryption, freshness and replay window as {@link SealedFrames}, with an
 * instance of its own. Thread-safe.
 */
public final class SealedBytes {

    /** A frame that {@link #open} refused: malformed, not fresh, replayed or not authentic. */
    public static final class Refused extends Exception {
        Refused(String message) {
            super(message, null, false, false);
        }
    }

    /** Bytes a sealed frame adds to its plaintext. */
    public static final int OVERHEAD = FrameSealer.OVERHEAD;

    private final FrameSealer sealer;

    private SealedBytes(FrameSealer sealer) {
        this.sealer = sealer;
    }

    /** Sealing for {@code clusterKey} in {@code clusterName} (derives the key: a fraction of a second). */
    public static SealedBytes forClusterKey(String clusterKey, String clusterName) {
        return new SealedBytes(new FrameSealer(ClusterKeyEncryption.deriveKey(clusterKey, clusterName),
                Clock.systemUTC(), ClusterKeyEncryption.MAX_CLOCK_SKEW));
    }

    /** The sealed frame of {@code plain}. */
    public byte[] seal(byte[] plain) {
        return sealer.seal(plain, 0, plain.length);
    }

    /**
     * The sealed frame of {@code plain}, bound to {@code binding}: bytes both ends know (which connection, which
     * direction, which frame of it), authenticated but not carried; {@link #open(byte[], byte[])} refuses the frame
     * unless given the same.
     */
    public byte[] seal(byte[] plain, byte[] binding) {
        return sealer.seal(plain, 0, plain.length, binding);
    }

    /** The plaintext of {@code frame}, accepted at most once. */
    public byte[] open(byte[] frame) throws Refused {
        return open(frame, null);
    }

    /** The plaintext of {@code frame} sealed with {@code binding} (null: none), accepted at most once. */
    public byte[] open(byte[] frame, byte[] binding) throws Refused {
        try {
            return sealer.open(frame, 0, frame.length, binding);
        } catch (FrameSealer.RefusedFrame e) {
            throw new Refused(e.getMessage());
        }
    }
}
