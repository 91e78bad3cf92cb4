package io.sessionrep.perf.floor;

/**
 * What a request did to a session that the floor copies: an attribute set (to a {@code byte[]} or an
 * {@code Integer}: the test servlet's attributes), an attribute removed, or the session invalidated.
 */
sealed interface Change {

    /** The session's id. */
    String id();

    record Set(String id, String name, Object value) implements Change {
    }

    record Remove(String id, String name) implements Change {
    }

    record Destroy(String id) implements Change {
    }
}
