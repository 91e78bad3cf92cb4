package io.sessionrep.core.config;

/** {@code replication-mode}: whether a request waits for a backup's acknowledgement. */
public enum ReplicationMode {
    /** The request thread snapshots and queues; a sender thread replicates. The default. */
    ASYNC("async"),
    /** The request waits for the first backup's acknowledgement, at most {@code sync-timeout}. */
    SYNC("sync");

    private final String optionValue;

    ReplicationMode(String optionValue) {
        this.optionValue = optionValue;
    }

    /** The spelling used in configuration files. */
    public String optionValue() {
        return optionValue;
    }
}
