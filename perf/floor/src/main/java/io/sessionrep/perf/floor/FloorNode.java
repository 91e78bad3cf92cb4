package io.sessionrep.perf.floor;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A floor node: its backups for the peers' sessions, and the links through which each request thread sends its
 * own changes to every peer (a link per thread and peer, opened on first use, so no lock and no hand-off).
 * A failed send is counted, its link closed (the next request opens a new one) and the request still succeeds.
 */
final class FloorNode implements Closeable {

    private final FloorSettings settings;
    private final FloorCounters counters = new FloorCounters();
    private final FloorBackups backups;
    private final ThreadLocal<FloorLink[]> links;
    private final Set<FloorLink> open = ConcurrentHashMap.newKeySet();

    FloorNode(FloorSettings settings) throws IOException {
        this.settings = settings;
        this.backups = new FloorBackups(settings.port(), counters);
        this.links = ThreadLocal.withInitial(() -> new FloorLink[settings.peers().size()]);
    }

    /** Copies {@code changes} to every peer from this thread (and waits for them in sync mode). */
    void send(List<Change> changes) {
        if (changes.isEmpty()) {
            return;
        }
        counters.requestsSent.increment();
        FloorLink[] mine = links.get();
        for (int i = 0; i < mine.length; i++) {
            try {
                if (mine[i] == null) {
                    mine[i] = new FloorLink(settings.peers().get(i));
                    open.add(mine[i]);
                }
                mine[i].send(changes, settings.sync(), counters);
            } catch (IOException e) {
                counters.sendFailures.increment();
                if (mine[i] != null) {
                    open.remove(mine[i]);
                    closeQuietly(mine[i]);
                    mine[i] = null;
                }
            }
        }
    }

    FloorBackups backups() {
        return backups;
    }

    String status() {
        return counters.json(backups.sessionsHeld(), backups.valueBytesHeld());
    }

    @Override
    public void close() {
        closeQuietly(backups);
        open.forEach(FloorNode::closeQuietly);
    }

    private static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
