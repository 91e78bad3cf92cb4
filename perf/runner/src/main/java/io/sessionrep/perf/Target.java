package io.sessionrep.perf;

import java.util.List;

/** A running system under test: the HTTP endpoints (host:port) the plan's threads are spread over. */
interface Target extends AutoCloseable {

    /** host:port of every node serving the test servlet, in node order. */
    List<String> hosts();

    /** The test servlet's path on every node ({@code /session} on our Jetty nodes). */
    default String path() {
        return "/session";
    }

    /** The node processes' ids (CPU accounting per segment, {@link ThreadCpu}); empty when unknown. */
    default List<Long> pids() {
        return List.of();
    }

    /**
     * What the target says it did over the scenario, for the report (the floor's counters: the bytes it copied),
     * read before it stops; null when it has nothing to say.
     */
    default String workDone() {
        return null;
    }

    /** Stops every process of the target (idempotent). */
    @Override
    void close();
}
