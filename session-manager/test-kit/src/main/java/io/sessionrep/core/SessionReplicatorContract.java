package io.sessionrep.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.metrics.ReplicationMetrics;
import io.sessionrep.core.testing.DroppingTransport;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.core.testing.MutableClock;
import io.sessionrep.core.testing.RecordingEvents;
import io.sessionrep.core.testing.TestSession;
import io.sessionrep.core.wire.MalformedMessageException;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.WireCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.awaitility.Awaitility.await;

/**
 * The fixture of the core's replication contract: nodes on the transport a subclass provides, each
 * transport wrapped to drop messages on demand, events recorded, an injected clock, meters, and the
 * barrier ({@link #settle}) that waits until what a node sent has been processed. The contract itself is
 * split by concern into abstract subclasses, each run over the in-memory network (test-kit), real JGroups
 * channels on 127.0.0.1 and sealed JGroups channels (replication-transport):
 * <ul>
 *   <li>{@link ReplicationBasicsContract}: what a request end sends (deltas, sync and async, triggers);</li>
 *   <li>{@link FailOverContract}: take-over, fetch from the cluster, concurrent take-overs, restarts;</li>
 *   <li>{@link MembershipContract}: rebalance when nodes join or leave, backup placement;</li>
 *   <li>{@link InvalidationExpiryContract}: invalidation everywhere, expiry of orphaned sessions;</li>
 *   <li>{@link LimitsContract}: allowlist, malformed messages, size limit, write-quota 0.</li>
 * </ul>
 */
@Timeout(60)
public abstract class SessionReplicatorContract {
    protected final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    protected final MeterRegistry meters = new SimpleMeterRegistry();
    protected final Map<String, DroppingTransport> transports = new HashMap<>();
    protected final Map<String, RecordingEvents> events = new HashMap<>();
    private final Map<String, SessionReplicator> nodes = new HashMap<>();
    private final List<SessionReplicator> started = new ArrayList<>();

    private final ContractNetwork network;

    protected SessionReplicatorContract(ContractNetwork network) {
        this.network = network;
    }

    private ReplicationConfig.Builder networkOptions(String name, ReplicationConfig.Builder options) {
        return network.nodeOptions(name, options);
    }

    private ReplicationTransport newTransport(ReplicationConfig config) {
        return network.transport(config);
    }

    @AfterEach
    void stop() {
        started.forEach(SessionReplicator::close);
    }

    protected SessionReplicator node(String name) {
        return node(name, b -> b);
    }

    protected SessionReplicator node(String name, UnaryOperator<ReplicationConfig.Builder> options) {
        return node(name, options, getClass().getClassLoader());
    }

    /** A node whose application classes are those {@code appClassLoader} loads (a build of its own). */
    protected SessionReplicator node(String name, UnaryOperator<ReplicationConfig.Builder> options,
                                     ClassLoader appClassLoader) {
        ReplicationConfig config = options.apply(
                networkOptions(name, ReplicationConfig.builder().nodeName(name).machineId(name))).build();
        DroppingTransport transport = new DroppingTransport(newTransport(config));
        RecordingEvents recorder = new RecordingEvents();
        SessionReplicator replicator = SessionReplicator.start(config, transport, appClassLoader, meters, recorder, clock);
        transports.put(name, transport);
        events.put(name, recorder);
        nodes.put(name, replicator);
        started.add(replicator);
        awaitViews();
        return replicator;
    }

    /** Waits until every running node sees every running node. */
    protected void awaitViews() {
        List<SessionReplicator> running = started.stream().filter(r -> !r.isClosed()).toList();
        await().atMost(Duration.ofSeconds(30)).until(() -> running.stream().allMatch(r -> r.members().size() == running.size()));
    }

    /** Stops a node and waits until the others have noticed. */
    protected void stopNode(SessionReplicator node) {
        node.close();
        awaitViews();
    }

    /**
     * Waits until what {@code from} sent so far has been processed by every other node: flushes its
     * async queue, then makes one request to each member (per-sender FIFO: the reply comes after).
     */
    protected void settle(SessionReplicator... from) {
        for (SessionReplicator n : from) {
            if (n.isClosed()) {
                continue;
            }
            n.flush(Duration.ofSeconds(10));
            DroppingTransport t = transports.get(n.nodeName());
            for (Member m : n.members()) {
                if (!m.name().equals(n.nodeName())) {
                    t.delegate().request(m, BARRIER, Duration.ofSeconds(10)).join();
                }
            }
        }
    }

    /** The message in {@code bytes} (for a transport hook), or null if they are not one. */
    protected static Message decoded(byte[] bytes) {
        try {
            return WireCodec.decode(bytes);
        } catch (MalformedMessageException e) {
            return null;
        }
    }

    protected static Member member(SessionReplicator seenBy, String name) {
        return seenBy.members().stream().filter(m -> m.name().equals(name)).findFirst().orElseThrow();
    }

    /** The settle() barrier: a Fetch of "barrier", in the oldest protocol, which every node of any release reads. */
    private static final byte[] BARRIER = WireCodec.encode(new Message.Fetch("barrier"), WireCodec.OLDEST_READ);

    /** Bytes one settle() barrier adds to the receiver's count. */
    protected static double barrierBytes() {
        return BARRIER.length;
    }

    protected double counter(String name, String node) {
        return meters.find(name).tag("node", node).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    protected double valueBytesSent(String node) {
        return counter(ReplicationMetrics.VALUE_BYTES_SENT, node);
    }

    protected TestSession newSession(String id) {
        return new TestSession(id, clock.millis());
    }

    /** Session "s1" with user "alice", its first request ended on {@code primary}, and what that sent processed. */
    protected TestSession aliceReplicatedBy(SessionReplicator primary) {
        TestSession s = newSession("s1").set("user", "alice");
        primary.requestEnd(s, s.tracker);
        settle(primary);
        return s;
    }

    protected SessionReplicator running(String name) {
        return started.stream().filter(r -> r.nodeName().equals(name) && !r.isClosed()).reduce((x, y) -> y).orElseThrow();
    }
}
