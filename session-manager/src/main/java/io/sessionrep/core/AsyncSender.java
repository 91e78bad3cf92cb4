package io.sessionrep.core;

import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.core.wire.Message;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;

/**
 * The async mode's sender: request threads {@link #enqueue} and return at once; one thread encodes and
 * hands updates to the transport. Once it finds an update queued, it waits the batch window
 * ({@code async-batch-window}) and then sends everything queued in one go, in queue order; after sending it
 * waits one more window before it sleeps until the next update, and sends at once what came meanwhile (it
 * has waited a window already). While an update
 * for a (backup, session) pair waits, a newer one is merged into it (only the newest state travels). The
 * queue is bounded in entries and bytes: when full, the oldest waiting update is dropped and its session is
 * told to send a full copy next time.
 *
 * <p>An update queued for several backups (write-quota above 1) is encoded once per batch, and every backup
 * gets the same bytes. The batch goes to the transport in one call ({@link ReplicationTransport#sendAll}),
 * which may carry it on this thread and wait a bounded time: meanwhile request threads keep queuing, and the next
 * batch takes it all.
 *
 * <p>Invalidations travel the same way ({@link #enqueueInvalidation}), after the batch window, beside the
 * updates. They replace whatever update of their session still waits, and are never dropped: when the
 * queue is full, {@code enqueueInvalidation} refuses and the caller sends the invalidation itself.
 */
