package io.sessionrep.core.config;

/** {@code replication-trigger}: when session state is sent to the backups. */
public enum ReplicationTrigger {
    /** Once, when the outermost request that used the session completes. The default. */
    ON_REQUEST_END("on-request-end"),
    /** On every setAttribute/removeAttribute, before the call returns. */
    ON_ATTRIBUTE_MODIFY("on-attribute-modify"),
    /** Only on orderly shutdown: the live sessions are handed to their backups before the node leaves. */
    ON_SHUTDOWN("on-shutdown");

    private final String optionValue;

    ReplicationTrigger(String optionValue) {
        this.optionValue = optionValue;
    }

    public String optionValue() {
        return optionValue;
    }
}
