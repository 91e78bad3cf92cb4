package io.sessionrep.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Session ids are bearer credentials: logs show only a short, non-reversible form of them. */
public final class LogIds {
    private LogIds() {
    }

    /** {@code #} and the first 8 hex digits of the id's SHA-256: stable, so log lines can be correlated. */
    public static String shortForm(String sessionId) {
        if (sessionId == null) {
            return "#null";
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(sessionId.getBytes(StandardCharsets.UTF_8));
            return "#" + HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
