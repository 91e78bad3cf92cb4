package io.sessionrep.perf.floor;

import java.util.ArrayList;
import java.util.List;

/**
 * The changes of the request running on this thread, in the order they happened: {@link FloorListener}
 * records them, {@link FloorFilter} sends them when the request ends. Outside a request (Tomcat's background
 * expiry, start-up) nothing is recorded. One instance per thread, reused from request to request.
 */
final class RequestChanges {

    private static final ThreadLocal<RequestChanges> CURRENT = ThreadLocal.withInitial(RequestChanges::new);

    private final List<Change> changes = new ArrayList<>();
    private boolean active;

    private RequestChanges() {
    }

    /** This thread's changes; recording starts with {@link #begin}. */
    static RequestChanges onThisThread() {
        return CURRENT.get();
    }

    void begin() {
        changes.clear();
        active = true;
    }

    /** Records {@code change} when a request runs on this thread. */
    void record(Change change) {
        if (!active) {
            return;
        }
        if (change instanceof Change.Remove && destroyed(change.id())) {
            return; // invalidate() removes every attribute after telling the listeners: the Destroy says it all
        }
        changes.add(change);
    }

    private boolean destroyed(String id) {
        for (Change c : changes) {
            if (c instanceof Change.Destroy && c.id().equals(id)) {
                return true;
            }
        }
        return false;
    }

    /** Ends recording; the request's changes (valid until the next {@link #begin} on this thread). */
    List<Change> end() {
        active = false;
        return changes;
    }
}
