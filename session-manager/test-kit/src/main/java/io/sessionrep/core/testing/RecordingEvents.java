package io.sessionrep.core.testing;

import io.sessionrep.core.SessionEvents;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records the callbacks a container integration would receive. */
public final class RecordingEvents implements SessionEvents {
    public final List<String> ownershipLost = new CopyOnWriteArrayList<>();
    public final List<String> invalidatedElsewhere = new CopyOnWriteArrayList<>();

    @Override
    public void ownershipLost(String sessionId) {
        ownershipLost.add(sessionId);
    }

    @Override
    public void invalidatedElsewhere(String sessionId) {
        invalidatedElsewhere.add(sessionId);
    }
}
