package io.sessionrep.discovery;

import org.jgroups.protocols.SYM_ENCRYPT;
import org.jgroups.stack.Protocol;

import javax.crypto.SecretKey;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;

/**
 * {@code cluster-key}: every node derives the same AES-256 key from the shared secret (PBKDF2 with
 * HMAC-SHA256, 210,000 iterations, salted with the cluster name) and JGroups' SYM_ENCRYPT (AES-256-CBC,
 * a random IV per message) encrypts every
 * message above discovery and failure detection with it: replication traffic, membership (join requests
 * and views) and acknowledgements. A node with another key can neither decrypt the traffic nor be
 * understood: its join request is dropped, so it cannot join, and anything it sends is discarded.
 * Discovery and failure-detection pings stay plain (they carry addresses and the cluster name, no session
 * data).
 */
public final class ClusterKeyEncryption {
    static final int ITERATIONS = 210_000;
    static final int KEY_BITS = 256;
    static final String ALGORITHM = "AES/CBC/PKCS5Padding";
    static final int IV_BYTES = 16;

    private ClusterKeyEncryption() {
    }

    /** The SYM_ENCRYPT protocol for this secret and cluster. */
    public static Protocol protocol(String clusterKey, String clusterName) {
        SYM_ENCRYPT encrypt = new SYM_ENCRYPT();
        // JGroups' default "AES" means ECB, which shows repeated blocks: use CBC with a random IV per message
        encrypt.<SYM_ENCRYPT>symAlgorithm(ALGORITHM).<SYM_ENCRYPT>symIvLength(IV_BYTES);
        encrypt.setSecretKey(deriveKey(clusterKey, clusterName));
        return encrypt;
    }

    static SecretKey deriveKey(String clusterKey, String clusterName) {
        try {
            byte[] salt = ("sessionrep cluster " + clusterName).getBytes(StandardCharsets.UTF_8);
            PBEKeySpec spec = new PBEKeySpec(clusterKey.toCharArray(), salt, ITERATIONS, KEY_BITS);
            byte[] key = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
            spec.clearPassword();
            return new SecretKeySpec(key, "AES");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot derive the cluster-key encryption key: " + e.getMessage(), e);
        }
    }
}
