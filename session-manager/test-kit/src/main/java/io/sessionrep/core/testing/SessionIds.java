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
        BackupPlacement placement = new BackupPlacement(writeQuota, true);
        Member self = primary.members().stream().filter(m -> m.name().equals(primary.nodeName())).findFirst().orElseThrow();
        for (int i = 0; ; i++) {
            String id = "session-" + i;
            if (placement.backups(id, self, primary.members()).stream().map(Member::name).toList().equals(backups)) {
                return id;
            }
        }
    }
}
