package io.sessionrep.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.metrics.NodeMeters;
import io.sessionrep.core.transport.ReplicationTransport;
import io.sessionrep.core.transport.TransportProvider;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One node of the cluster as a container runs it, from the start of a web application to its stop: what
 * the Tomcat manager, the Jetty session store and the filter share, so that they keep only their adaptation
 * to the container.
 * <ul>
 *   <li>Lifecycle: {@link #start} opens the node's meters, makes the transport ({@link TransportProvider};
 *       by default the one registered as a service, JGroups) and starts the {@link SessionReplicator} on
 *       it. Each part registers its clean-up as it starts, and so can the integration
 *       ({@link #onStop}); {@link #stop} runs them in reverse order, logs each one that fails and still
 *       runs the rest. A start that fails cleans up what had started and rethrows.</li>
 *   <li>{@link #replicator()}: the running engine, or an {@link IllegalStateException} saying it is not
 *       started.</li>
 *   <li>Single-flight take-over ({@link #acquire}, {@link #takeOver}): concurrent requests of one node for
 *       a session it does not hold live bring it here once, and share the one live copy.</li>
 *   <li>Session ids {@code <cluster-id>.<route>}: {@link #clusterId} and {@link #withRoute}, one rule for
 *       every integration.</li>
 *   <li>{@link #nodeName}: node-name and the container's own route suffix (Tomcat's {@code jvmRoute},
 *       Jetty's {@code workerName}) name the same thing and must agree.</li>
 *   <li>{@link #readiness}: whether the node is settled in its cluster ({@link Readiness}), also before the start
 *       and while it stops; each integration publishes it to its web application under
 *       {@link #READINESS_ATTRIBUTE} for the readiness endpoint.</li>
 * </ul>
 * A node is started once; a container that starts the application again makes a new one.
 */
public final class ReplicationNode implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ReplicationNode.class.getName());
    private static final int TAKE_OVER_STRIPES = 64;

    /**
     * The servlet context attribute under which each integration publishes its node's readiness while the web
     * application runs, for {@code io.sessionrep.core.health.ReadinessServlet}: a
     * {@code java.util.function.Supplier<java.util.List<String>>} of the reasons the node is not ready, empty when
     * it is ({@link #readinessReasons()}). JDK types only, so that a servlet loaded by another class loader than
     * the node's (a copy in the web application, the node in the container) can read it.
     */
    public static final String READINESS_ATTRIBUTE = "io.sessionrep.readiness";

    private final ReplicationConfig config;
    private final TransportProvider transports;
    /** Clean-up steps, the last registered first. Guarded by {@code this}. */
    private final Deque<Step> stopSteps = new ArrayDeque<>();
    private final ReentrantLock[] takeOverLocks = new ReentrantLock[TAKE_OVER_STRIPES];
    private volatile SessionReplicator replicator;
    private volatile NodeMeters meters;
    private boolean started;
    /** Why a node without a running replicator is not ready: not started, starting, stopping, stopped. */
    private volatile String phase = "not started";
    /** The shape of the session ids this node's container issues. */
    private volatile SessionIdShape idShape = SessionIdShape.ANY;

    private record Step(String name, Runnable cleanUp) {
    }

    /**
     * A node configured by {@code config}, not started.
     *
     * @param transports makes the transport at start; null: the {@link TransportProvider} registered with
     *                   the class loader of this class (the JGroups transport)
     */
    public ReplicationNode(ReplicationConfig config, TransportProvider transports) {
        this.config = Objects.requireNonNull(config, "config");
        this.transports = transports;
        for (int i = 0; i < TAKE_OVER_STRIPES; i++) {
            takeOverLocks[i] = new ReentrantLock();
        }
    }

    public ReplicationConfig config() {
        return config;
    }

    // ------------------------------------------------------------------ lifecycle

    /**
     * Registers a clean-up step that {@link #stop} runs before the steps registered earlier (so before the
     * replicator stops if registered after {@link #start}). Steps may be registered before the start: a
     * start that fails runs them too.
     */
    public synchronized void onStop(String step, Runnable cleanUp) {
        stopSteps.push(new Step(Objects.requireNonNull(step, "step"), Objects.requireNonNull(cleanUp, "cleanUp")));
    }

    /** {@link #start(String, MeterRegistry, ClassLoader, SessionEvents, Clock)} on the system clock. */
    public SessionReplicator start(String contextPath, MeterRegistry application, ClassLoader appClassLoader,
                                   SessionEvents events) {
        return start(contextPath, application, appClassLoader, events, Clock.systemUTC());
    }

    /**
     * Opens the meters (to {@code application}, null: none, and with {@code metrics=jmx} to JMX), makes the
     * transport and starts the replicator on it. Threads the replicator and the transport create inherit
     * this class's loader as their context class loader, never the web application's (which would stay
     * pinned after an undeploy). If any part fails, every clean-up step registered so far runs (see
     * {@link #stop}) and the failure is rethrown.
     *
     * @param contextPath    the web application's, for the meters' tags
     * @param appClassLoader loads the application's attribute classes on deserialization
     * @return the running replicator, also {@link #replicator()}
     * @throws IllegalStateException when this node was started before
     */
    public SessionReplicator start(String contextPath, MeterRegistry application, ClassLoader appClassLoader,
                                   SessionEvents events, Clock clock) {
        synchronized (this) {
            if (started) {
                throw new IllegalStateException("node " + config.nodeName() + " was started before: a new start"
                        + " needs a new ReplicationNode");
            }
            started = true;
            phase = "starting";
        }
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(ReplicationNode.class.getClassLoader());
        try {
            NodeMeters opened = NodeMeters.open(config, contextPath, application);
            meters = opened;
            onStop("meters", () -> {
                meters = null;
                opened.close();
            });
            opened.exportReadiness(this::readiness);
            TransportProvider provider = transports != null ? transports
                    : TransportProvider.load(ReplicationNode.class.getClassLoader());
            ReplicationTransport transport = provider.create(config);
            // the replicator closes it when it stops (then this is a no-op); this closes one it never started
            onStop("transport", transport::close);
            SessionReplicator running = SessionReplicator.start(config, transport, appClassLoader,
                    opened.registry(), events, clock);
            onStop("replicator", running::close);
            replicator = running;
            phase = "running";
            return running;
        } catch (RuntimeException | Error e) {
            stop();
            throw e;
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    /**
     * Runs the clean-up steps, the last registered first: those of the integration registered after the
     * start, then the replicator (which leaves the cluster and closes the transport), the transport (if the
     * replicator did not start), the meters, then those registered before the start. A step that fails is logged and the others still run. Idempotent.
     */
    public void stop() {
        phase = "stopping";
        replicator = null;
        while (true) {
            Step step;
            synchronized (this) {
                step = stopSteps.poll();
            }
            if (step == null) {
                phase = "stopped";
                return;
            }
            try {
                step.cleanUp().run();
            } catch (RuntimeException | Error e) {
                LOG.log(System.Logger.Level.WARNING, "stopping session replication of node " + config.nodeName()
                        + ": clean-up step '" + step.name() + "' failed; the other steps still run", e);
            }
        }
    }

    /** {@link #stop}. */
    @Override
    public void close() {
        stop();
    }

    /**
     * The running replicator.
     *
     * @throws IllegalStateException before {@link #start} and after {@link #stop}
     */
    public SessionReplicator replicator() {
        SessionReplicator running = replicator;
        if (running == null) {
            throw new IllegalStateException("Not started: the replicator runs while the context runs");
        }
        return running;
    }

    /** The running replicator, or null before {@link #start} and after {@link #stop}. */
    public SessionReplicator replicatorIfRunning() {
        return replicator;
    }

    /**
     * Whether this node is settled in its cluster and, if not, why ({@link Readiness}): the running replicator's
     * answer ({@link SessionReplicator#readiness()}), else not ready because it is "not started", "starting",
     * "stopping" or "stopped". Never throws.
     */
    public Readiness readiness() {
        SessionReplicator running = replicator;
        if (running != null) {
            try {
                return running.readiness();
            } catch (RuntimeException e) { // a probe must get an answer; the failure is the reason
                LOG.log(System.Logger.Level.WARNING, "readiness of node " + config.nodeName() + " could not be"
                        + " computed", e);
                return Readiness.notReady("readiness could not be computed: " + e);
            }
        }
        return Readiness.notReady(phase);
    }

    /**
     * What each integration publishes under {@link #READINESS_ATTRIBUTE}: the reasons this node is not ready now,
     * empty when it is (each call asks {@link #readiness()} again).
     */
    public Supplier<List<String>> readinessReasons() {
        return () -> readiness().reasons();
    }

    /**
     * The operator's session operations of the running node ({@link SessionAdmin}), acting on the container's live
     * sessions through {@code live}; null before {@link #start} and after {@link #stop}.
     */
    public SessionAdmin admin(LiveSessions live) {
        SessionReplicator running = replicator;
        return running == null ? null : running.admin(live);
    }

    /**
     * Registers the session admin MBean of the started node ({@link io.sessionrep.core.admin.SessionAdminMBean},
     * {@code sessionrep:...,type=sessions}) when its meters go to JMX, until it stops; returns the view (the Tomcat
     * manager's own operations delegate to it). Call after {@link #start}.
     */
    public io.sessionrep.core.admin.SessionAdminView exportAdmin(LiveSessions live) {
        io.sessionrep.core.admin.SessionAdminView view = new io.sessionrep.core.admin.SessionAdminView(() -> admin(live));
        NodeMeters open = meters;
        if (open != null) {
            open.exportAdmin(view);
        }
        return view;
    }

    /** Where the node's meters go while started (see {@link NodeMeters#registry()}), else null. */
    public MeterRegistry meterRegistry() {
        NodeMeters open = meters;
        return open == null ? null : open.registry();
    }

    // ------------------------------------------------------------------ single-flight take-over

    /**
     * The session a request needs, brought here at most once when several requests of this node need it
     * at the same time. {@code live} is asked first: the live copy if this node holds one the request may use
     * (having entered it), else null. If null, the session is {@link SessionReplicator#acquire acquired}
     * (the request counts as entered) and {@code adopt} makes the live copy of it, unless another request
     * of this node did so meanwhile: requests for one id wait for each other here, and {@code live} is asked
     * again after the wait. The core's acquisition alone does not suffice: a second request would get the
     * session resumed as a second copy, and the two requests would then change two different objects.
     *
     * @return the live copy, or null when no node knows the id (or {@code adopt} returned null)
     * @throws OwnershipTimeoutException when the session did not come within {@code ownership-timeout}
     */
    public <S> S acquire(String clusterId, Supplier<S> live, Function<RestoredSession, S> adopt) {
        return bringHere(null, clusterId, live, adopt, true);
    }

    /**
     * As {@link #acquire(String, Supplier, Function)} for the session id {@code sessionId} as the request named
     * it (route suffix included): an id that is not of this node's {@link #idShape}, or beyond the ids the
     * request may have the cluster asked about, names no session ({@link #admit}).
     */
    public <S> S acquire(String sessionId, String clusterId, Supplier<S> live, Function<RestoredSession, S> adopt) {
        return bringHere(sessionId, clusterId, live, adopt, true);
    }

    /**
     * As {@link #acquire}, for a caller that is not a request: the session is brought here by
     * {@link SessionReplicator#takeOver} and not counted as in use.
     */
    public <S> S takeOver(String clusterId, Supplier<S> live, Function<RestoredSession, S> adopt) {
        return bringHere(null, clusterId, live, adopt, false);
    }

    /** As {@link #takeOver(String, Supplier, Function)}, for the session id as named (see {@link #acquire}). */
    public <S> S takeOver(String sessionId, String clusterId, Supplier<S> live, Function<RestoredSession, S> adopt) {
        return bringHere(sessionId, clusterId, live, adopt, false);
    }

    private <S> S bringHere(String sessionId, String clusterId, Supplier<S> live, Function<RestoredSession, S> adopt,
                            boolean forRequest) {
        S found = live.get();
        if (found != null) {
            return found;
        }
        SessionReplicator engine = replicator();
        Lookup lookup = admit(sessionId, clusterId);
        if (!lookup.allowed()) {
            return null;
        }
        ReentrantLock lock = takeOverLocks[Math.floorMod(clusterId.hashCode(), TAKE_OVER_STRIPES)];
        try {
            if (!lock.tryLock(config.ownershipTimeout().toNanos(), TimeUnit.NANOSECONDS)) {
                throw new OwnershipTimeoutException("session " + LogIds.shortForm(clusterId) + ": other requests"
                        + " here were bringing it here for longer than ownership-timeout");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OwnershipTimeoutException("session " + LogIds.shortForm(clusterId) + ": interrupted while"
                    + " other requests here were bringing it here");
        }
        try {
            found = live.get();
            if (found != null) {
                return found;
            }
            Optional<RestoredSession> restored = forRequest ? engine.acquire(clusterId, lookup.route())
                    : engine.takeOver(clusterId, lookup.route());
            if (restored.isEmpty()) {
                return null;
            }
            try {
                return adopt.apply(restored.get());
            } catch (RuntimeException | Error e) {
                if (forRequest) {
                    engine.exit(clusterId); // the request will not use it
                }
                throw e;
            }
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ which ids are looked up

    /** Sets the shape of the session ids this node's container issues (by default {@link SessionIdShape#ANY}). */
    public void idShape(SessionIdShape shape) {
        idShape = Objects.requireNonNull(shape, "shape");
    }

    public SessionIdShape idShape() {
        return idShape;
    }

    /**
     * Whether a session this node does not hold may be looked up in the cluster, and the route to ask first.
     * {@code allowed} false: it names no session, and no cluster message is sent for it.
     */
    public record Lookup(boolean allowed, String route) {
        static final Lookup REFUSED = new Lookup(false, null);
    }

    /**
     * For a session this node does not hold, named by a request as {@code sessionId} (route suffix included;
     * null: the id the open {@link RequestLookups} names with cluster id {@code clusterId}, if any): refused,
     * and counted ({@code sessionrep.lookups.refused}), when it is not of the {@link #idShape} (malformed-id) or
     * when the request has had the cluster asked about {@link RequestLookups#MAX_CLUSTER_LOOKUPS} other ids
     * (too-many-ids). Else allowed, with its route suffix. An id known only by its cluster id, outside a
     * request's lookups, is checked by its cluster id alone and has no route.
     */
    public Lookup admit(String sessionId, String clusterId) {
        SessionReplicator running = replicator;
        RequestLookups request = RequestLookups.current();
        String named = sessionId != null ? sessionId : request == null ? null : request.named(clusterId);
        String route = null;
        boolean wellFormed;
        if (named != null) {
            wellFormed = clusterId != null && idShape.matches(named)
                    && clusterId.length() == named.indexOf('.');
            route = wellFormed ? SessionIdShape.route(named) : null;
        } else {
            wellFormed = clusterId != null && idShape.matches(clusterId + ".x");
        }
        if (!wellFormed) {
            if (running != null) {
                running.metrics().lookupsRefusedMalformed.increment();
            }
            return Lookup.REFUSED;
        }
        if (request != null && !request.spend(clusterId)) {
            if (running != null) {
                running.metrics().lookupsRefusedTooMany.increment();
            }
            return Lookup.REFUSED;
        }
        return new Lookup(true, route);
    }

    // ------------------------------------------------------------------ session ids and routes

    /**
     * The cluster id of a session id {@code <cluster-id>.<route>}: what precedes the first dot; an id without
     * one (or starting with one) is returned as is. Tomcat's {@code JvmRouteBinderValve} and mod_jk read the
     * route after the first dot; Jetty's {@code DefaultSessionIdManager} cuts at the last one. Cluster ids
     * never contain a dot (Tomcat's are hex, the filter's URL-safe base64) and node names cannot, so both
     * agree on every id a node issued. An id with more dots ({@code id.route.extra}) is split here as well, but
     * a request naming it is refused by the {@link SessionIdShape} check before any look-up.
     */
    public static String clusterId(String sessionId) {
        if (sessionId == null) {
            return null;
        }
        int dot = sessionId.indexOf('.');
        return dot > 0 ? sessionId.substring(0, dot) : sessionId;
    }

    /** The id under which the node named {@code route} holds the cluster session {@code clusterId}. */
    public static String withRoute(String clusterId, String route) {
        return clusterId + '.' + route;
    }

    /**
     * {@link #withRoute withRoute(clusterId, route)} for the session id {@code sessionId} that a request named,
     * whose cluster id is {@code clusterId}: {@code sessionId} itself when it is that id already (a request that
     * reached the node its cookie names, the usual case), so that no new string is made and the hash a lookup
     * computes on it stays with it for the container's own lookups of the same request.
     */
    public static String withRoute(String sessionId, String clusterId, String route) {
        boolean local = sessionId.length() == clusterId.length() + 1 + route.length()
                && sessionId.charAt(clusterId.length()) == '.'
                && sessionId.startsWith(clusterId) && sessionId.endsWith(route);
        return local ? sessionId : withRoute(clusterId, route);
    }

    /**
     * The node name of a node whose container gives session ids the route suffix {@code route} (Tomcat's
     * jvmRoute, Jetty's workerName; null or blank: none): both name the route suffix of session ids, so a
     * node-name that is set must equal it, and one that is not set is the route.
     *
     * @param nodeName the configured node-name (null or blank: not set)
     * @param mismatch the exception to throw when both are set and differ, given (node-name, route)
     * @return the node name (node-name stripped, else the route as is), or null when neither is set
     */
    public static String nodeName(String nodeName, String route,
                                  BiFunction<String, String, ? extends RuntimeException> mismatch) {
        String configured = blankToNull(nodeName);
        String container = route == null || route.isBlank() ? null : route; // the container's, as it uses it
        if (configured == null) {
            return container;
        }
        if (container != null && !configured.equals(container)) {
            throw mismatch.apply(configured, container);
        }
        return configured;
    }

    /** {@code value} stripped of surrounding white space, or null when that leaves nothing. */
    public static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }

    @Override
    public String toString() {
        return "ReplicationNode[" + config.nodeName() + "@" + config.clusterName()
                + (replicator != null ? ", running]" : "]");
    }
}
