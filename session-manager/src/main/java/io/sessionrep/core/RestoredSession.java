package io.sessionrep.core;

import java.util.Map;

/**
 * A session taken over from a backup copy or fetched from the cluster, ready for the container to
 * turn into a live session. Attribute values are freshly deserialized objects, owned by the caller.
 */
public record RestoredSession(String id, long creationTime, long lastAccessedTime, int maxInactiveSeconds,
                              Map<String, Object> attributes, long version) {
}
