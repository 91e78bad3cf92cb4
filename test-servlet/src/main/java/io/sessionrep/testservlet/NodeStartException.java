package io.sessionrep.testservlet;

/** A node of a {@link LocalCluster} did not become READY; the message carries the tail of its log. */
public final class NodeStartException extends RuntimeException {

    private final String node;
    private final Integer exitCode;

    public NodeStartException(String node, Integer exitCode, String reason, String logTail) {
        super(reason + "\n--- last lines of " + node + "'s log ---\n" + logTail + "\n---");
        this.node = node;
        this.exitCode = exitCode;
    }

    public String node() {
        return node;
    }

    /** The node's exit code, or null when it did not exit by itself (timed out and killed). */
    public Integer exitCode() {
        return exitCode;
    }
}
