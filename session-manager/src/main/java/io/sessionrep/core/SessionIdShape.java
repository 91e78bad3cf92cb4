package io.sessionrep.core;

/**
 * The shape of the session ids an installation issues, {@code <id>.<route>}: an id part of a known length
 * and alphabet, one dot, and a route that can be a node name (1 to 64 characters from A-Z, a-z, 0-9, '_' and
 * '-'). Each integration configures its node with the shape its container's id generator produces
 * ({@link ReplicationNode#idShape}); a session id a request names that has another shape cannot have been
 * issued by any node, so it names no session and the cluster is never asked about it. Nothing here logs an id.
 */
public final class SessionIdShape {
    /** Characters of node names, and of URL-safe base64. */
    public static final String NAME_CHARACTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
    /** Upper-case hexadecimal, as Tomcat's {@code StandardSessionIdGenerator} writes ids. */
    public static final String UPPER_HEX = "0123456789ABCDEF";
    private static final int MAX_ROUTE = 64;

    /** Any id part of 1 to 128 node-name characters: for an id generator whose shape is not known. */
    public static final SessionIdShape ANY = new SessionIdShape(1, 128, NAME_CHARACTERS);

    private final int minLength;
    private final int maxLength;
    private final boolean[] alphabet = new boolean[128];
    private static final boolean[] ROUTE = new boolean[128];

    static {
        for (char c : NAME_CHARACTERS.toCharArray()) {
            ROUTE[c] = true;
        }
    }

    /** Id parts of {@code minLength} to {@code maxLength} characters, each one of {@code alphabet} (ASCII). */
    public SessionIdShape(int minLength, int maxLength, String alphabet) {
        if (minLength < 1 || maxLength < minLength) {
            throw new IllegalArgumentException("id length " + minLength + ".." + maxLength);
        }
        this.minLength = minLength;
        this.maxLength = maxLength;
        for (char c : alphabet.toCharArray()) {
            if (c >= 128 || c == '.') {
                throw new IllegalArgumentException("not an id character: " + (int) c);
            }
            this.alphabet[c] = true;
        }
    }

    /** Ids of exactly {@code length} characters of {@code alphabet}. */
    public static SessionIdShape exactly(int length, String alphabet) {
        return new SessionIdShape(length, length, alphabet);
    }

    /**
     * Whether {@code sessionId} (as a request named it, route suffix included) has this shape: an id part of
     * the issued length and alphabet, exactly one dot, a route that can be a node name.
     */
    public boolean matches(String sessionId) {
        if (sessionId == null || sessionId.length() > maxLength + 1 + MAX_ROUTE) {
            return false;
        }
        int dot = sessionId.indexOf('.');
        if (dot < minLength || dot > maxLength) {
            return false;
        }
        for (int i = 0; i < dot; i++) {
            char c = sessionId.charAt(i);
            if (c >= 128 || !alphabet[c]) {
                return false;
            }
        }
        int routeLength = sessionId.length() - dot - 1;
        if (routeLength < 1 || routeLength > MAX_ROUTE) {
            return false;
        }
        for (int i = dot + 1; i < sessionId.length(); i++) {
            char c = sessionId.charAt(i);
            if (c >= 128 || !ROUTE[c]) {
                return false; // a second dot, or a character no node name has
            }
        }
        return true;
    }

    /** The route suffix of an id that {@link #matches}. */
    static String route(String sessionId) {
        return sessionId.substring(sessionId.indexOf('.') + 1);
    }

    @Override
    public String toString() {
        return "SessionIdShape[" + minLength + ".." + maxLength + " characters]";
    }
}
