package io.sessionrep.core.filter;

import io.sessionrep.core.ReplicationNode;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * Session ids of the filter install: {@value #RANDOM_BYTES} bytes (160 bits) from {@link SecureRandom},
 * URL-safe base64 without padding (27 characters). The cookie carries {@code <id>.<node-name>}: the route
 * (the node that owns the session) follows the id, which is read as {@link ReplicationNode#clusterId} reads
 * every integration's ids (up to the first dot).
 */
final class SessionIds {
    static final int RANDOM_BYTES = 20;
    private static final Pattern CLUSTER_ID = Pattern.compile("[A-Za-z0-9_-]{27}");
    /** The shape of the cookie values of this install: 27 characters of URL-safe base64, the route. */
    static final io.sessionrep.core.SessionIdShape SHAPE =
            io.sessionrep.core.SessionIdShape.exactly(27, io.sessionrep.core.SessionIdShape.NAME_CHARACTERS);

    private final SecureRandom random;

    SessionIds(SecureRandom random) {
        this.random = random;
    }

    String next() {
        byte[] bytes = new byte[RANDOM_BYTES];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * The cluster id in a cookie value offered by a client ({@code <id>} or {@code <id>.<route>}), or null
     * when it cannot be an id this install generated. Nothing else is ever looked up in the cluster: a
     * malformed value costs no cluster round trip.
     */
    static String clusterId(String cookieValue) {
        String id = ReplicationNode.clusterId(cookieValue);
        return id != null && CLUSTER_ID.matcher(id).matches() ? id : null;
    }

    static String cookieValue(String clusterId, String route) {
        return ReplicationNode.withRoute(clusterId, route);
    }
}
