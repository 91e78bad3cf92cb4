package io.sessionrep.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.config.ReplicationMode;
import io.sessionrep.core.config.ReplicationTrigger;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.serial.ClassAllowlist;
import io.sessionrep.core.serial.KryoSessionSerializer;
import io.sessionrep.core.store.BackupStore;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.core.transport.TransportException;
import io.sessionrep.core.wire.Message;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The container-neutral replication engine of one node (one web application). Container integrations
 * keep their own live sessions and call this class:
 * <ul>
 *   <li>{@link #requestEnd} when the outermost request that used a session completes;</li>
 *   <li>{@link #attributeModified} after each setAttribute/removeAttribute (acts only with
 *       {@code replication-trigger=on-attribute-modify});</li>
 *   <li>{@link #takeOver} when a request names a session this node does not hold live (fail-over);</li>
 *   <li>{@link #invalidate} when the container invalidates or expires a session;</li>
 *   <li>{@link #handOver} for every live session on orderly shutdown, then {@link #close}.</li>
 * </ul>
 * and receive {@link SessionEvents} when another node takes over or invalidates a session they hold.
 *
 * <p>The work is done by small collaborators sharing one {@link NodeState}: {@link RequestEndReplication}
 * (full first copy, then deltas; async queue or sync acknowledgement), {@link TakeOver},
 * {@link Rebalancer} (restores the write-quota after membership changes), {@link Touches} (last-access
 * times of read-only requests) and {@link IncomingMessages} (the backup side).
 */
public final class SessionReplicator implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SessionReplicator.class.getName());
    static final Duration MAINTENANCE_INTERVAL = Duration.ofSeconds(15);
    static final Duration TOUCH_INTERVAL = Duration.ofSeconds(1);

    private final NodeState node;
    private final RequestEndReplication replication;
    private final TakeOver takeOver;
    private final HandOver handOver;
    private final Acquisition acquisition;
    private final Rebalancer rebalancer;
    private final IncomingMessages incoming;
    private final LocalSessionIndex sessionIndex;
    private final Touches touches;
    private final SyncInvalidation syncInvalidation;
    private final ReadinessCheck readiness;
    private final ScheduledExecutorService maintenance;

    private SessionReplicator(ReplicationConfig config, ReplicationTransport transport, ClassLoader appClassLoader,
                              MeterRegistry meters, SessionEvents events, Clock clock) {
        ReplicationMetrics metrics = new ReplicationMetrics(meters, config.nodeName());
        AttributeCodec attributes = new AttributeCodec(
                new KryoSessionSerializer(ClassAllowlist.of(config.serializationAllowlist()), appClassLoader), metrics);
        this.node = new NodeState(config, transport, clock, metrics, attributes, events);
        this.touches = new Touches(node);
        this.syncInvalidation = new SyncInvalidation(node);
        BackupRefusals refusals = new BackupRefusals(node);
        AcknowledgedSend acknowledged = new AcknowledgedSend(node, refusals);
        OwnershipTimeouts ownershipTimeouts = new OwnershipTimeouts(node);
        this.takeOver = new TakeOver(node, ownershipTimeouts);
        this.handOver = new HandOver(node);
        this.acquisition = new Acquisition(node, takeOver, ownershipTimeouts);
        this.rebalancer = new Rebalancer(node, takeOver, acknowledged);
        this.replication = new RequestEndReplication(node, touches, acknowledged, rebalancer::requestPass);
        this.sessionIndex = new LocalSessionIndex(node);
        this.incoming = new IncomingMessages(node, rebalancer, handOver, acquisition, refusals, sessionIndex);
        this.readiness = new ReadinessCheck(node, rebalancer);
        this.maintenance = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sessionrep-maintenance-" + config.nodeName());
            t.setDaemon(true);
            return t;
        });
        metrics.gauge(ReplicationMetrics.SESSIONS_PRIMARY, node.primaries::size);
        metrics.gauge(ReplicationMetrics.SESSIONS_BACKUP, node.backups::size);
        metrics.gauge(ReplicationMetrics.BACKUP_BYTES, node.backups::bytes);
        metrics.gauge(ReplicationMetrics.PRIMARY_HELD_BYTES, node::primaryHeldBytes);
        metrics.gauge(ReplicationMetrics.SESSIONS_BELOW_QUOTA, rebalancer::sessionsBelowQuota);
        metrics.gauge(ReplicationMetrics.READY, () -> readiness.check().ready() ? 1 : 0);
        transport.counts().forEach(metrics::transportCount);
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
        if (config.clusterKey() == null && !config.tlsEnabled() && config.jgroupsConfig() == null) {
            LOG.log(System.Logger.Level.WARNING, "replication traffic of node " + config.nodeName() + " is neither"
                    + " encrypted nor authenticated: anyone who reaches bind-address " + config.bindAddress()
                    + " can join cluster '" + config.clusterName() + "' and read and forge sessions; set cluster-key"
                    + " (a shared secret) or tls-keystore and tls-truststore"
                    + (config.insecureCluster() ? " (insecure-cluster=true accepts this risk)" : ""));
        }
        try {
            transport.start(replicator.incoming);
        } catch (RuntimeException e) {
            replicator.node.sender.close(0);
            replicator.rebalancer.close();
            replicator.maintenance.shutdownNow();
            replicator.node.metrics.close();
            throw e;
        }
        List<Member> strangers = replicator.node.setMembers(transport.members());
        if (!strangers.isEmpty()) {
            Member stranger = strangers.get(0);
            String refusal = replicator.node.wire.noProtocolInCommon(stranger, transport.protocolsOf(stranger),
                    "so node " + config.nodeName() + " does not join cluster '" + config.clusterName() + "'");
            replicator.close();
            throw new TransportException(refusal);
        }
        replicator.rebalancer.viewChanged();
        long period = MAINTENANCE_INTERVAL.toMillis();
        replicator.maintenance.scheduleWithFixedDelay(replicator::runMaintenanceSafely, period, period,
                TimeUnit.MILLISECONDS);
        long touch = TOUCH_INTERVAL.toMillis();
        replicator.maintenance.scheduleWithFixedDelay(replicator::flushTouchesSafely, touch, touch, TimeUnit.MILLISECONDS);
        LOG.log(System.Logger.Level.INFO, "node " + config.nodeName() + " joined cluster '" + config.clusterName()
                + "' with members " + replicator.node.members());
        return replicator;
    }

    // ------------------------------------------------------------------ called by integrations

    /**
     * Replicates what the request(s) changed. Async mode: snapshots the changed attributes on the calling
     * thread and returns; sync mode: also waits for the first backup's acknowledgement, at most
     * {@code sync-timeout}. A read-only request sends no attribute data (only a batched last-access
     * touch). Never throws for replication problems (they are counted and logged); the request must
     * succeed whatever happens to its replication. With {@code replication-trigger=on-shutdown} it only
     * keeps the changes for {@link #handOver}.
     */
    public void requestEnd(SessionSnapshot session, ChangeTracker changes) {
        if (node.config.replicationTrigger() == ReplicationTrigger.ON_SHUTDOWN) {
            return; // changes stay in the tracker until handOver
        }
        replicateNow(session, changes);
    }

    /**
     * The application just called setAttribute or removeAttribute. With
     * {@code replication-trigger=on-attribute-modify} the change is replicated now, before the call
     * returns to the application; with the other triggers this does nothing.
     */
    public void attributeModified(SessionSnapshot session, ChangeTracker changes) {
        if (node.config.replicationTrigger() == ReplicationTrigger.ON_ATTRIBUTE_MODIFY) {
            replicateNow(session, changes);
        }
    }

    /**
     * Orderly shutdown: replicates whatever the session still has unreplicated, whatever the trigger, so
     * its backups can take it over when this node has left. Call for every live session, then
     * {@link #close()} (which waits for the queue to drain, bounded).
     */
    public void handOver(SessionSnapshot session, ChangeTracker changes) {
        replicateNow(session, changes);
    }

    private void replicateNow(SessionSnapshot session, ChangeTracker changes) {
        long started = System.nanoTime();
        try {
            replication.replicate(session, changes.drain());
        } catch (RuntimeException e) {
            node.metrics.failed.increment();
            LOG.log(System.Logger.Level.WARNING, "replication of session " + LogIds.shortForm(session.id()) + " failed", e);
        } finally {
            node.metrics.requestEnd.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * A request is about to use a session that the container holds live here, or has just created one
     * (enter it at once: its cookie can reach the client long before the request ends).
     * {@link SessionAccess#OWNED}: go ahead, and call {@link #exit} when the request is over (after
     * {@link #requestEnd}). A session not replicated yet is always OWNED, and its requests are counted
     * all the same: a hand-over asked for after its first replication waits for them.
     * {@link SessionAccess#MOVED}: another node owns it now; drop the live copy without invalidating it and
     * {@link #acquire} the session. {@link SessionAccess#PROMISED}: it is about to move while other requests
     * here still use it; keep the live copy (the hand-over drops it) and {@link #acquire} the session. Never
     * blocks; costs a map lookup.
     */
    public SessionAccess enter(String sessionId) {
        return handOver.enter(sessionId);
    }

    /**
     * What {@link #enter} would answer now, without counting a request: for an integration that must
     * decide about a live copy before the request gets to wait on something (a container's own lock or map)
     * that a hand-over of this session may be waiting for. Never blocks.
     */
    public SessionAccess probe(String sessionId) {
        return handOver.probe(sessionId);
    }

    /**
     * For an integration told {@link SessionEvents#ownershipLost}: whether the live copy it has just looked up
     * under the id may be dropped. Look the copy up first, then ask. The report can arrive late (the thread that
     * makes it can be descheduled between the core's decision and the container's lookup), and a request here
     * may have brought the session back meanwhile: the copy under the id is then that new one, in use, and
     * dropping it would lose that request's changes.
     */
    public boolean hasMovedAway(String sessionId) {
        return handOver.liveCopyStale(sessionId);
    }

    /**
     * A request that entered or acquired the session is over (its request-end replication done). If another
     * node asked for the session meanwhile, the last request to exit hands it over.
     */
    public void exit(String sessionId) {
        handOver.exit(sessionId);
    }

    /**
     * A request needs a session the container does not hold live: brings it here with its newest state,
     * before the request runs. From its live owner by a hand-over (the owner's running requests on it finish
     * first), or, when no live node owns it, by promoting the newest copy in the cluster. This node is its
     * owner afterwards and the request counts as entered: call {@link #exit} when it is over. Empty when no
     * node knows the id or it was invalidated.
     *
     * @throws OwnershipTimeoutException when the owner did not hand it over within {@code ownership-timeout}
     *         (answer the request with {@link OwnershipTimeoutException#STATUS}, run no application code)
     */
    public Optional<RestoredSession> acquire(String sessionId) {
        return acquisition.acquire(sessionId, null);
    }

    /**
     * As {@link #acquire(String)} for a session whose id named the route suffix {@code route} (null: none
     * known). When this node knows nothing of the session, it asks the node the route names and the nodes that
     * would hold its copies, not every member: an id no node knows costs a few messages. See
     * {@link ReplicationNode#admit} for which ids may be looked up at all.
     */
    public Optional<RestoredSession> acquire(String sessionId, String route) {
        return acquisition.acquire(sessionId, route);
    }

    /**
     * {@link #acquire} for callers that are not a request (tools, tests): the session is brought here and
     * not counted as in use.
     */
    public Optional<RestoredSession> takeOver(String sessionId) {
        return takeOver(sessionId, null);
    }

    /** {@link #takeOver(String)} for a session whose id named the route suffix {@code route} (null: none). */
    public Optional<RestoredSession> takeOver(String sessionId, String route) {
        Optional<RestoredSession> restored = acquisition.acquire(sessionId, route);
        restored.ifPresent(r -> handOver.exit(sessionId));
        return restored;
    }

    /**
     * The container invalidated or expired the session here: every copy in the cluster is removed. In sync
     * mode the invalidation leaves before the request ends, as its updates do, and the session's backups have
     * handled it by then (bounded by sync-timeout: {@link SyncInvalidation}). In async mode it travels
     * with the updates, after the batch window: this node answers for the session meanwhile (a request for
     * it elsewhere asks this node first, which knows it is invalidated), and a crash within that window can
     * lose it, as it can lose the last update.
     */
    public void invalidate(String sessionId) {
        boolean sync = node.config.replicationMode() == ReplicationMode.SYNC;
        Set<String> holders = sync ? syncInvalidation.holders(sessionId) : Set.of();
        node.tombstones.add(sessionId);
        node.newSessionUses.forget(sessionId);
        node.dropPrimary(sessionId);
        node.backups.remove(sessionId);
        if (node.closed()) {
            return;
        }
        if (node.config.replicationMode() == ReplicationMode.ASYNC
                && node.sender.enqueueInvalidation(node.others(), sessionId)) {
            return;
        }
        if (sync) {
            syncInvalidation.send(sessionId, holders);
            return;
        }
        node.transport.broadcast(node.wire.encode(new Message.Invalidate(sessionId)));
    }

    /**
     * The operator's view of the cluster's sessions from this node ({@link SessionAdmin}), acting on the live
     * sessions of this node's container through {@code live}.
     */
    public SessionAdmin admin(LiveSessions live) {
        return new SessionAdmin(node, sessionIndex, this, live);
    }

    // ------------------------------------------------------------------ state, for integrations and tests

    /** True when this node holds a copy (primary or backup) of a session that is not invalidated. */
    public boolean hasLocalCopy(String sessionId) {
        return !node.tombstones.contains(sessionId)
                && (node.primaries.containsKey(sessionId) || node.backups.get(sessionId) != null);
    }

    /** True when this node holds a backup copy of the session. */
    public boolean hasBackup(String sessionId) {
        return node.backups.get(sessionId) != null;
    }

    /** The version of the backup copy held here, or -1. */
    public long backupVersion(String sessionId) {
        BackupStore.Backup b = node.backups.get(sessionId);
        if (b == null) {
            return -1;
        }
        synchronized (b.copy) {
            return b.copy.version();
        }
    }

    /** The replicated last-access time of the backup copy held here, or -1. */
    public long backupLastAccessedTime(String sessionId) {
        BackupStore.Backup b = node.backups.get(sessionId);
        if (b == null) {
            return -1;
        }
        synchronized (b.copy) {
            return b.copy.lastAccessedTime();
        }
    }

    /** True when this node is the primary of the session. */
    public boolean isPrimary(String sessionId) {
        return node.primaries.containsKey(sessionId);
    }

    /** The replicated version of the session this node is primary of, or -1. */
    public long primaryVersion(String sessionId) {
        PrimaryEntry entry = node.primaries.get(sessionId);
        if (entry == null) {
            return -1;
        }
        synchronized (entry) {
            return entry.ownership.isGone() ? -1 : entry.copy.version();
        }
    }

    /** Number of sessions held as primary / as backup. */
    public int primaryCount() {
        return node.primaries.size();
    }

    public int backupCount() {
        return node.backups.size();
    }

    /** Owned sessions with fewer backups than write-quota. */
    public int sessionsBelowQuota() {
        return rebalancer.sessionsBelowQuota();
    }

    /**
     * Whether this node is settled in its cluster, and if not why ({@link Readiness} lists the conditions). Computed
     * now from what the node knows, without network traffic; reads every owned session, so meant for probes every
     * few seconds rather than for every request. "stopped" after {@link #close()}.
     */
    public Readiness readiness() {
        return readiness.check();
    }

    /** The warning logged when the current view cannot meet write-quota; empty when it can. */
    public String quotaWarning() {
        return rebalancer.quotaWarning();
    }

    /** Duration in ms of the last completed rebalancing pass (-1 before the first). */
    public long lastRebalanceMillis() {
        return rebalancer.lastPassMillis();
    }

    /** What this node does with messages from others (the transport delivers them there). */
    IncomingMessages incoming() {
        return incoming;
    }

    /** True after {@link #close()}. */
    public boolean isClosed() {
        return node.closed();
    }

    /** This node's name, also the route suffix of session ids. */
    public String nodeName() {
        return node.self.name();
    }

    /** The current cluster view. */
    public List<Member> members() {
        return node.members();
    }

    public ReplicationMetrics metrics() {
        return node.metrics;
    }

    public ReplicationConfig config() {
        return node.config;
    }

    /** Waits until queued async updates were handed to the transport (tests, orderly shutdown). */
    public boolean flush(Duration timeout) {
        return node.sender.flush(timeout.toMillis());
    }

    /** Sends the batched last-access touches now (they are sent every second anyway). */
    public void flushTouches() {
        touches.flush();
    }

    // ------------------------------------------------------------------ maintenance

    /**
     * Forgets expired tombstones, expires orphaned backups (copies whose primary left the cluster and
     * whose replicated last-access time is older than their max inactive interval) and dormant promoted
     * sessions (taken over from a departed primary but not used since; the container never held them, so
     * the core expires them, cluster-wide), and re-checks the write-quota. Runs periodically; public so tests with an injected clock can run it directly.
     */
    public void runMaintenance() {
        node.tombstones.purgeExpired();
        node.lostOwnership.purgeExpired();
        takeOver.purgeMisses();
        node.backups.purgeReleased(node.clock.millis() - NodeState.RELEASE_MEMORY.toMillis());
        long now = node.clock.millis();
        long strayBefore = System.currentTimeMillis() - NodeState.STRAY_COPY_TTL.toMillis();
        long orphanBefore = System.currentTimeMillis() - NodeState.ORPHAN_GRACE.toMillis();
        int expired = node.backups.removeIf(b -> {
            if (!node.isMember(b.owner.name()) && b.changedAt < orphanBefore) {
                int maxInactive;
                synchronized (b.copy) {
                    maxInactive = b.copy.maxInactiveSeconds();
                }
                if (maxInactive <= 0) {
                    return true; // never expires by itself, owner gone for the grace period, nobody promoted it
                }
            }
            if (node.isMember(b.owner.name())) {
                // its primary decides; a copy it does not use (left here by a hand-over) goes after a while
                return b.changedAt < strayBefore
                        && !node.placement.isBackup(b.copy.sessionId(), b.owner, node.members(), node.self.name());
            }
            synchronized (b.copy) {
                int maxInactive = b.copy.maxInactiveSeconds();
                return maxInactive > 0 && b.copy.lastAccessedTime() + maxInactive * 1000L < now;
            }
        });
        if (expired > 0) {
            LOG.log(System.Logger.Level.DEBUG, "expired " + expired + " orphaned backup sessions");
        }
        for (var e : node.primaries.entrySet()) {
            PrimaryEntry entry = e.getValue();
            boolean idle;
            synchronized (entry) {
                int maxInactive = entry.copy.maxInactiveSeconds();
                idle = entry.ownership.isDormant() && maxInactive > 0 && entry.copy.lastAccessedTime() + maxInactive * 1000L < now;
            }
            if (idle) {
                invalidate(e.getKey()); // promoted after a fail-over and never used again: expired everywhere
            }
        }
        rebalancer.requestPass();
    }

    private void runMaintenanceSafely() {
        try {
            runMaintenance();
        } catch (Throwable e) { // the thread must survive anything: a failed pass is retried at the next one
            LOG.log(System.Logger.Level.WARNING, "session maintenance failed", e);
        }
    }

    private void flushTouchesSafely() {
        try {
            touches.flush();
        } catch (Throwable e) {
            LOG.log(System.Logger.Level.WARNING, "sending last-access touches failed", e);
        }
    }

    /**
     * Flushes queued replication (bounded wait), leaves the cluster, stops threads and removes the node's
     * meters from the registry. Idempotent.
     */
    @Override
    public void close() {
        if (node.closed()) {
            return;
        }
        try {
            rebalancer.close();
            touches.flush();
            node.sender.close(5000);
        } finally { // whatever failed above, the node leaves: the transport's threads must not outlive the stop
            node.markClosed();
            maintenance.shutdownNow();
            try {
                node.transport.close();
            } finally {
                node.metrics.close();
            }
        }
        LOG.log(System.Logger.Level.INFO, "node " + node.self.name() + " left cluster '" + node.config.clusterName() + "'");
    }
}
