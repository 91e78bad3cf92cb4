package io.sessionrep.core;

import java.util.ArrayList;
import java.util.List;

/**
 * The session lookups of one request, on the thread that serves it: the ids it named (as named, route suffix
 * included, so that a lookup by cluster id finds its route) and the ids it had the cluster asked about. A
 * request may have the cluster asked about {@link #MAX_CLUSTER_LOOKUPS} ids; every further id it names is
 * treated as naming no session ({@link ReplicationNode#admit}). Each integration opens one around the part of
 * the request that resolves the requested session ({@link #open}); outside one, lookups are not limited (tools,
 * maintenance).
 */
public final class RequestLookups implements AutoCloseable {
    /** Ids one request may have the cluster asked about. */
    public static final int MAX_CLUSTER_LOOKUPS = 2;
    private static final ThreadLocal<RequestLookups> CURRENT = new ThreadLocal<>();
    private static final RequestLookups NESTED = new RequestLookups(List.of(), false);
    /** How long lookups opened {@link #openUntilClosed lazily} last without being used. */
    private static final long IDLE_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);

    private final List<String> named;
    private final List<String> asked = new ArrayList<>(MAX_CLUSTER_LOOKUPS);
    private final boolean lazy;
    private long lastUsed = System.nanoTime();

    private RequestLookups(List<String> named, boolean lazy) {
        this.named = named;
        this.lazy = lazy;
    }

    /**
     * For a container that checks a request's session ids before any part of the integration sees the request
     * (Tomcat tries the session cookies in turn while it parses the request): the lookups open on this thread,
     * else new ones that last until closed, or until unused for a second (a request that never reached the
     * integration does not leave its budget to the thread's next request for longer).
     */
    public static RequestLookups openUntilClosed() {
        RequestLookups open = current();
        if (open != null) {
            return open;
        }
        RequestLookups opened = new RequestLookups(List.of(), true);
        CURRENT.set(opened);
        return opened;
    }

    /** Whether these lookups were opened by {@link #openUntilClosed}. */
    public boolean lazy() {
        return lazy;
    }

    /**
     * Opens the lookups of the request this thread serves now, which named the session ids {@code named}; an
     * already open one stays (then closing the returned one does nothing).
     */
    public static RequestLookups open(List<String> named) {
        if (current() != null) {
            return NESTED;
        }
        RequestLookups opened = new RequestLookups(named == null ? List.of() : new ArrayList<>(named), false);
        CURRENT.set(opened);
        return opened;
    }

    /** The lookups open on this thread, or null. */
    public static RequestLookups current() {
        RequestLookups open = CURRENT.get();
        if (open != null && open.lazy && System.nanoTime() - open.lastUsed > IDLE_NANOS) {
            CURRENT.remove();
            return null;
        }
        return open;
    }

    /** The cluster ids this request had the cluster asked about so far. */
    public List<String> asked() {
        return List.copyOf(asked);
    }

    /** Counts {@code clusterIds} as asked about already (a request resumed where an earlier phase left off). */
    public void alreadyAsked(List<String> clusterIds) {
        for (String id : clusterIds) {
            spend(id);
        }
    }

    /**
     * The session id, as the request named it, whose cluster id is {@code clusterId} (cut at the first or at
     * the last dot, as containers do), or null.
     */
    String named(String clusterId) {
        for (String value : named) {
            if (value != null && value.startsWith(clusterId)
                    && (value.length() == clusterId.length() || value.charAt(clusterId.length()) == '.')) {
                return value;
            }
        }
        return null;
    }

    /** True when the cluster may be asked about {@code clusterId}: asked already, or within the budget. */
    boolean spend(String clusterId) {
        lastUsed = System.nanoTime();
        if (this == NESTED || asked.contains(clusterId)) {
            return true;
        }
        if (asked.size() >= MAX_CLUSTER_LOOKUPS) {
            return false;
        }
        asked.add(clusterId);
        return true;
    }

    @Override
    public void close() {
        if (this != NESTED && CURRENT.get() == this) {
            CURRENT.remove();
        }
    }
}
