package io.sessionrep.core.testing;

import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.placement.BackupPlacement;
import io.sessionrep.core.transport.Member;

import java.util.List;

/** Session ids chosen for where the placement puts their backups, for tests that need a given backup first. */
public final class SessionIds {

    private SessionIds() {
    }

    /** An id whose backups, with {@code primary} as its primary in its current view, are {@code backups}, in order. */
    public static String backedUpBy(SessionReplicator primary, int writeQuota, List<String> backups) {
        return backedUpBy(primary, writeQuota, backups, null, null);
    }

    /**
     * An id whose backups, with {@code primary} as its primary, are {@code backups} in its current view and
     * {@code backupsAfter} once the member {@code leaving} has left it (both in order).
     */
    public static String backedUpBy(SessionReplicator primary, int writeQuota, List<String> backups, String leaving,
                                    List<String> backupsAfter) {
        BackupPlacement placement = new BackupPlacement(writeQuota, true);
        List<Member> view = primary.members();
        List<Member> viewAfter = view.stream().filter(m -> !m.name().equals(leaving)).toList();
        Member self = view.stream().filter(m -> m.name().equals(primary.nodeName())).findFirst().orElseThrow();
        for (int i = 0; ; i++) {
            String id = "session-" + i;
            if (names(placement.backups(id, self, view)).equals(backups)
                    && (leaving == null || names(placement.backups(id, self, viewAfter)).equals(backupsAfter))) {
                return id;
            }
        }
    }

    private static List<String> names(List<Member> members) {
        return members.stream().map(Member::name).toList();
    }
}