final class AsyncSender implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AsyncSender.class.getName());

    private final ReplicationTransport transport;
    private final java.util.function.Function<Message, byte[]> encoder;
    private final ReplicationMetrics metrics;
    private final int maxEntries;
    private final long maxBytes;
    private final BiConsumer<String, String> onDropped;
    private final long windowNanos;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Condition drained = lock.newCondition();
    private final LinkedHashMap<Key, Pending> queue = new LinkedHashMap<>();
    private final Thread thread;
    private long queuedBytes;
    private boolean sending;
    private volatile boolean closed;

    private record Key(String target, String sessionId) {
        // written out: the generated ones go through method handles, and every enqueue hashes a key
        @Override
        public int hashCode() {
            return 31 * target.hashCode() + sessionId.hashCode();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && target.equals(key.target) && sessionId.equals(key.sessionId);
        }
    }

    /**
     * An update for the target, or (update null) the invalidation of a session. {@code valueBytes} is the
     * update's, counted once here: the queue's byte count reads it on every merge, drop and discard.
     */
    private record Pending(Member target, String sessionId, SessionUpdate update, long valueBytes) {
        static Pending of(Member target, SessionUpdate update) {
            return new Pending(target, update.sessionId(), update, update.valueBytes());
        }

        static Pending invalidation(Member target, String sessionId) {
            return new Pending(target, sessionId, null, 0);
        }

        boolean isInvalidation() {
            return update == null;
        }
    }

    /**
     * @param onDropped called with (sessionId, target name) when an update was dropped, so the primary
     *                  sends that backup a full copy next time
     * @param encoder   the messages' bytes, in the wire protocol the view agreed on
     */
    AsyncSender(ReplicationTransport transport, ReplicationMetrics metrics, int maxEntries, long maxBytes,
                Duration window, String nodeName, BiConsumer<String, String> onDropped,
                java.util.function.Function<Message, byte[]> encoder) {
        this.transport = transport;
        this.encoder = encoder;
        this.windowNanos = window.toNanos();
        this.metrics = metrics;
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
        this.onDropped = onDropped;
        this.thread = new Thread(this::run, "sessionrep-sender-" + nodeName);
        this.thread.setDaemon(true);
        this.thread.start();
        metrics.gauge(ReplicationMetrics.QUEUE_ENTRIES, this::entries);
        metrics.gauge(ReplicationMetrics.QUEUE_BYTES, this::bytes);
    }

    /** Queues an update for one backup, merging it into one still waiting for the same pair. */
    void enqueue(Member target, SessionUpdate update) {
        if (closed) {
            return;
        }
        Key key = new Key(target.name(), update.sessionId());
        lock.lock();
        try {
            Pending waiting = queue.get(key);
            if (waiting != null && waiting.isInvalidation()) {
                return; // the session is invalidated: the backup would refuse this update anyway
            }
            if (waiting != null) {
                SessionUpdate merged = waiting.update().toVersion() == update.fromVersion() || update.full()
                        ? waiting.update().followedBy(update)
                        : update;
                Pending replacement = Pending.of(target, merged);
                queuedBytes += replacement.valueBytes() - waiting.valueBytes();
                queue.put(key, replacement);
                metrics.coalesced.increment();
            } else {
                Pending added = Pending.of(target, update);
                queue.put(key, added);
                queuedBytes += added.valueBytes();
            }
            while ((queue.size() > maxEntries || (queuedBytes > maxBytes && queue.size() > 1)) && dropOldestUpdate()) {
                // dropped one
            }
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Queues the invalidation of a session for each of {@code targets}, in place of any update of it still
     * waiting. Returns false, queuing nothing, when the queue is full or closed: the caller then sends the
     * invalidation itself, since an invalidation must not be dropped like an update.
     */
    boolean enqueueInvalidation(List<Member> targets, String sessionId) {
        if (closed) {
            return false;
        }
        lock.lock();
        try {
            if (queue.size() + targets.size() > maxEntries) {
                return false;
            }
            for (Member target : targets) {
                Pending replaced = queue.remove(new Key(target.name(), sessionId));
                if (replaced != null) {
                    queuedBytes -= replaced.valueBytes();
                }
                queue.put(new Key(target.name(), sessionId), Pending.invalidation(target, sessionId));
            }
            notEmpty.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Drops the oldest waiting update (never an invalidation); false when only invalidations wait. */
    private boolean dropOldestUpdate() {
        Iterator<Map.Entry<Key, Pending>> it = queue.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Key, Pending> oldest = it.next();
            if (oldest.getValue().isInvalidation()) {
                continue;
            }
            it.remove();
            queuedBytes -= oldest.getValue().valueBytes();
            metrics.dropped.increment();
            onDropped.accept(oldest.getKey().sessionId(), oldest.getKey().target());
            return true;
        }
        return false;
    }

    /** Forgets queued updates of one session for one backup (it is being released). */
    void discard(String sessionId, String target) {
        lock.lock();
        try {
            Pending gone = queue.get(new Key(target, sessionId));
            if (gone != null && !gone.isInvalidation()) {
                queue.remove(new Key(target, sessionId));
                queuedBytes -= gone.valueBytes();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Forgets queued updates of a session this node no longer serves (its invalidations stay). */
    void discard(String sessionId) {
        lock.lock();
        try {
            Iterator<Map.Entry<Key, Pending>> it = queue.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Key, Pending> e = it.next();
                if (e.getKey().sessionId().equals(sessionId) && !e.getValue().isInvalidation()) {
                    queuedBytes -= e.getValue().valueBytes();
                    it.remove();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        List<Pending> batch = new ArrayList<>();
        boolean gathered = false; // what is queued now came while this thread waited a window (see below)
        while (true) {
            lock.lock();
            try {
                while (queue.isEmpty()) {
                    sending = false;
                    drained.signalAll();
                    if (closed) {
                        return;
                    }
                    if (gathered || windowNanos == 0) {
                        notEmpty.await(); // a window passed without updates: sleep until one comes
                        gathered = false;
                    } else {
                        // Just sent: look again after a window instead of sleeping until the next update. Under load
                        // updates come meanwhile and leave at its end, having waited at most a window, as they would
                        // have after waking this thread: one wait per batch instead of two, and no request thread
                        // has to wake this one (both cost a context switch: profile-20261126-tomcat-kernel)
                        parkUnlocked(windowNanos);
                        gathered = true;
                    }
                }
                sending = true;
                if (!gathered && windowNanos > 0 && !closed) {
                    parkUnlocked(windowNanos); // let updates gather: they go out together, and one of a session merges into the next
                }
                gathered = false;
                batch.addAll(queue.values());
                queue.clear();
                queuedBytes = 0;
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            send(batch);
            batch.clear();
        }
    }

    /**
     * Encodes the batch (an update once for all the backups it goes to) and hands it to the transport in one
     * call, in queue order: the updates of one (backup, session) pair stay in order.
     */
    private void send(List<Pending> batch) {
        // a map per batch: clearing one kept across batches would scan the table of the largest batch every time
        Map<SessionUpdate, byte[]> encoded = new IdentityHashMap<>();
        List<Pending> sent = new ArrayList<>(batch.size());
        List<ReplicationTransport.Outbound> messages = new ArrayList<>(batch.size());
        for (Pending pending : batch) {
            try {
                byte[] bytes = pending.isInvalidation()
                        ? encoder.apply(new Message.Invalidate(pending.sessionId()))
                        : encoded.computeIfAbsent(pending.update(), update -> encoder.apply(new Message.Update(update, false)));
                messages.add(new ReplicationTransport.Outbound(pending.target(), bytes));
                sent.add(pending);
            } catch (Throwable e) {
                failed(pending, e);
            }
        }
        try {
            transport.sendAll(messages);
        } catch (Throwable e) {
            sent.forEach(pending -> failed(pending, e));
            return;
        }
        for (int i = 0; i < sent.size(); i++) {
            Pending pending = sent.get(i);
            if (!pending.isInvalidation()) {
                (pending.update().full() ? metrics.fullSent : metrics.deltaSent).increment();
                metrics.bytesSent.increment(messages.get(i).message().length);
                metrics.valueBytesSent.increment(pending.valueBytes());
            }
        }
    }

    private void failed(Pending pending, Throwable e) {
        metrics.failed.increment();
        if (pending.isInvalidation()) {
            LOG.log(System.Logger.Level.WARNING, "could not send the invalidation of session "
                    + LogIds.shortForm(pending.sessionId()) + " to " + pending.target().name() + ": " + e);
            return;
        }
        LOG.log(System.Logger.Level.WARNING, "could not send session " + LogIds.shortForm(pending.sessionId())
                + " to " + pending.target().name() + ": " + e);
        onDropped.accept(pending.sessionId(), pending.target().name());
    }

    /** Waits {@code nanos} without holding the lock (request threads keep queuing). Caller holds the lock. */
    private void parkUnlocked(long nanos) {
        lock.unlock();
        try {
            LockSupport.parkNanos(this, nanos);
        } finally {
            lock.lock();
        }
    }

    /** Waits until everything queued so far has been handed to the transport, at most {@code millis}. */
    boolean flush(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        lock.lock();
        try {
            while (!queue.isEmpty() || sending) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                drained.awaitNanos(left);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    int entries() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    long bytes() {
        lock.lock();
        try {
            return queuedBytes;
        } finally {
            lock.unlock();
        }
    }

    /** Sends what is queued (at most {@code flushMillis}), then stops the thread. */
    void close(long flushMillis) {
        flush(flushMillis);
        closed = true;
        lock.lock();
        try {
            queue.clear();
            queuedBytes = 0;
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
        LockSupport.unpark(thread); // it may be waiting a window: it sees it is closed at once
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        close(2000);
    }
}
