package io.sessionrep.core.placement;

import io.sessionrep.core.transport.Member;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BackupPlacementTest {
    private static final int SESSIONS = 10_000;
    private final Member a = new Member("node-a", "m1");
    private final Member b = new Member("node-b", "m2");
    private final Member c = new Member("node-c", "m3");
    private final Member d = new Member("node-d", "m4");
    private final List<String> ids = new ArrayList<>();

    BackupPlacementTest() {
        java.util.Random random = new java.util.Random(42);
        for (int i = 0; i < SESSIONS; i++) {
            ids.add(new UUID(random.nextLong(), random.nextLong()).toString().replace("-", ""));
        }
    }

    @Test
    void tenThousandSessionsSpreadEvenlyOverFourNodes() {
        BackupPlacement placement = new BackupPlacement(1, true);
        List<Member> view = List.of(a, b, c, d);
        Map<String, Integer> load = new HashMap<>();
        for (int i = 0; i < SESSIONS; i++) {
            Member primary = view.get(i % 4);
            for (Member backup : placement.backups(ids.get(i), primary, view)) {
                load.merge(backup.name(), 1, Integer::sum);
            }
        }
        // each node backs up about a quarter; allow +-10% around the mean (binomial sd is ~0.9%)
        for (Member m : view) {
            int n = load.getOrDefault(m.name(), 0);
            assertTrue(n > 2250 && n < 2750, m.name() + " backs up " + n + " of " + SESSIONS + ": " + load);
        }
    }

    @Test
    void writeQuotaTwoGivesTwoDistinctBackupsOtherThanThePrimary() {
        BackupPlacement placement = new BackupPlacement(2, true);
        List<Member> view = List.of(a, b, c, d);
        for (String id : ids.subList(0, 1000)) {
            List<Member> backups = placement.backups(id, a, view);
            assertEquals(2, backups.size());
            assertFalse(backups.contains(a));
            assertFalse(backups.get(0).equals(backups.get(1)));
        }
    }

    @Test
    void bestEffortWithFewerNodesAndNothingWhenAlone() {
        BackupPlacement placement = new BackupPlacement(3, true);
        assertEquals(1, placement.backups("x", a, List.of(a, b)).size());
        assertEquals(List.of(), placement.backups("x", a, List.of(a)));
    }

    @Test
    void aLeavingNodeMovesOnlyTheSessionsItBackedUp() {
        BackupPlacement placement = new BackupPlacement(1, true);
        List<Member> before = List.of(a, b, c, d);
        List<Member> after = List.of(a, b, c);
        int moved = 0;
        for (String id : ids) {
            Member old = placement.backups(id, a, before).get(0);
            Member now = placement.backups(id, a, after).get(0);
            if (!old.equals(now)) {
                moved++;
                assertEquals(d, old, "only sessions backed up by the node that left move");
            }
        }
        assertTrue(moved > 2800 && moved < 3900, "about a third moved (those on d): " + moved);
    }

    @Test
    void aJoiningNodeTakesOnlyItsShare() {
        BackupPlacement placement = new BackupPlacement(1, true);
        List<Member> before = List.of(a, b, c);
        List<Member> after = List.of(a, b, c, d);
        int moved = 0;
        for (String id : ids) {
            Member old = placement.backups(id, a, before).get(0);
            Member now = placement.backups(id, a, after).get(0);
            if (!old.equals(now)) {
                moved++;
                assertEquals(d, now, "sessions only move to the node that joined");
            }
        }
        assertTrue(moved > 2800 && moved < 3900, "the new node takes about a third: " + moved);
    }

    @Test
    void placementIsTheSameWhateverTheOrderOfTheView() {
        BackupPlacement placement = new BackupPlacement(2, true);
        for (String id : ids.subList(0, 500)) {
            assertEquals(placement.backups(id, a, List.of(a, b, c, d)), placement.backups(id, a, List.of(d, c, b, a)));
        }
    }

    @Test
    void otherMachinesFirstAndColocatedOnlyWhenAllowed() {
        Member sameMachine = new Member("node-a2", "m1");
        List<Member> view = List.of(a, sameMachine, b);
        for (String id : ids.subList(0, 500)) {
            assertEquals(List.of(b, sameMachine), new BackupPlacement(2, true).backups(id, a, view));
            assertEquals(List.of(b), new BackupPlacement(2, false).backups(id, a, view));
        }
        assertEquals(List.of(), new BackupPlacement(1, false).backups("x", a, List.of(a, sameMachine)));
        assertEquals(List.of(sameMachine), new BackupPlacement(1, true).backups("x", a, List.of(a, sameMachine)));
    }
}
