package io.sessionrep.core.sim;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sessionrep.core.OwnershipTimeoutException;
import io.sessionrep.core.RestoredSession;
import io.sessionrep.core.SessionAccess;
import io.sessionrep.core.SessionEvents;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.testing.TestSession;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One node of the simulated cluster and its "container": the sessions it holds live, dropped when the core says
 * so, and requests bracketed as the integrations bracket them (enter or acquire, one acquisition at a time per
 * session on this node, requestEnd, exit). A session holds one attribute, {@code v}: the number of the last write.
 */
final class SimNode implements SessionEvents {
    static final String VALUE = "v";

    final String name;
    final SessionReplicator engine;
    final SimNetwork.Endpoint transport;
    private final Map<String, TestSession> live = new ConcurrentHashMap<>();
    private final Map<String, Object> acquiring = new ConcurrentHashMap<>();
    private final Occupancy occupancy;
    private volatile boolean crashed;

    /** What a request saw. */
    record Seen(Kind kind, int value) {
        enum Kind { VALUE, NOT_FOUND, REFUSED, CRASHED }

        static final Seen NOT_FOUND = new Seen(Kind.NOT_FOUND, -1);
        static final Seen REFUSED = new Seen(Kind.REFUSED, -1);
        static final Seen CRASHED = new Seen(Kind.CRASHED, -1);

        @Override
        public String toString() {
            return kind == Kind.VALUE ? "v" + value : kind.toString();
        }
    }

    SimNode(String name, ReplicationConfig config, SimNetwork network, Occupancy occupancy) {
        this.name = name;
        this.occupancy = occupancy;
        this.transport = network.endpoint(name);
        this.engine = SessionReplicator.start(config, transport, getClass().getClassLoader(),
                new SimpleMeterRegistry(), this);
    }

    @Override
    public void ownershipLost(String sessionId) {
        live.remove(sessionId);
    }

    @Override
    public void invalidatedElsewhere(String sessionId) {
        live.remove(sessionId);
    }

    boolean holdsLive(String id) {
        return live.containsKey(id);
    }

    boolean crashed() {
        return crashed;
    }

    /** A request that creates session {@code id} with value {@code value}. */
    void create(String id, int value) {
        TestSession s = new TestSession(id, System.currentTimeMillis()).set(VALUE, value);
        live.put(id, s);
        engine.enter(id);
        occupancy.enter(this, id);
        try {
            engine.requestEnd(s, s.tracker);
        } finally {
            occupancy.exit(this, id);
            engine.exit(id);
        }
    }

    /**
     * A request for session {@code id}: reads {@code v}, runs {@code inside} while it holds the session, writes
     * {@code write} (if not null) and ends.
     */
    Seen request(String id, Integer write, Runnable inside) {
        TestSession s;
        try {
            s = begin(id);
        } catch (OwnershipTimeoutException e) {
            return Seen.REFUSED;
        }
        if (s == null) {
            return crashed ? Seen.CRASHED : Seen.NOT_FOUND;
        }
        occupancy.enter(this, id);
        try {
            int seen = (Integer) s.get(VALUE);
            inside.run();
            if (write != null) {
                s.set(VALUE, write);
            }
            engine.requestEnd(s, s.tracker);
            return crashed ? Seen.CRASHED : new Seen(Seen.Kind.VALUE, seen);
        } finally {
            occupancy.exit(this, id);
            engine.exit(id);
        }
    }

    /** A request that invalidates session {@code id}; false when it found no session. */
    boolean invalidate(String id) {
        TestSession s;
        try {
            s = begin(id);
        } catch (OwnershipTimeoutException e) {
            return false;
        }
        if (s == null) {
            return false;
        }
        occupancy.enter(this, id);
        try {
            live.remove(id, s);
            engine.invalidate(id);
            return !crashed;
        } finally {
            occupancy.exit(this, id);
            engine.exit(id);
        }
    }

    private TestSession begin(String id) {
        TestSession held = live.get(id);
        if (held != null && engine.enter(id) == SessionAccess.OWNED) {
            return held;
        }
        Object lock = acquiring.computeIfAbsent(id, k -> new Object());
        synchronized (lock) {
            held = live.get(id);
            if (held != null && engine.enter(id) == SessionAccess.OWNED) {
                return held;
            }
            Optional<RestoredSession> restored = engine.acquire(id);
            if (restored.isEmpty()) {
                return null;
            }
            TestSession s = new TestSession(id, restored.get().creationTime());
            restored.get().attributes().forEach(s::set);
            s.tracker.drain(); // restored, not changed
            live.put(id, s);
            return s;
        }
    }

    /** The node dies: its transport at once, then its threads; its container forgets everything. */
    void crash() {
        crashed = true;
        transport.close();
        engine.close();
        live.clear();
    }

    @Override
    public String toString() {
        return name;
    }
}
