package io.sessionrep.core;

import java.time.Instant;
import java.util.List;

/**
 * One session as the operator's listings show it. Never the whole id: {@code shortId} is {@link LogIds#shortForm},
 * which {@link SessionAdmin#invalidate} accepts.
 *
 * @param shortId          {@code #} and 8 hex digits
 * @param owner            the member that owns it; empty when its owner left and no member took it over yet
 * @param backups          the members its owner replicates it to
 * @param sizeBytes        its attribute values, serialized
 * @param lastAccessedTime when a request last used it (epoch milliseconds)
 * @param principal        the principal's name, null when not known ({@link SessionPrincipals})
 */
public record SessionRow(String shortId, String owner, List<String> backups, long sizeBytes, long lastAccessedTime,
                         String principal) {

    /** {@code #1a2b3c4d owner=node-a backups=[node-b] bytes=512 last-access=2026-12-07T05:31:02Z principal=ann}. */
    @Override
    public String toString() {
        return shortId + " owner=" + (owner.isEmpty() ? "(left)" : owner) + " backups=" + backups + " bytes=" + sizeBytes
                + " last-access=" + Instant.ofEpochMilli(lastAccessedTime) + " principal="
                + (principal == null ? "(unknown)" : principal);
    }
}
