package io.sessionrep.core;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.Message;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Read-only requests send no attribute data, but backups must still learn the last access time (it
 * decides expiry after a fail-over). Request threads only record (id, time) here; {@link #flush} runs
 * once a second and sends each backup one batch of touches.
 */
final class Touches {
    /** At most this many touches in one message. */
    static final int MAX_BATCH = 2000;

    private final NodeState node;
    private final Map<String, Long> pending = new ConcurrentHashMap<>();

    Touches(NodeState node) {
        this.node = node;
    }

    void record(String sessionId, long lastAccessedTime) {
        pending.merge(sessionId, lastAccessedTime, Math::max);
    }

    /** Sends the recorded touches, grouped by backup. */
    void flush() {
        if (pending.isEmpty()) {
            return;
        }
        Map<String, List<Message.Touch.Entry>> byBackup = new HashMap<>();
        for (String id : List.copyOf(pending.keySet())) {
            Long time = pending.remove(id);
            PrimaryEntry entry = node.primary(id);
            if (time == null || entry == null) {
                continue;
            }
            synchronized (entry) {
                for (String backup : entry.syncedBackups) {
                    byBackup.computeIfAbsent(backup, b -> new ArrayList<>()).add(new Message.Touch.Entry(id, time));
                }
            }
        }
        byBackup.forEach((backup, entries) -> {
            Member target = node.member(backup);
            if (target == null) {
                return;
            }
            for (int from = 0; from < entries.size(); from += MAX_BATCH) {
                List<Message.Touch.Entry> batch = entries.subList(from, Math.min(entries.size(), from + MAX_BATCH));
                byte[] bytes = node.wire.encode(new Message.Touch(List.copyOf(batch)));
                node.transport.send(target, bytes);
                node.metrics.bytesSent.increment(bytes.length);
                node.metrics.touchesSent.increment(batch.size());
            }
        });
    }
}
