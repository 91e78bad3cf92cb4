package io.sessionrep.discovery;

import javax.crypto.SecretKey;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;

/**
 * {@code cluster-key}: every node derives the same 256-bit key from the shared secret (PBKDF2 with
 * HMAC-SHA256, {@value #ITERATIONS} iterations, salted with the cluster name, so clusters with the same
 * secret and different names do not understand each other) and {@link SealedFrames}, directly above the
 * transport, seals every message of the stack with it ({@link FrameSealer}: AES-256-GCM over the whole
 * message, headers included, a counter per sender accepted once, a sent-at time accepted within
 * {@link #MAX_CLOCK_SKEW}).
 *
 * <p>What this protects against: a host without the secret that reaches the replication port, or sits on
 * the path, can neither read anything (sessions, membership, discovery), nor join (its join request is not
 * authentic and is dropped below discovery), nor inject, alter or replay a message, payload-less ones
 * included. What it does not protect against: see the README's security section (denial of service, the
 * plain FD_SOCK2 port, plain multicast discovery requests of {@code dynamic-discovery=multicast}, a
 * compromised member, and JGroups parsing the outer frame before it is refused).
 *
 * <p>This replaces JGroups' SYM_ENCRYPT, which encrypts the payload only (headers stay plain and
 * unauthenticated, payload-less messages pass unencrypted), has no integrity check in CBC mode, and no
 * replay protection.
 */
public final class ClusterKeyEncryption {
    static final int ITERATIONS = 210_000;
    static final int KEY_BITS = 256;
    /** How far a frame's sent-at may be from the receiver's clock: the nodes' clocks must agree this well. */
    public static final Duration MAX_CLOCK_SKEW = Duration.ofSeconds(60);

    private ClusterKeyEncryption() {
    }

    /** The protocol for this secret and cluster, to be placed directly above the transport. */
    public static SealedFrames protocol(String clusterKey, String clusterName) {
        return protocol(clusterKey, clusterName, Clock.systemUTC());
    }

    static SealedFrames protocol(String clusterKey, String clusterName, Clock clock) {
        return new SealedFrames(new FrameSealer(deriveKey(clusterKey, clusterName), clock, MAX_CLOCK_SKEW));
    }

    static SecretKey deriveKey(String clusterKey, String clusterName) {
        try {
            byte[] salt = ("sessionrep cluster " + clusterName).getBytes(StandardCharsets.UTF_8);
            PBEKeySpec spec = new PBEKeySpec(clusterKey.toCharArray(), salt, ITERATIONS, KEY_BITS);
            byte[] key = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
            spec.clearPassword();
            return new SecretKeySpec(key, "HmacSHA256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot derive the cluster-key encryption key: " + e.getMessage(), e);
        }
    }
}
