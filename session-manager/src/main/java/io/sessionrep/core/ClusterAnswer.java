package io.sessionrep.core;

import java.util.List;
import java.util.Map;

/**
 * What the members answered to an operator's cluster-wide query ({@link SessionAdmin}). A member that could not
 * answer (an older release without the query, a time-out, a member that left meanwhile) breaks nothing: it is named
 * in {@code notAnswered} with the reason, and {@code result} covers the members in {@code answered} (this node
 * included).
 */
public record ClusterAnswer<T>(T result, List<String> answered, Map<String, String> notAnswered) {

    /** Whether every member of the view answered. */
    public boolean complete() {
        return notAnswered.isEmpty();
    }

    /** {@code answered by a, b; not answered: c (older release ...)}. */
    public String coverage() {
        StringBuilder text = new StringBuilder("answered by ").append(String.join(", ", answered));
        if (!notAnswered.isEmpty()) {
            text.append("; not answered:");
            String sep = " ";
            for (Map.Entry<String, String> e : notAnswered.entrySet()) {
                text.append(sep).append(e.getKey()).append(" (").append(e.getValue()).append(')');
                sep = ", ";
            }
        }
        return text.toString();
    }
}
