package io.sessionrep.core.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * Every meter of the product, named once. All carry the tag {@code node=<node-name>} so several nodes
 * may share one registry (tests, or two web applications in one container).
 *
 * <table>
 *   <caption>meters</caption>
 *   <tr><td>sessionrep.replication.updates.sent{kind=full|delta}</td><td>updates handed to the transport</td></tr>
 *   <tr><td>sessionrep.replication.bytes.sent</td><td>encoded update bytes handed to the transport</td></tr>
 *   <tr><td>sessionrep.replication.value.bytes.sent</td><td>serialized attribute bytes in those updates</td></tr>
 *   <tr><td>sessionrep.replication.bytes.received</td><td>bytes of every message received</td></tr>
 *   <tr><td>sessionrep.replication.failed</td><td>replications that could not be done (send error)</td></tr>
 *   <tr><td>sessionrep.replication.coalesced</td><td>queued async updates merged into a newer one</td></tr>
 *   <tr><td>sessionrep.replication.dropped</td><td>queued async updates dropped because the queue was full</td></tr>
 *   <tr><td>sessionrep.request.end</td><td>timer: time spent in request-end replication on the request thread</td></tr>
 *   <tr><td>sessionrep.sync.ack</td><td>timer: wait for the first backup acknowledgement (sync mode)</td></tr>
 *   <tr><td>sessionrep.sync.timeouts</td><td>sync requests that proceeded after sync-timeout without an ack</td></tr>
 *   <tr><td>sessionrep.messages.rejected{reason}</td><td>received messages or attributes refused:
 *       malformed, class-not-allowed, undecodable</td></tr>
 *   <tr><td>sessionrep.attributes.not.serializable</td><td>attribute values that could not be serialized</td></tr>
 *   <tr><td>sessionrep.attributes.incompatible{class}</td><td>attributes not restored because they were written by
 *       a version of {@code class} this node's version cannot take (a field whose type changed, a class or enum
 *       constant that does not exist here, a changed serialVersionUID); at most {@value #MAX_CLASS_TAGS} class
 *       tags, then {@code class=other}</td></tr>
 *   <tr><td>sessionrep.sessions.too.large</td><td>replications skipped because of max-session-size</td></tr>
 *   <tr><td>sessionrep.takeovers{source=local-backup|cluster}</td><td>sessions this node became primary of</td></tr>
 *   <tr><td>sessionrep.takeover.misses</td><td>take-over attempts for ids no node knows</td></tr>
 *   <tr><td>sessionrep.lookups.refused{reason=malformed-id|too-many-ids}</td><td>session ids named by requests
 *       and treated as naming no session without asking the cluster: not of the shape the installation issues,
 *       or beyond the ids one request may have the cluster asked about</td></tr>
 *   <tr><td>sessionrep.replication.touches.sent</td><td>last-access touches sent for read-only requests</td></tr>
 *   <tr><td>sessionrep.ownership.conflicts</td><td>requests whose session was taken over elsewhere meanwhile</td></tr>
 *   <tr><td>sessionrep.replication.refused</td><td>copies of this node's sessions that a backup refused to start
 *       (its max-backup-bytes reached), counted at the primary</td></tr>
 *   <tr><td>sessionrep.sessions.below.quota</td><td>gauge: owned sessions with fewer backups than write-quota</td></tr>
 *   <tr><td>sessionrep.ready</td><td>gauge: 1 when the node is ready (io.sessionrep.core.Readiness), else 0</td></tr>
 *   <tr><td>sessionrep.rebalance.copies</td><td>full copies sent to restore the quota after a membership change</td></tr>
 *   <tr><td>sessionrep.promotions</td><td>backups promoted to primary because their primary left</td></tr>
 *   <tr><td>sessionrep.merge.resolved{outcome=kept|dropped|invalidated}</td><td>sessions held on both sides of a
 *       healed partition, settled here: this node's copy kept (renumbered), dropped for the other side's,
 *       or invalidated because the other side had invalidated it</td></tr>
 *   <tr><td>sessionrep.sessions.primary / .backup</td><td>gauges: sessions held as primary / as backup</td></tr>
 *   <tr><td>sessionrep.async.queue.entries / .bytes</td><td>gauges: async sender queue depth</td></tr>
 *   <tr><td>sessionrep.transport.*</td><td>the transport's own counts ({@link #transportCount}), named by the
 *       transport: for the JGroups one, what it refused, gave up or dropped (docs/operations.md)</td></tr>
 * </table>
 *
 * <p>{@link #close()} removes every meter of the node from the registry: the gauges reference the node's
 * live state, which must not stay reachable (nor be reported) after the node stopped, and a node started
 * again in the same registry (a redeployed web application) registers fresh meters.
 */
public final class ReplicationMetrics implements AutoCloseable {
    public static final String UPDATES_SENT = "sessionrep.replication.updates.sent";
    public static final String BYTES_SENT = "sessionrep.replication.bytes.sent";
    public static final String VALUE_BYTES_SENT = "sessionrep.replication.value.bytes.sent";
    public static final String BYTES_RECEIVED = "sessionrep.replication.bytes.received";
    public static final String FAILED = "sessionrep.replication.failed";
    public static final String COALESCED = "sessionrep.replication.coalesced";
    public static final String DROPPED = "sessionrep.replication.dropped";
    public static final String REQUEST_END = "sessionrep.request.end";
    public static final String SYNC_ACK = "sessionrep.sync.ack";
    public static final String SYNC_TIMEOUTS = "sessionrep.sync.timeouts";
    public static final String REJECTED = "sessionrep.messages.rejected";
    public static final String NOT_SERIALIZABLE = "sessionrep.attributes.not.serializable";
    public static final String INCOMPATIBLE = "sessionrep.attributes.incompatible";
    /** Class names come from received bytes: this many distinct {@code class} tags, the rest counted as other. */
    public static final int MAX_CLASS_TAGS = 100;
    public static final String TOO_LARGE = "sessionrep.sessions.too.large";
    public static final String TAKEOVERS = "sessionrep.takeovers";
    public static final String TAKEOVER_MISSES = "sessionrep.takeover.misses";
    public static final String TOUCHES_SENT = "sessionrep.replication.touches.sent";
    public static final String OWNERSHIP_CONFLICTS = "sessionrep.ownership.conflicts";
    /** Sessions handed over between live nodes; tag direction=granted (given away) or acquired (taken in). */
    public static final String HANDOVERS = "sessionrep.handovers";
    /** Requests refused (503) because the session's owner did not hand it over within ownership-timeout. */
    public static final String OWNERSHIP_TIMEOUTS = "sessionrep.ownership.timeouts";
    public static final String SESSIONS_BELOW_QUOTA = "sessionrep.sessions.below.quota";
    /** 1 while the node is ready ({@link io.sessionrep.core.Readiness}: settled in its cluster), else 0. */
    public static final String READY = "sessionrep.ready";
    public static final String REBALANCED = "sessionrep.rebalance.copies";
    public static final String PROMOTIONS = "sessionrep.promotions";
    public static final String MERGE_RESOLVED = "sessionrep.merge.resolved";
    public static final String SESSIONS_PRIMARY = "sessionrep.sessions.primary";
    public static final String SESSIONS_BACKUP = "sessionrep.sessions.backup";
    public static final String QUEUE_ENTRIES = "sessionrep.async.queue.entries";
    public static final String QUEUE_BYTES = "sessionrep.async.queue.bytes";

    public static final String REASON_MALFORMED = "malformed";
    public static final String REASON_CLASS_NOT_ALLOWED = "class-not-allowed";
    public static final String REASON_UNDECODABLE = "undecodable";
    /** The sender is not a member of the current view. */
    public static final String REASON_NOT_MEMBER = "not-member";
    /** The sender could not have sent it by the protocol's rules (e.g. announcing another node's ownership). */
    public static final String REASON_NOT_OWNER = "not-owner";
    /** The update is larger than max-session-size. */
    public static final String REASON_TOO_LARGE = "too-large";
    /**
     * Serialized attribute bytes this node holds for sessions it owns. Zero while the container holds
     * them live (the live session is the only copy then); sessions promoted after a fail-over or granted
     * by a hand-over count until a request here uses them.
     */
    public static final String PRIMARY_HELD_BYTES = "sessionrep.primary.held.bytes";
    /** What the backups held here cost (bounded by max-backup-bytes): values, ids, names and a per-copy overhead. */
    public static final String BACKUP_BYTES = "sessionrep.backup.bytes";
    /** Copies of this node's sessions a backup refused to start (the backup's max-backup-bytes reached). */
    public static final String COPIES_REFUSED = "sessionrep.replication.refused";
    /** New backup copies refused because max-backup-bytes was reached. */
    public static final String BACKUPS_REFUSED = "sessionrep.backups.refused";
    /**
     * Session ids named by requests that this node did not look up in the cluster: not of the shape the
     * installation issues ({@link #REASON_MALFORMED_ID}), or beyond the ids one request may have looked up there
     * ({@link #REASON_TOO_MANY_IDS}). Each is treated as naming no session.
     */
    public static final String LOOKUPS_REFUSED = "sessionrep.lookups.refused";
    /** A session id of another length, alphabet or route suffix than the ids this installation issues. */
    public static final String REASON_MALFORMED_ID = "malformed-id";
    /** A session id named by a request that had the cluster asked about as many ids as one request may. */
    public static final String REASON_TOO_MANY_IDS = "too-many-ids";

    private final MeterRegistry registry;
    private final Tags tags;
    private final List<Meter> meters = new CopyOnWriteArrayList<>();
    private final List<java.util.function.LongSupplier> countSuppliers = new CopyOnWriteArrayList<>();
    private final java.util.concurrent.ConcurrentHashMap<String, Counter> incompatibleByClass =
            new java.util.concurrent.ConcurrentHashMap<>();
    public final Counter fullSent;
    public final Counter deltaSent;
    public final Counter bytesSent;
    public final Counter valueBytesSent;
    public final Counter bytesReceived;
    public final Counter failed;
    public final Counter coalesced;
    public final Counter dropped;
    public final Timer requestEnd;
    public final Timer syncAck;
    public final Counter syncTimeouts;
    public final Counter rejectedMalformed;
    public final Counter rejectedClass;
    public final Counter rejectedUndecodable;
    public final Counter rejectedNotMember;
    public final Counter rejectedNotOwner;
    public final Counter rejectedTooLarge;
    public final Counter backupsRefused;
    public final Counter copiesRefused;
    public final Counter notSerializable;
    public final Counter tooLarge;
    public final Counter takeoversLocal;
    public final Counter takeoversCluster;
    public final Counter takeoverMisses;
    public final Counter lookupsRefusedMalformed;
    public final Counter lookupsRefusedTooMany;
    public final Counter touchesSent;
    public final Counter ownershipConflicts;
    public final Counter handOversGranted;
    public final Counter handOversAcquired;
    public final Counter ownershipTimeouts;
    public final Counter rebalanced;
    public final Counter promotions;
    public final Counter mergeKept;
    public final Counter mergeDropped;
    public final Counter mergeInvalidated;

    public ReplicationMetrics(MeterRegistry registry, String nodeName) {
        this.registry = registry;
        this.tags = Tags.of("node", nodeName);
        fullSent = counter(UPDATES_SENT, "kind", "full");
        deltaSent = counter(UPDATES_SENT, "kind", "delta");
        bytesSent = bytes(BYTES_SENT);
        valueBytesSent = bytes(VALUE_BYTES_SENT);
        bytesReceived = bytes(BYTES_RECEIVED);
        failed = counter(FAILED);
        coalesced = counter(COALESCED);
        dropped = counter(DROPPED);
        requestEnd = track(Timer.builder(REQUEST_END).tags(tags).register(registry));
        syncAck = track(Timer.builder(SYNC_ACK).tags(tags).register(registry));
        syncTimeouts = counter(SYNC_TIMEOUTS);
        rejectedMalformed = counter(REJECTED, "reason", REASON_MALFORMED);
        rejectedClass = counter(REJECTED, "reason", REASON_CLASS_NOT_ALLOWED);
        rejectedUndecodable = counter(REJECTED, "reason", REASON_UNDECODABLE);
        rejectedNotMember = counter(REJECTED, "reason", REASON_NOT_MEMBER);
        rejectedNotOwner = counter(REJECTED, "reason", REASON_NOT_OWNER);
        rejectedTooLarge = counter(REJECTED, "reason", REASON_TOO_LARGE);
        backupsRefused = counter(BACKUPS_REFUSED);
        copiesRefused = counter(COPIES_REFUSED);
        notSerializable = counter(NOT_SERIALIZABLE);
        tooLarge = counter(TOO_LARGE);
        takeoversLocal = counter(TAKEOVERS, "source", "local-backup");
        takeoversCluster = counter(TAKEOVERS, "source", "cluster");
        takeoverMisses = counter(TAKEOVER_MISSES);
        lookupsRefusedMalformed = counter(LOOKUPS_REFUSED, "reason", REASON_MALFORMED_ID);
        lookupsRefusedTooMany = counter(LOOKUPS_REFUSED, "reason", REASON_TOO_MANY_IDS);
        touchesSent = counter(TOUCHES_SENT);
        ownershipConflicts = counter(OWNERSHIP_CONFLICTS);
        handOversGranted = counter(HANDOVERS, "direction", "granted");
        handOversAcquired = counter(HANDOVERS, "direction", "acquired");
        ownershipTimeouts = counter(OWNERSHIP_TIMEOUTS);
        rebalanced = counter(REBALANCED);
        promotions = counter(PROMOTIONS);
        mergeKept = counter(MERGE_RESOLVED, "outcome", "kept");
        mergeDropped = counter(MERGE_RESOLVED, "outcome", "dropped");
        mergeInvalidated = counter(MERGE_RESOLVED, "outcome", "invalidated");
    }

    private Counter counter(String name, String... extraTags) {
        return track(Counter.builder(name).tags(tags).tags(extraTags).register(registry));
    }

    private Counter bytes(String name) {
        return track(Counter.builder(name).baseUnit("bytes").tags(tags).register(registry));
    }

    /** The count of attributes not restored because of an incompatible version of {@code className}. */
    public Counter incompatible(String className) {
        Counter counter = incompatibleByClass.get(className);
        if (counter != null) {
            return counter;
        }
        String tag = incompatibleByClass.size() < MAX_CLASS_TAGS ? className : "other";
        return incompatibleByClass.computeIfAbsent(tag, t -> counter(INCOMPATIBLE, "class", t));
    }

    /** Registers a transport's own count as a counter with this node's tags (and its reason, if it has one). */
    public void transportCount(io.sessionrep.core.transport.TransportCount count) {
        FunctionCounter.Builder<java.util.function.LongSupplier> builder = FunctionCounter
                .builder(count.name(), count.count(), c -> c.getAsLong()).description(count.description()).tags(tags);
        countSuppliers.add(count.count()); // the meter holds it weakly, and nothing else holds it
        if (count.reason() != null) {
            builder.tag("reason", count.reason());
        }
        track(builder.register(registry));
    }

    /** Registers a gauge with this node's tags. */
    public void gauge(String name, Supplier<Number> value) {
        track(Gauge.builder(name, value).tags(tags).register(registry));
    }

    private <M extends Meter> M track(M meter) {
        meters.add(meter);
        return meter;
    }

    /** Removes this node's meters from the registry (idempotent); counting on afterwards is harmless. */
    @Override
    public void close() {
        for (Meter meter : meters) {
            registry.remove(meter);
        }
        meters.clear();
    }

    public MeterRegistry registry() {
        return registry;
    }
}
