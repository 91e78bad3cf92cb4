package io.sessionrep.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.placement.BackupPlacement;
import io.sessionrep.core.serial.ClassAllowlist;
import io.sessionrep.core.serial.KryoSessionSerializer;
import io.sessionrep.core.store.BackupStore;
import io.sessionrep.core.store.SessionCopy;
import io.sessionrep.core.store.Tombstones;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.core.wire.MalformedMessageException;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The container-neutral replication engine of one node (one web application). Container integrations
 * keep their own live sessions and call this class at four points:
 * <ul>
 *   <li>{@link #requestEnd} when the outermost request that used a session completes;</li>
 *   <li>{@link #takeOver} when a request names a session this node does not hold live (fail-over);</li>
 *   <li>{@link #invalidate} when the container invalidates or expires a session;</li>
 *   <li>{@link #close} on orderly shutdown.</li>
 * </ul>
 * and receive {@link SessionEvents} when another node takes over or invalidates a session they hold.
 *
 * <p>The first replication of a session to a backup is a full copy; later ones carry only the attributes
 * that changed, with version numbers so that a backup that missed one asks for a full copy. The primary
 * keeps the serialized form of what it replicated ({@link PrimaryEntry}), which makes full copies possible
 * from any thread and lets it skip attributes whose bytes did not change.
 */
public final class SessionReplicator implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SessionReplicator.class.getName());
    static final Duration TOMBSTONE_TTL = Duration.ofMinutes(10);
    static final Duration MAINTENANCE_INTERVAL = Duration.ofSeconds(15);

    private final ReplicationConfig config;
    private final ReplicationTransport transport;
    private final Clock clock;
    private final SessionEvents events;
    private final ReplicationMetrics metrics;
    private final AttributeCodec attributes;
    private final BackupPlacement placement;
    private final Map<String, PrimaryEntry> primaries = new ConcurrentHashMap<>();
    private final BackupStore backups = new BackupStore();
    private final Tombstones tombstones;
    private final AsyncSender sender;
    private final ScheduledExecutorService maintenance;
    private final Set<String> syncTimeoutReported = ConcurrentHashMap.newKeySet();
    private final Member self;
    private volatile List<Member> members;
    private volatile boolean closed;

    private SessionReplicator(ReplicationConfig config, ReplicationTransport transport, ClassLoader appClassLoader,
                              MeterRegistry meters, SessionEvents events, Clock clock) {
        this.config = config;
        this.transport = transport;
        this.clock = clock;
        this.events = events;
        this.metrics = new ReplicationMetrics(meters, config.nodeName());
        this.attributes = new AttributeCodec(
                new KryoSessionSerializer(ClassAllowlist.of(config.serializationAllowlist()), appClassLoader), metrics);
        this.placement = new BackupPlacement(config.writeQuota(), config.allowColocation());
        this.tombstones = new Tombstones(clock, TOMBSTONE_TTL);
        this.self = new Member(config.nodeName(), config.machineId());
        this.members = List.of(self);
        this.sender = new AsyncSender(transport, metrics, config.asyncQueueEntries(), config.asyncQueueBytes(),
                config.nodeName(), this::backupOutOfDate);
        this.maintenance = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sessionrep-maintenance-" + config.nodeName());
            t.setDaemon(true);
            return t;
        });
        metrics.gauge(ReplicationMetrics.SESSIONS_PRIMARY, primaries::size);
        metrics.gauge(ReplicationMetrics.SESSIONS_BACKUP, backups::size);
    }

    /**
     * Starts the engine on a transport that it starts and owns from now on.
     *
     * @param appClassLoader loads the application's attribute classes on deserialization
     */
    public static SessionReplicator start(ReplicationConfig config, ReplicationTransport transport,
                                          ClassLoader appClassLoader, MeterRegistry meters, SessionEvents events) {
        return start(config, transport, appClassLoader, meters, events, Clock.systemUTC());
    }

    /** As above, with an injected clock (tests of expiry and tombstones). */
    public static SessionReplicator start(ReplicationConfig config, ReplicationTransport transport,
                                          ClassLoader appClassLoader, MeterRegistry meters, SessionEvents events,
                                          Clock clock) {
        SessionReplicator replicator = new SessionReplicator(config, transport, appClassLoader, meters, events, clock);
        LOG.log(System.Logger.Level.INFO, "starting session replication: " + config);
        for (String warning : config.notYetActive()) {
            LOG.log(System.Logger.Level.WARNING, warning);
        }
        try {
            transport.start(new IncomingMessages(replicator));
        } catch (RuntimeException e) {
            replicator.sender.close(0);
            replicator.maintenance.shutdownNow();
            throw e;
        }
        replicator.members = transport.members();
        long period = MAINTENANCE_INTERVAL.toMillis();
        replicator.maintenance.scheduleWithFixedDelay(replicator::runMaintenanceSafely, period, period,
                TimeUnit.MILLISECONDS);
        LOG.log(System.Logger.Level.INFO, "node " + config.nodeName() + " joined cluster '" + config.clusterName()
                + "' with members " + replicator.members);
        return replicator;
    }

    // ------------------------------------------------------------------ request end

    /**
     * Replicates what the request(s) changed. Async mode: snapshots the changed attributes on the calling
     * thread and returns; sync mode: also waits for the first backup's acknowledgement, at most
     * {@code sync-timeout}. Never throws for replication problems (they are counted and logged); the
     * request must succeed whatever happens to its replication.
     */
    public void requestEnd(SessionSnapshot session, ChangeTracker changes) {
        long started = System.nanoTime();
        try {
            List<CompletableFuture<Message.AckStatus>> acks = replicate(session, changes.drain());
            if (!acks.isEmpty()) {
                awaitFirstAck(acks, session.id());
            }
        } catch (RuntimeException e) {
            metrics.failed.increment();
            LOG.log(System.Logger.Level.WARNING, "replication of session " + session.id() + " failed", e);
        } finally {
            metrics.requestEnd.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        }
    }

    /** Builds and dispatches the update; returns the sync acknowledgements to wait for (empty in async). */
    private List<CompletableFuture<Message.AckStatus>> replicate(SessionSnapshot session, ChangeTracker.Changes changes) {
        String id = session.id();
        if (config.writeQuota() == 0 || closed || tombstones.contains(id)) {
            return List.of();
        }
        PrimaryEntry entry = primaries.computeIfAbsent(id, k -> new PrimaryEntry(new SessionCopy(k)));
        List<Member> targets = placement.backups(id, self, members);
        synchronized (entry) {
            if (entry.removed) {
                return List.of();
            }
            SessionUpdate delta = buildDelta(session, changes, entry);
            boolean newBackup = false;
            for (Member t : targets) {
                newBackup |= !entry.syncedBackups.contains(t.name());
            }
            if (delta == null && !newBackup) {
                return List.of(); // read-only request, every backup up to date
            }
            if (delta != null) {
                entry.copy.apply(delta);
            }
            if (entry.copy.valueBytes() > config.maxSessionSize()) {
                reportTooLarge(entry);
                return List.of();
            }
            entry.oversizeWarned = false;
            SessionUpdate full = null;
            List<CompletableFuture<Message.AckStatus>> acks = new ArrayList<>(targets.size());
            for (Member target : targets) {
                boolean synced = entry.syncedBackups.contains(target.name());
                SessionUpdate update;
                if (synced && delta != null) {
                    update = delta;
                } else if (synced) {
                    continue; // nothing new for this backup
                } else {
                    update = full != null ? full : (full = entry.copy.toFullUpdate());
                }
                if (config.replicationMode() == ReplicationMode.SYNC) {
                    acks.add(sendForAck(target, update));
                } else {
                    sender.enqueue(target, update);
                }
            }
            entry.syncedBackups.clear();
            for (Member t : targets) {
                entry.syncedBackups.add(t.name());
            }
            return acks;
        }
    }

    /** The delta from the entry's version, or null when the request changed nothing replicable. */
    private SessionUpdate buildDelta(SessionSnapshot session, ChangeTracker.Changes changes, PrimaryEntry entry) {
        boolean first = entry.copy.version() == 0;
        Map<String, byte[]> changed = new HashMap<>();
        Set<String> removed = new HashSet<>();
        Iterable<String> written = first ? session.attributeNames() : changes.written();
        for (String name : written) {
            Object value = session.attribute(name);
            if (value == null) {
                if (entry.copy.hasAttribute(name)) {
                    removed.add(name);
                }
                continue;
            }
            byte[] bytes = attributes.write(session.id(), name, value);
            if (bytes == null || Arrays.equals(bytes, entry.copy.attribute(name))) {
                continue; // not serializable (reported), or read but not modified
            }
            changed.put(name, bytes);
        }
        for (String name : changes.removed()) {
            if (entry.copy.hasAttribute(name) && session.attribute(name) == null) {
                removed.add(name);
            }
        }
        boolean metadata = first || changes.metadataChanged()
                || session.maxInactiveSeconds() != entry.copy.maxInactiveSeconds();
        if (changed.isEmpty() && removed.isEmpty() && !metadata) {
            return null;
        }
        long from = entry.copy.version();
        return new SessionUpdate(session.id(), from, from + 1, false, session.creationTime(),
                session.lastAccessedTime(), session.maxInactiveSeconds(), changed, removed);
    }

    private void reportTooLarge(PrimaryEntry entry) {
        metrics.tooLarge.increment();
        entry.syncedBackups.clear(); // backups get a full copy once the session is small enough again
        if (!entry.oversizeWarned) {
            entry.oversizeWarned = true;
            LOG.log(System.Logger.Level.WARNING, "session " + entry.copy.sessionId() + " is " + entry.copy.valueBytes()
                    + " bytes, over max-session-size " + config.maxSessionSize()
                    + ": not replicated until it shrinks (warned once per session)");
        }
    }

    /** Sends an update that the backup acknowledges; a backup that needs a full copy gets one. */
    private CompletableFuture<Message.AckStatus> sendForAck(Member target, SessionUpdate update) {
        return request(target, update).thenCompose(status -> {
            if (status != Message.AckStatus.NEED_FULL) {
                return CompletableFuture.completedFuture(status);
            }
            PrimaryEntry entry = primaries.get(update.sessionId());
            if (entry == null) {
                return CompletableFuture.completedFuture(Message.AckStatus.INVALIDATED);
            }
            SessionUpdate full;
            synchronized (entry) {
                full = entry.copy.toFullUpdate();
            }
            return request(target, full);
        });
    }

    private CompletableFuture<Message.AckStatus> request(Member target, SessionUpdate update) {
        byte[] bytes = WireCodec.encode(new Message.Update(update, true));
        (update.full() ? metrics.fullSent : metrics.deltaSent).increment();
        metrics.bytesSent.increment(bytes.length);
        metrics.valueBytesSent.increment(update.valueBytes());
        return transport.request(target, bytes, config.syncTimeout()).thenApply(reply -> {
            try {
                if (WireCodec.decode(reply) instanceof Message.Ack ack) {
                    return ack.status();
                }
            } catch (MalformedMessageException e) {
                metrics.rejectedMalformed.increment();
            }
            throw new IllegalStateException("unexpected reply from " + target.name());
        });
    }

    /** Sync mode: waits until one backup stored the update, at most sync-timeout. */
    private void awaitFirstAck(List<CompletableFuture<Message.AckStatus>> acks, String sessionId) {
        long started = System.nanoTime();
        CompletableFuture<Void> first = new CompletableFuture<>();
        for (CompletableFuture<Message.AckStatus> ack : acks) {
            ack.whenComplete((status, error) -> {
                if (error == null && status == Message.AckStatus.APPLIED) {
                    first.complete(null);
                }
            });
        }
        CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new))
                .whenComplete((v, e) -> first.completeExceptionally(new IllegalStateException("no backup stored it")));
        try {
            first.get(config.syncTimeout().toNanos(), TimeUnit.NANOSECONDS);
            metrics.syncAck.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            metrics.syncTimeouts.increment();
            reportSyncMiss("no acknowledgement within sync-timeout " + config.syncTimeout().toMillis() + "ms", sessionId);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            metrics.syncTimeouts.increment();
            reportSyncMiss(String.valueOf(e.getCause()), sessionId);
        }
    }

    private void reportSyncMiss(String why, String sessionId) {
        String peers = String.valueOf(placement.backups(sessionId, self, members));
        if (syncTimeoutReported.add(peers)) {
            LOG.log(System.Logger.Level.WARNING, "sync replication to " + peers + " not acknowledged: " + why
                    + "; the request proceeded (logged once per backup set, counted in "
                    + ReplicationMetrics.SYNC_TIMEOUTS + ")");
        }
    }

    /** A queued update to {@code backup} was dropped or failed: send it a full copy next time. */
    private void backupOutOfDate(String sessionId, String backup) {
        PrimaryEntry entry = primaries.get(sessionId);
        if (entry != null) {
            synchronized (entry) {
                entry.syncedBackups.remove(backup);
            }
        }
    }

    // ------------------------------------------------------------------ take over

    /**
     * A request names a session this node does not hold live. Promotes the local backup copy if its
     * primary is gone, else fetches the newest copy in the cluster; this node becomes the primary and the
     * old owner is told to drop its live copy. Empty when no node knows the id, or it was invalidated.
     * Blocks at most a bounded time (a fetch round trip, bounded by {@code sync-timeout} x 2, min 1s).
     */
    public Optional<RestoredSession> takeOver(String sessionId) {
        if (closed || tombstones.contains(sessionId)) {
            return Optional.empty();
        }
        PrimaryEntry owned = primaries.get(sessionId);
        SessionUpdate source;
        boolean fromLocalBackup = false;
        if (owned != null) {
            synchronized (owned) {
                source = owned.removed ? null : owned.copy.toFullUpdate(); // the container dropped its live copy
            }
        } else {
            BackupStore.Backup local = backups.get(sessionId);
            if (local != null && !isMember(local.owner)) {
                source = backups.fullCopy(sessionId);
                fromLocalBackup = true;
            } else {
                source = fetchNewest(sessionId, backups.fullCopy(sessionId));
            }
        }
        if (source == null || tombstones.contains(sessionId)) {
            metrics.takeoverMisses.increment();
            return Optional.empty();
        }
        PrimaryEntry entry = owned != null ? owned : becomePrimary(source);
        (fromLocalBackup ? metrics.takeoversLocal : metrics.takeoversCluster).increment();
        Map<String, Object> values = new HashMap<>();
        for (Map.Entry<String, byte[]> a : source.changed().entrySet()) {
            Object value = attributes.read(sessionId, a.getKey(), a.getValue(), "take-over");
            if (value != null) {
                values.put(a.getKey(), value);
            }
        }
        long version;
        synchronized (entry) {
            version = entry.copy.version();
        }
        return Optional.of(new RestoredSession(sessionId, source.creationTime(), source.lastAccessedTime(),
                source.maxInactiveSeconds(), values, version));
    }

    private PrimaryEntry becomePrimary(SessionUpdate source) {
        String id = source.sessionId();
        SessionCopy copy = SessionCopy.of(source);
        copy.setVersion(source.toVersion() + 1);
        PrimaryEntry fresh = new PrimaryEntry(copy);
        PrimaryEntry entry = primaries.putIfAbsent(id, fresh);
        if (entry != null) {
            return entry; // a concurrent request on this node took it over first
        }
        backups.remove(id);
        transport.broadcast(WireCodec.encode(new Message.Ownership(id, copy.version(), self.name())));
        if (config.writeQuota() > 0) {
            synchronized (fresh) {
                SessionUpdate full = fresh.copy.toFullUpdate();
                for (Member target : placement.backups(id, self, members)) {
                    sender.enqueue(target, full); // restore the quota at once, whatever the mode
                    fresh.syncedBackups.add(target.name());
                }
            }
        }
        LOG.log(System.Logger.Level.DEBUG, "became primary of session " + id + " at version " + copy.version());
        return fresh;
    }

    /** Asks every other member for its copy and returns the newest (or {@code local}, if newer). */
    private SessionUpdate fetchNewest(String sessionId, SessionUpdate local) {
        List<Member> others = new ArrayList<>();
        for (Member m : members) {
            if (!m.name().equals(self.name())) {
                others.add(m);
            }
        }
        if (others.isEmpty()) {
            return local;
        }
        Duration timeout = fetchTimeout();
        byte[] fetch = WireCodec.encode(new Message.Fetch(sessionId));
        List<CompletableFuture<byte[]>> replies = new ArrayList<>();
        for (Member m : others) {
            replies.add(transport.request(m, fetch, timeout));
        }
        try {
            CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
                    .get(timeout.toMillis() + 200, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            // some members did not answer: use what the others said
        }
        SessionUpdate newest = local;
        for (CompletableFuture<byte[]> reply : replies) {
            if (!reply.isDone() || reply.isCompletedExceptionally()) {
                continue;
            }
            try {
                if (WireCodec.decode(reply.join()) instanceof Message.FetchReply r && r.copy() != null
                        && r.copy().sessionId().equals(sessionId)
                        && (newest == null || r.copy().toVersion() > newest.toVersion())) {
                    newest = r.copy();
                }
            } catch (MalformedMessageException e) {
                metrics.rejectedMalformed.increment();
            }
        }
        return newest;
    }

    private Duration fetchTimeout() {
        Duration twice = config.syncTimeout().multipliedBy(2);
        return twice.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : twice;
    }

    // ------------------------------------------------------------------ invalidation

    /** The container invalidated or expired the session here: every copy in the cluster is removed. */
    public void invalidate(String sessionId) {
        tombstones.add(sessionId);
        PrimaryEntry entry = primaries.remove(sessionId);
        if (entry != null) {
            synchronized (entry) {
                entry.removed = true;
            }
        }
        backups.remove(sessionId);
        sender.discard(sessionId);
        if (!closed) {
            transport.broadcast(WireCodec.encode(new Message.Invalidate(sessionId)));
        }
    }

    /** True when this node holds a copy (primary or backup) of a session that is not invalidated. */
    public boolean hasLocalCopy(String sessionId) {
        return !tombstones.contains(sessionId)
                && (primaries.containsKey(sessionId) || backups.get(sessionId) != null);
    }

    /** True when this node holds a backup copy of the session (tests, diagnostics). */
    public boolean hasBackup(String sessionId) {
        return backups.get(sessionId) != null;
    }

    /** The version of the backup copy held here, or -1 (tests, diagnostics). */
    public long backupVersion(String sessionId) {
        BackupStore.Backup b = backups.get(sessionId);
        if (b == null) {
            return -1;
        }
        synchronized (b.copy) {
            return b.copy.version();
        }
    }

    /** True when this node is the primary of the session. */
    public boolean isPrimary(String sessionId) {
        return primaries.containsKey(sessionId);
    }

    /** True after {@link #close()}. */
    public boolean isClosed() {
        return closed;
    }

    /** This node's name, also the route suffix of session ids. */
    public String nodeName() {
        return self.name();
    }

    /** The current cluster view. */
    public List<Member> members() {
        return members;
    }

    public ReplicationMetrics metrics() {
        return metrics;
    }

    public ReplicationConfig config() {
        return config;
    }

    /** Waits until queued async updates were handed to the transport (tests, orderly shutdown). */
    public boolean flush(Duration timeout) {
        return sender.flush(timeout.toMillis());
    }

    // ------------------------------------------------------------------ maintenance

    /**
     * Forgets expired tombstones and expires orphaned backups: copies whose primary left the cluster and
     * whose replicated last-access time is older than their max inactive interval. Runs periodically;
     * public so tests with an injected clock can run it directly.
     */
    public void runMaintenance() {
        tombstones.purgeExpired();
        long now = clock.millis();
        int expired = backups.removeIf(b -> {
            if (isMember(b.owner)) {
                return false; // its primary decides
            }
            synchronized (b.copy) {
                int maxInactive = b.copy.maxInactiveSeconds();
                return maxInactive > 0 && b.copy.lastAccessedTime() + maxInactive * 1000L < now;
            }
        });
        if (expired > 0) {
            LOG.log(System.Logger.Level.DEBUG, "expired " + expired + " orphaned backup sessions");
        }
    }

    private void runMaintenanceSafely() {
        try {
            runMaintenance();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "session maintenance failed", e);
        }
    }

    private boolean isMember(String name) {
        for (Member m : members) {
            if (m.name().equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** Flushes queued replication (bounded wait), leaves the cluster, stops threads. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        sender.close(2000);
        closed = true;
        maintenance.shutdownNow();
        transport.close();
        LOG.log(System.Logger.Level.INFO, "node " + self.name() + " left cluster '" + config.clusterName() + "'");
    }

    // ------------------------------------------------------------------ used by IncomingMessages

    Member self() {
        return self;
    }

    void membershipChanged(List<Member> view) {
        this.members = List.copyOf(view);
        LOG.log(System.Logger.Level.INFO, "cluster view of " + self.name() + ": " + view);
    }

    Tombstones tombstones() {
        return tombstones;
    }

    BackupStore backups() {
        return backups;
    }

    AttributeCodec attributes() {
        return attributes;
    }

    BackupPlacement placement() {
        return placement;
    }

    ReplicationTransport transport() {
        return transport;
    }

    SessionEvents events() {
        return events;
    }

    /** Removes the primary entry (ownership lost, or invalidated elsewhere); true if there was one. */
    boolean dropPrimary(String sessionId) {
        PrimaryEntry entry = primaries.remove(sessionId);
        if (entry == null) {
            return false;
        }
        synchronized (entry) {
            entry.removed = true;
        }
        sender.discard(sessionId);
        return true;
    }

    PrimaryEntry primary(String sessionId) {
        return primaries.get(sessionId);
    }

    void enqueueFullCopy(String sessionId, Member target) {
        PrimaryEntry entry = primaries.get(sessionId);
        if (entry == null) {
            return;
        }
        synchronized (entry) {
            if (!entry.removed) {
                sender.enqueue(target, entry.copy.toFullUpdate());
                entry.syncedBackups.add(target.name());
            }
        }
    }

    List<Member> currentMembers() {
        return members;
    }
}
