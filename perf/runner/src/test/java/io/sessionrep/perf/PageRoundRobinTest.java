package io.sessionrep.perf;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Scenario 8p's tables: rounds added up, ours beside BackupManager of the same mode. */
class PageRoundRobinTest {

    @Test
    void roundsAddUpAndOursIsComparedWithBackupManagerInTheSameMode() {
        Map<TomcatSetup, List<PageRoundRobin.Round>> rounds = new LinkedHashMap<>();
        rounds.put(TomcatSetup.OURS_ASYNC, List.of(round(1000, 10, 4, 3), round(1000, 10, 4, 1)));
        rounds.put(TomcatSetup.BACKUP_ASYNC, List.of(round(500, 10, 8, -1), round(500, 10, 8, -1)));
        rounds.put(TomcatSetup.OURS_SYNC, List.of(round(900, 10, 5, 2), round(900, 10, 5, 2)));
        rounds.put(TomcatSetup.BACKUP, List.of(round(300, 10, 20, -1), round(300, 10, 20, -1)));

        PageRoundRobin.Round together = PageRoundRobin.together(rounds.get(TomcatSetup.OURS_ASYNC));
        assertEquals(2000, together.outcome().pages());
        assertEquals(100.0, together.outcome().pagesPerSecond(), 1e-9);
        assertEquals(4, together.handOvers().acquired(), 1e-9);
        assertEquals(null, PageRoundRobin.together(rounds.get(TomcatSetup.BACKUP)).handOvers());

        String md = PageRoundRobin.table(rounds, 2);
        assertTrue(md.contains("| async | 2.00x | 0.50x / 0.50x | 0.50x / 0.50x | 0.50x | 0 / 0 |"), md); // ours async 100 pages/s against BackupManager async 50
        assertTrue(md.contains("| sync | 3.00x | 0.25x / 0.25x |"), md); // ours sync 90 against BackupManager sync 30
        assertTrue(md.contains("| " + TomcatSetup.OURS_ASYNC.label() + " | 2,000 | 100.0 |"), md);
        assertTrue(md.contains("| 0.00 (4) |"), md); // 4 hand-overs in 2,000 pages
        assertTrue(md.contains("| " + TomcatSetup.OURS_ASYNC.label() + " | 1 | 1,000 | 100.0 |") && md.contains("| 0.00 (3) |"), md);
        assertTrue(md.contains("| " + TomcatSetup.BACKUP.label() + " | 600 | 30.0 |") && md.contains("| - |"), md);
    }

    /** A round of {@code pages} in {@code seconds}, every page {@code pageMs}, {@code handOvers} acquired (-1: a peer's). */
    private static PageRoundRobin.Round round(long pages, double seconds, long pageMs, double handOvers) {
        Histogram page = new Histogram(3);
        Histogram files = new Histogram(3);
        Histogram writes = new Histogram(3);
        for (long i = 0; i < pages; i++) {
            page.recordValue(pageMs * 1000);
            files.recordValue(pageMs * 500);
            writes.recordValue(pageMs * 250);
        }
        BrowserPages.Outcome o = new BrowserPages.Outcome(2, 5, seconds, pages, page, files, writes, pages, 0, 0, 0, Map.of());
        return new PageRoundRobin.Round(o, handOvers < 0 ? null : new HandOverMeters.Counts(handOvers, handOvers, 0));
    }
}
