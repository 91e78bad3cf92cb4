package io.sessionrep.tomcat;

import io.micrometer.core.instrument.MeterRegistry;
import io.sessionrep.core.LiveSessions;
import io.sessionrep.core.LogIds;
import io.sessionrep.core.OwnershipTimeoutException;
import io.sessionrep.core.ReplicationNode;
import io.sessionrep.core.RestoredSession;
import io.sessionrep.core.SessionAccess;
import io.sessionrep.core.SessionEvents;
import io.sessionrep.core.SessionIdShape;
import io.sessionrep.core.SessionPrincipals;
import io.sessionrep.core.admin.SessionAdminView;
import io.sessionrep.core.SessionReplicator;
import io.sessionrep.core.config.ConfigOption;
import io.sessionrep.core.config.ReplicationConfig;
import io.sessionrep.core.transport.ReplicationTransport;
import org.apache.catalina.Context;
import org.apache.catalina.Lifecycle;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleListener;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.Session;
import org.apache.catalina.connector.Request;
import org.apache.catalina.session.ManagerBase;
import org.apache.catalina.session.StandardSession;
import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Tomcat 11 session manager whose sessions are replicated by sessionrep. One line of {@code context.xml}:
 * <pre>
 * &lt;Manager className="io.sessionrep.tomcat.ReplicatedSessionManager" writeQuota="1" peers="10.0.0.2:7800"/&gt;
 * </pre>
 * Every replication option is an attribute, its canonical name in camelCase
 * ({@code write-quota} is {@code writeQuota}); all are validated when the context starts, and a bad or
 * unknown one stops the context with a message naming the attribute. The node name is the route suffix of
 * session ids ({@code <id>.<node-name>}): the Engine's {@code jvmRoute} when set (then {@code nodeName}
 * may be left out, or must be equal), else {@code nodeName}.
 *
 * <p>It is Tomcat's {@link ManagerBase} (id generation, expiry, statistics, JMX) with these adaptations:
 * <ul>
 *   <li>Sessions are {@link ReplicatedSession}s, which report changes to their tracker.</li>
 *   <li>At start it joins the cluster (a {@link SessionReplicator} on JGroups). When the context starts, before
 *       Tomcat adds the context's own valves (the authenticator), it puts a
 *       {@link ReplicationValve} into the context's pipeline: the valve replicates at the end of each request
 *       and rewrites the route of a session taken over from another node. It is removed at stop.</li>
 *   <li>{@link #findSession}: the first lookup of the session a request names, during the request, enters the
 *       request in the session's ownership (a session owned by another node is handed over first, and the
 *       cookie's route rewritten); a request that never looks its session up neither waits for nor moves it.
 *       Outside a request an id not held live here is taken over from the cluster
 *       ({@link SessionReplicator#takeOver}); this node becomes its primary and holds it under its own route
 *       suffix. An id no node knows finds nothing, as without replication.</li>
 *   <li>Invalidation and expiry (Tomcat's background {@code processExpires} included) remove the session
 *       from every node; {@link #changeSessionId} retires the old id everywhere.</li>
 *   <li>When another node takes a session over or invalidates it, the live copy here is dropped without
 *       listeners. Stopping (shutdown, undeploy, reload) drops live copies the same way: sessions are
 *       neither invalidated cluster-wide nor written to disk ({@code SESSIONS.ser}); their backups live on
 *       the other nodes and the next request takes them over there.</li>
 * </ul>
 */
public class ReplicatedSessionManager extends ManagerBase {
    private static final Log log = LogFactory.getLog(ReplicatedSessionManager.class);
    private static final String NAME = "ReplicatedSessionManager";
    /** cluster-name/node-name of every manager running in this JVM: two contexts must not share both. */
    private static final Set<String> RUNNING = ConcurrentHashMap.newKeySet();
    /**
     * TRUE while the valve asks Tomcat which session a request used: only the session the request already holds
     * counts, so an id lookup finds nothing. Set back to FALSE, not removed: replacing the value of a thread's
     * existing entry is a plain store, while adding and removing the entry on every request made the thread's
     * map scan for stale entries each time.
     */
    private static final ThreadLocal<Boolean> LIVE_ONLY = new ThreadLocal<>();
    /** The note on a request naming the session it created (entered in the core for it: exit at its end). */
    static final String CREATED_NOTE = ReplicatedSessionManager.class.getName() + ".created";
    /** The note on a request naming the requested session it entered when it first looked it up (exit at its end). */
    static final String ENTERED_NOTE = ReplicatedSessionManager.class.getName() + ".entered";
    /** The note on a request that looked its requested session up once already (entered or not). */
    private static final String LOOKED_UP_NOTE = ReplicatedSessionManager.class.getName() + ".lookedUp";
    /** The note on a request whose path {@code ignored-paths} matches: it takes no part in ownership. */
    private static final String IGNORED_NOTE = ReplicatedSessionManager.class.getName() + ".ignored";
    /** The note on a request that reached the valves after the authenticator (see {@link ApplicationEntryValve}). */
    static final String APPLICATION_NOTE = ReplicatedSessionManager.class.getName() + ".application";
    /** The note on a request whose first lookup, before the application, found nothing to spare a hand-over. */
    private static final String EARLY_NOTE = ReplicatedSessionManager.class.getName() + ".early";
    /** The note on a request whose session lookup timed out waiting for the hand-over: the valve answers 503. */
    static final String TIMED_OUT_NOTE = ReplicatedSessionManager.class.getName() + ".timedOut";
    /** The request this manager's valve is running on this thread; null outside it. */
    private final ThreadLocal<Request> requestInValve = new ThreadLocal<>();

    private final ManagerAttributes attributes = new ManagerAttributes();
    private final SessionEvents events = new SessionEvents() {
        @Override
        public void ownershipLost(String sessionId) {
            evict(sessionId, false);
        }

        @Override
        public void invalidatedElsewhere(String sessionId) {
            evict(sessionId, true);
        }
    };
    /**
     * Puts the valve into the context's pipeline when the context starts, before Tomcat configures the
     * context's own valves: so it runs before the authenticator, which looks the request's session up
     * ({@code getSessionInternal(false)}). Behind it, that lookup would bring a session held on another
     * node here without counting the request, and the session could leave again before the valve entered it.
     */
    private final LifecycleListener valveInstaller = event -> {
        if (Lifecycle.BEFORE_START_EVENT.equals(event.getType())) {
            installValve();
        }
    };
    /** The request-end hook in the context's pipeline; null while not installed. */
    private volatile ReplicationValve valve;
    /** The valve after the authenticator that marks where the application begins; null while not installed. */
    private volatile ApplicationEntryValve applicationEntry;
    /** Null: the registered transport (JGroups). */
    private Function<ReplicationConfig, ReplicationTransport> transports;
    private MeterRegistry meters;
    private volatile ReplicationConfig config;
    /** The running node (meters, transport, replicator) and its clean-up; null while stopped. */
    private volatile ReplicationNode node;

    // ------------------------------------------------------------------ attributes (the README's configuration reference)

    /**
     * Every attribute of the {@code <Manager>} element that no setter takes. Tomcat's digester sets XML
     * attributes with {@code IntrospectionUtils.setProperty}, which calls {@code setXxx(String)} (or a typed
     * setter) when there is one and this method otherwise, also when a typed setter of {@link ManagerBase}
     * could not parse the value. A replication option in camelCase ({@code writeQuota} for
     * {@code write-quota}, see {@link ConfigOption#attributeName()}) is kept for start, when all are
     * validated at once; anything else is remembered too, and start fails naming it, rather than a typo
     * silently leaving an option at its default.
     */
    public boolean setProperty(String name, String value) {
        ConfigOption option = name == null ? null : ConfigOption.forAttributeName(name).orElse(null);
        if (option != null) {
            attributes.set(option.key(), value);
        } else {
            attributes.unknown(name, value);
        }
        return true;
    }

    /**
     * Accepted for configurations copied from {@code StandardManager} ({@code pathname=""} disables its
     * persistence): this manager never writes sessions to disk, whatever the value.
     */
    public void setPathname(String pathname) {
        if (pathname != null && !pathname.isEmpty()) {
            log.warn("Manager attribute pathname=\"" + pathname + "\" is ignored: " + NAME
                    + " never writes sessions to disk (their copies live on other nodes)");
        }
    }

    /** The node name (the route suffix of session ids) while started, else the configured one. */
    public String getNodeName() {
        ReplicationConfig running = config;
        return running != null ? running.nodeName() : attributes.get("node-name");
    }

    /** The current cluster view, for JMX and logs. */
    public String getClusterMembers() {
        SessionReplicator running = running();
        return running == null ? "(not started)" : running.members().toString();
    }

    /**
     * Whether this node is settled in its cluster ({@link io.sessionrep.core.Readiness}): attribute {@code ready}
     * of the manager's MBean ({@code Catalina:type=Manager,context=/shop,host=localhost}). False while stopped.
     */
    public boolean isReady() {
        ReplicationNode running = node;
        return running != null && running.readiness().ready();
    }

    /**
     * Why this node is not ready, the reasons separated by {@code "; "}; empty when it is ready. Attribute
     * {@code notReadyReasons} of the manager's MBean.
     */
    public String getNotReadyReasons() {
        ReplicationNode running = node;
        return running == null ? "not started" : String.join("; ", running.readiness().reasons());
    }

    // ------------------------------------------------------------------ the operator's session operations (JMX)

    /**
     * The live sessions of this manager, for the operator's {@link io.sessionrep.core.SessionAdmin}: invalidated as
     * Tomcat expires a session ({@code expire()}: listeners run, and every copy in the cluster goes).
     */
    private final LiveSessions liveSessions = new LiveSessions() {
        @Override
        public boolean invalidate(String clusterId) {
            Session session = liveSession(clusterId);
            if (session == null) {
                return false;
            }
            session.expire();
            return true;
        }

        @Override
        public boolean setPrincipal(String clusterId, String name) {
            Session session = liveSession(clusterId);
            if (session == null) {
                return false;
            }
            SessionPrincipals.set(session.getSession(), name);
            return true;
        }

        @Override
        public Object attribute(String clusterId, String name) {
            return liveSession(clusterId) instanceof ReplicatedSession session ? session.snapshot().attribute(name) : null;
        }
    };
    /** The operations of the node's session admin MBean, which this manager's MBean offers too. */
    private final SessionAdminView adminView = new SessionAdminView(() -> {
        ReplicationNode running = node;
        return running == null ? null : running.admin(liveSessions);
    });

    private Session liveSession(String clusterId) {
        ReplicationConfig running = config;
        return running == null ? null : sessions.get(ReplicationNode.withRoute(clusterId, running.nodeName()));
    }

    /**
     * Operation {@code listSessionIds}: as Tomcat's, but the ids of the sessions this node owns in their short form
     * ({@code #1a2b3c4d}, never a whole id), newest access first, at most 1000.
     */
    @Override
    public String listSessionIds() {
        return adminView.listSessionIds();
    }

    /** Operation {@code getSessionAttribute}: as Tomcat's, for a session owned here named by short form or whole id. */
    @Override
    public String getSessionAttribute(String sessionId, String key) {
        return adminView.getSessionAttribute(sessionId, key);
    }

    /**
     * Operation {@code expireSession}: the session, named by its short form or whole id, is invalidated everywhere in
     * the cluster (Tomcat's would take it over from the cluster first).
     */
    @Override
    public void expireSession(String sessionId) {
        adminView.expireSession(sessionId);
    }

    /** Operation {@code countClusterSessions} ({@link SessionAdminView}). */
    public String countClusterSessions() {
        return adminView.countClusterSessions();
    }

    /** Operation {@code listClusterSessions} ({@link SessionAdminView}). */
    public String listClusterSessions(int offset, int limit) {
        return adminView.listClusterSessions(offset, limit);
    }

    /** Operation {@code findSessionsOfPrincipal} ({@link SessionAdminView}). */
    public String findSessionsOfPrincipal(String principal) {
        return adminView.findSessionsOfPrincipal(principal);
    }

    /** Operation {@code expireClusterSession} ({@link SessionAdminView}). */
    public String expireClusterSession(String sessionId) {
        return adminView.expireClusterSession(sessionId);
    }

    /** Operation {@code expireSessionsOfPrincipal} ({@link SessionAdminView}). */
    public String expireSessionsOfPrincipal(String principal) {
        return adminView.expireSessionsOfPrincipal(principal);
    }

    /** The operator's session operations of the running node (embedded use, tests); null while stopped. */
    public io.sessionrep.core.SessionAdmin sessionAdmin() {
        ReplicationNode running = node;
        return running == null ? null : running.admin(liveSessions);
    }

    /** The node's readiness now ({@link ReplicationNode#readiness()}); "not started" while stopped. */
    public io.sessionrep.core.Readiness readiness() {
        ReplicationNode running = node;
        return running == null ? io.sessionrep.core.Readiness.notReady("not started") : running.readiness();
    }

    /**
     * A registry of the embedding application that also gets the replication meters (embedded use); the
     * {@code metrics} attribute decides about JMX either way.
     */
    public void setMeterRegistry(MeterRegistry meters) {
        this.meters = meters;
    }

    /**
     * Where the meters go while started: the registry set with {@link #setMeterRegistry}, the JMX registry,
     * or both; null while stopped, unless one was set.
     */
    public MeterRegistry getMeterRegistry() {
        ReplicationNode running = node;
        MeterRegistry registry = running == null ? null : running.meterRegistry();
        return registry != null ? registry : meters;
    }

    /** The transport each start replicates over (embedded use, tests). Default: JGroups. */
    public void setTransportFactory(Function<ReplicationConfig, ReplicationTransport> transports) {
        this.transports = Objects.requireNonNull(transports, "transports");
    }

    /** The running replication engine (while started). */
    public SessionReplicator replicator() {
        ReplicationNode running = node;
        if (running == null) {
            throw new IllegalStateException("Not started: the replicator runs while the context runs");
        }
        return running.replicator();
    }

    /** The running replication engine, or null. */
    private SessionReplicator running() {
        ReplicationNode running = node;
        return running == null ? null : running.replicatorIfRunning();
    }

    @Override
    public String getName() {
        return NAME;
    }

    /** The route suffix of session ids: this node's name, which is the Engine's jvmRoute when that is set. */
    @Override
    public String getJvmRoute() {
        ReplicationConfig running = config;
        return running != null ? running.nodeName() : super.getJvmRoute();
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    protected synchronized void startInternal() throws LifecycleException {
        Context context = getContext();
        ReplicationConfig configured;
        try {
            configured = attributes.toConfig(super.getJvmRoute());
        } catch (IllegalArgumentException e) {
            throw new LifecycleException(notStarted(e.getMessage()), e);
        }
        String key = configured.clusterName() + "/" + configured.nodeName();
        if (!RUNNING.add(key)) {
            throw new LifecycleException(notStarted("another web application in this JVM already replicates as"
                    + " node '" + configured.nodeName() + "' in cluster '" + configured.clusterName() + "': give"
                    + " each replicated web application its own clusterName (and bindPort)"));
        }
        ReplicationNode starting = new ReplicationNode(configured, transports == null ? null : transports::apply);
        starting.onStop("node name registered in this JVM", () -> RUNNING.remove(key));
        node = starting;
        config = configured; // before ManagerBase starts its id generator: ids carry node-name as their route
        try {
            super.startInternal();
            log.info("Session replication for context [" + context.getName() + "], node " + configured.nodeName()
                    + " (session ids end in ." + configured.nodeName() + "); options (the Manager attributes are"
                    + " these names in camelCase):\n" + configured.describe());
            ClassLoader appClassLoader = context.getLoader() != null ? context.getLoader().getClassLoader()
                    : Thread.currentThread().getContextClassLoader();
            starting.idShape(idShape()); // only ids of the shape this manager issues are looked up in the cluster
            starting.start(context.getPath(), meters, appClassLoader, events);
            publishReadiness(context, starting);
            starting.exportAdmin(liveSessions);
            if (valve == null) {
                // the manager was set on a context that had begun starting: the valve comes after the
                // context's own valves (an authenticator then brings sessions here before the valve counts
                // the request: correct, but a session may move twice)
                installValve();
            }
            starting.onStop("replication valve", this::removeValve);
            installApplicationEntry();
            starting.onStop("application entry valve", this::removeApplicationEntry);
        } catch (RuntimeException | LifecycleException e) {
            release();
            throw e instanceof LifecycleException le ? le : new LifecycleException(notStarted(e.getMessage()), e);
        }
        setState(LifecycleState.STARTING);
    }

    @Override
    public void setContext(Context context) {
        Context previous = getContext();
        if (previous != null) {
            previous.removeLifecycleListener(valveInstaller);
        }
        super.setContext(context);
        if (context != null) {
            context.addLifecycleListener(valveInstaller);
        }
    }

    /**
     * Publishes the node's readiness to the web application for its readiness endpoint
     * ({@code io.sessionrep.core.health.ReadinessServlet}), until the node stops.
     */
    private static void publishReadiness(Context context, ReplicationNode started) {
        jakarta.servlet.ServletContext application = context.getServletContext();
        if (application == null) {
            return;
        }
        application.setAttribute(ReplicationNode.READINESS_ATTRIBUTE, started.readinessReasons());
        started.onStop("readiness attribute", () -> application.removeAttribute(ReplicationNode.READINESS_ATTRIBUTE));
    }

    private synchronized void installValve() {
        Context context = getContext();
        if (valve == null && context != null) {
            ReplicationValve installed = new ReplicationValve(this);
            context.getPipeline().addValve(installed);
            valve = installed;
        }
    }

    /**
     * Appends the {@link ApplicationEntryValve} to the context's pipeline: the manager starts after Tomcat configured
     * the context, so it comes after the authenticator. Only when this manager's valve runs before the
     * authenticator (else the authenticator's lookups are not made in the valve at all).
     */
    private synchronized void installApplicationEntry() {
        Context context = getContext();
        if (applicationEntry == null && context != null && valve != null) {
            ApplicationEntryValve installed = new ApplicationEntryValve();
            context.getPipeline().addValve(installed);
            applicationEntry = installed;
        }
    }

    private synchronized void removeApplicationEntry() {
        ApplicationEntryValve installed = applicationEntry;
        Context context = getContext();
        applicationEntry = null;
        if (installed != null && context != null) {
            context.getPipeline().removeValve(installed);
        }
    }

    private synchronized void removeValve() {
        ReplicationValve installed = valve;
        Context context = getContext();
        valve = null;
        if (installed != null && context != null) {
            context.getPipeline().removeValve(installed);
        }
    }

    private String notStarted(String why) {
        return "Session replication for context [" + (getContext() == null ? "?" : getContext().getName())
                + "] not started: " + why;
    }

    /**
     * Leaves the cluster without invalidating anything: each live session first hands over whatever it has
     * not replicated yet (everything, with {@code replication-trigger=on-shutdown}), then is dropped here
     * without listeners (its backups on other nodes take over); nothing is written to disk.
     */
    @Override
    protected synchronized void stopInternal() throws LifecycleException {
        setState(LifecycleState.STOPPING);
        try {
            SessionReplicator engine = running();
            for (Session session : findSessions()) {
                if (session instanceof ReplicatedSession replicated) {
                    if (engine != null && replicated.replicatesFromHere()) { // as Jetty's cache and the filter do
                        engine.handOver(replicated.snapshot(), replicated.changes());
                    }
                    replicated.evict(false);
                }
            }
            sessions.clear();
        } finally { // a failed hand-over still leaves the cluster: nothing of the node outlives the stop
            release();
        }
        super.stopInternal();
    }

    /** Removes the valve, leaves the cluster, closes the meters (see {@link ReplicationNode#stop}). */
    private void release() {
        ReplicationNode running = node;
        if (running != null) {
            running.stop();
        }
        node = null;
        config = null;
    }

    /** Sessions are never persisted by this manager: their copies live on other nodes. */
    @Override
    public void load() {
    }

    /** Sessions are never persisted by this manager: their copies live on other nodes. */
    @Override
    public void unload() {
    }

    // ------------------------------------------------------------------ sessions

    @Override
    protected StandardSession getNewSession() {
        return new ReplicatedSession(this);
    }

    /** An id offered by the client (Tomcat reuses one only in narrow cases) gets this node's route. */
    @Override
    public Session createSession(String sessionId) {
        Request request = requestInValve.get();
        if (request != null && request.getNote(EARLY_NOTE) != null && request.getNote(LOOKED_UP_NOTE) == null
                && request.getRequestedSessionId() != null) {
            // a session is wanted before the application (an authenticator's login) for a request whose session
            // lookups there found nothing to spare a hand-over: the requested session it is, if some node has it
            Session requested = lookUpRequested(request);
            if (requested != null) {
                return requested;
            }
        }
        ReplicationConfig running = config;
        String id = sessionId == null || running == null ? sessionId
                : ReplicationNode.withRoute(ReplicationNode.clusterId(sessionId), running.nodeName());
        Session created = super.createSession(id);
        enterCreated(created);
        return created;
    }

    /**
     * A request creating a session enters it in the core at once, like any request that uses a session: its
     * cookie can reach the client long before the request ends (a response larger than the buffer, or
     * flushed), and the client's next requests, here or on another node, must find the session in use rather
     * than hand it over under this request, or not find it at all. Only a request running in this manager's
     * valve is entered, as only the valve exits it ({@link ReplicationValve}); a session created elsewhere (an
     * async thread, a cross-context dispatch) is first known to the core at its first replication, as before.
     */
    private void enterCreated(Session created) {
        Request request = requestInValve.get();
        SessionReplicator engine = running();
        if (request == null || engine == null || created == null || created.getIdInternal() == null) {
            return;
        }
        String clusterId = ReplicationNode.clusterId(created.getIdInternal());
        engine.enter(clusterId); // not replicated yet: OWNED, and counted
        Object earlier = request.getNote(CREATED_NOTE);
        request.setNote(CREATED_NOTE, clusterId);
        if (earlier instanceof String invalidated) {
            engine.exit(invalidated); // a second session of the same request: it ended the first one
        }
    }

    /**
     * The valve runs {@code request} on this thread (null: no longer); returns what ran before. Set to null
     * rather than removed: on a pooled thread the slot then stays, and each request only writes it (a remove
     * per request showed in profiles). The value is never a web application's class.
     */
    Request runInValve(Request request) {
        Request outer = requestInValve.get();
        requestInValve.set(request);
        return outer;
    }

    /**
     * The live session, whatever route suffix {@code id} carries; if none, the session taken over from the
     * cluster (this node becomes its primary; it is held here under this node's route). Null when no node
     * knows the id (or it was invalidated). Concurrent requests for one id share one take-over.
     */
    @Override
    public Session findSession(String id) throws IOException {
        if (id == null || LIVE_ONLY.get() == Boolean.TRUE) {
            return null;
        }
        Request request = requestInValve.get();
        if (request != null && id.equals(request.getRequestedSessionId())) {
            return findRequested(request, id);
        }
        Session live = sessions.get(id);
        ReplicationConfig running = config;
        ReplicationNode started = node;
        if (live != null || running == null || started == null || started.replicatorIfRunning() == null) {
            return live;
        }
        String clusterId = ReplicationNode.clusterId(id);
        String localId = ReplicationNode.withRoute(id, clusterId, running.nodeName());
        if (request == null) {
            // Tomcat tries a request's session cookies in turn before the valve sees the request: those tries
            // share the request's budget of cluster lookups, which the valve takes over (or which lapses)
            io.sessionrep.core.RequestLookups.openUntilClosed();
        }
        try {
            return started.takeOver(id, clusterId, () -> sessions.get(localId), restored -> adopt(restored, localId));
        } catch (OwnershipTimeoutException e) {
            throw e;
        } catch (RuntimeException e) {
            // as when a persistent store cannot load a session: the request goes on without it
            log.warn("Could not take over session " + LogIds.shortForm(clusterId) + " from the cluster", e);
            return null;
        }
    }

    /**
     * The session that {@code request}, running in the valve, asks for by the id it names: the first lookup
     * enters the request in the session's ownership ({@link #enterRequestedSession}: a session owned elsewhere is
     * handed over first), later ones find the live copy. A request that {@code ignored-paths} matches gets the
     * live copy held here, if any, and enters nothing.
     *
     * @throws OwnershipTimeoutException when the owner did not hand the session over within ownership-timeout
     *                                   (the request is noted, and the valve answers it 503)
     */
    private Session findRequested(Request request, String id) {
        if (request.getNote(IGNORED_NOTE) != null || request.getNote(LOOKED_UP_NOTE) != null) {
            return liveCopy(id);
        }
        if (applicationEntry != null && request.getNote(APPLICATION_NOTE) == null && !ownedHere(id)) {
            // Tomcat's authenticator reads the session before the application on every request whose user it does
            // not know yet, for the principal it caches there (its cache attribute, true by default). That
            // principal is not replicated: a session held elsewhere would bring none. So lookups before the
            // application find nothing rather than move the session; if Tomcat then creates a session for the
            // request (a login), createSession answers the requested session instead, which then takes part
            request.setNote(EARLY_NOTE, Boolean.TRUE);
            return null;
        }
        return lookUpRequested(request);
    }

    /** The first lookup of the requested session that takes part in its ownership (see {@link #findRequested}). */
    private Session lookUpRequested(Request request) {
        request.setNote(LOOKED_UP_NOTE, Boolean.TRUE);
        try {
            return enterRequestedSession(request);
        } catch (OwnershipTimeoutException e) {
            request.setNote(TIMED_OUT_NOTE, Boolean.TRUE);
            throw e;
        }
    }

    /** Whether this node holds the session {@code id} names live and owns it (nothing to hand over). */
    private boolean ownedHere(String id) {
        Session live = liveCopy(id);
        SessionReplicator engine = running();
        return live != null && engine != null
                && engine.probe(ReplicationNode.clusterId(id)) == io.sessionrep.core.SessionAccess.OWNED;
    }

    /** The live copy of the session {@code id} names, whatever its route suffix; null if none is held here. */
    private Session liveCopy(String id) {
        Session live = sessions.get(id);
        ReplicationConfig running = config;
        if (live != null || running == null) {
            return live;
        }
        return sessions.get(ReplicationNode.withRoute(id, ReplicationNode.clusterId(id), running.nodeName()));
    }

    /**
     * A valve ahead of this manager's (an authenticator configured in {@code context.xml} runs before it) has
     * already looked the requested session up, outside any request this manager knows of: Tomcat keeps that
     * session for the rest of the request, so no later lookup reaches {@link #findSession}. The request takes
     * part now, as its first lookup in the valve would have: entered, and the cookie given this node's route.
     *
     * @throws OwnershipTimeoutException when the owner did not hand the session over within ownership-timeout
     */
    void enterIfLookedUpAhead(Request request) {
        if (request.getRequestedSessionId() == null || request.getNote(IGNORED_NOTE) != null
                || request.getNote(LOOKED_UP_NOTE) != null) {
            return;
        }
        Session held;
        LIVE_ONLY.set(Boolean.TRUE); // only the session the request holds already: no lookup of its own
        try {
            held = request.getSessionInternal(false);
        } finally {
            LIVE_ONLY.set(Boolean.FALSE);
        }
        if (held != null) {
            lookUpRequested(request);
        }
    }

    /**
     * Notes whether {@code request} is one that {@code ignored-paths} matches (by its path inside the context, as
     * Tomcat mapped it): such a request takes no part in the ownership of the session it names. Only a request
     * that names a session is matched: without one there is no ownership to stay out of (a session it creates is
     * replicated whatever its path).
     */
    void noteIgnored(Request request) {
        ReplicationConfig running = config;
        if (running != null && running.ignoredPaths().any() && request.getRequestedSessionId() != null
                && running.ignoredPaths().matches(request.getRequestPathMB().toString())) {
            request.setNote(IGNORED_NOTE, Boolean.TRUE);
        }
    }

    /**
     * The shape of the ids this manager issues: {@code StandardSessionIdGenerator}'s upper-case hex of twice its
     * sessionIdLength in characters; any other generator's ids are only held to {@link SessionIdShape#ANY}.
     */
    private SessionIdShape idShape() {
        if (getSessionIdGenerator() instanceof org.apache.catalina.util.StandardSessionIdGenerator standard) {
            return SessionIdShape.exactly(2 * standard.getSessionIdLength(), SessionIdShape.UPPER_HEX);
        }
        return SessionIdShape.ANY;
    }

    /**
     * Opens the session lookups of {@code request} for the valve (see {@link io.sessionrep.core.RequestLookups}):
     * the ids its session cookies name, and those that Tomcat's tries of its cookies had the cluster asked about
     * already (lookups left by another request on this thread are dropped); null when it has no session cookie.
     */
    io.sessionrep.core.RequestLookups openLookups(Request request) {
        List<String> named = sessionCookies(request);
        io.sessionrep.core.RequestLookups parsing = io.sessionrep.core.RequestLookups.current();
        List<String> asked = List.of();
        if (parsing != null && parsing.lazy()) {
            asked = parsing.asked().stream().filter(id -> named.stream()
                    .anyMatch(value -> ReplicationNode.clusterId(value).equals(id))).toList();
            parsing.close();
        }
        if (named.isEmpty()) {
            return null; // no session cookie: at most the one id of the URL, nothing to limit
        }
        io.sessionrep.core.RequestLookups opened = io.sessionrep.core.RequestLookups.open(named);
        opened.alreadyAsked(asked);
        return opened;
    }

    /** The values of the request's session cookies, in the order sent. */
    private List<String> sessionCookies(Request request) {
        jakarta.servlet.http.Cookie[] cookies = request.getCookies();
        if (cookies == null) {
            return List.of();
        }
        String cookieName = org.apache.catalina.util.SessionConfig.getSessionCookieName(getContext());
        List<String> named = new ArrayList<>(2);
        for (jakarta.servlet.http.Cookie cookie : cookies) {
            if (cookieName.equals(cookie.getName())) {
                named.add(cookie.getValue());
            }
        }
        return named;
    }

    /** The live copy, under this node's route, of a session just brought here from the cluster. */
    private Session adopt(RestoredSession restored, String localId) {
        ReplicatedSession taken = (ReplicatedSession) createEmptySession();
        taken.restore(restored, localId);
        if (log.isDebugEnabled()) {
            log.debug("Session " + LogIds.shortForm(restored.id()) + " brought here from the cluster");
        }
        return taken;
    }

    /** Also retires the old id on every node (the session replicates under the new one at request end). */
    @Override
    protected void changeSessionId(Session session, String newId, boolean notifySessionListeners,
                                   boolean notifyContainerListeners) {
        String oldId = session.getIdInternal();
        super.changeSessionId(session, newId, notifySessionListeners, notifyContainerListeners);
        SessionReplicator engine = running();
        if (engine != null && oldId != null && !ReplicationNode.clusterId(oldId).equals(ReplicationNode.clusterId(newId))) {
            engine.invalidate(ReplicationNode.clusterId(oldId));
        }
    }

    /** The session is being invalidated or expired here: remove every copy in the cluster. */
    void invalidateInCluster(ReplicatedSession session) {
        SessionReplicator engine = running();
        if (engine != null && session.getIdInternal() != null) {
            engine.invalidate(session.clusterId());
        }
    }

    /** Where the core reports what other nodes did to this manager's sessions (tests deliver reports late). */
    public SessionEvents sessionEvents() {
        return events;
    }

    /** Another node took the session over or invalidated it: drop the live copy here, silently. */
    private void evict(String clusterId, boolean invalidated) {
        ReplicationConfig running = config;
        if (running == null) {
            return;
        }
        Session session = sessions.get(ReplicationNode.withRoute(clusterId, running.nodeName()));
        SessionReplicator engine = running();
        if (!invalidated && engine != null && !engine.hasMovedAway(clusterId)) {
            return; // a late report: a request here brought the session back, and this copy is the new one
        }
        if (session instanceof ReplicatedSession replicated) {
            drop(replicated, invalidated);
            if (log.isDebugEnabled()) {
                log.debug("Session " + LogIds.shortForm(clusterId) + (invalidated ? " invalidated on another node" : " taken over by"
                        + " another node") + ": live copy dropped");
            }
        }
    }

    /** Drops this live copy (and only this one: another request may have put a newer one under the id). */
    private void drop(ReplicatedSession copy, boolean invalidated) {
        copy.evict(invalidated);
        sessions.remove(copy.getIdInternal(), copy);
    }

    // ------------------------------------------------------------------ called by the valve

    /**
     * When a request first looks up the session it names (the application's first {@code getSession}, or Tomcat's
     * authenticator): makes this node the session's owner with its newest state, the request entered in it
     * (noted: the valve exits it after the request's replication). Held live and owned here: one map lookup.
     * Owned by another live node: the live copy here (if any) is dropped and the session handed over first; a
     * session whose owner died is taken over from its newest copy. A session id with another node's route gets
     * a new cookie with this node's route, as Tomcat's {@code JvmRouteBinderValve} does (unless the response is
     * committed by then: the client keeps the old route, which names the same session).
     *
     * @return the live session the request now uses, or null
     * @throws OwnershipTimeoutException when the owner did not hand it over within ownership-timeout
     */
    private Session enterRequestedSession(Request request) {
        String requested = request.getRequestedSessionId();
        ReplicationConfig running = config;
        ReplicationNode started = node;
        SessionReplicator engine = started == null ? null : started.replicatorIfRunning();
        if (requested == null || running == null || engine == null) {
            return null;
        }
        String clusterId = ReplicationNode.clusterId(requested);
        String localId = ReplicationNode.withRoute(requested, clusterId, running.nodeName());
        Session live;
        try {
            // concurrent requests of this node for a session it does not hold live bring it here once
            live = started.acquire(requested, clusterId, () -> enterLive(engine, clusterId, localId),
                    restored -> adopt(restored, localId));
        } catch (OwnershipTimeoutException e) {
            throw e;
        } catch (RuntimeException e) {
            // as when a persistent store cannot load a session: the request goes on without it
            log.warn("Could not take over session " + LogIds.shortForm(clusterId) + " from the cluster", e);
            return null;
        }
        if (live == null) {
            return null; // no node knows the id: the request goes on without it
        }
        request.setNote(ENTERED_NOTE, clusterId);
        if (!requested.equals(live.getIdInternal())) {
            try {
                request.changeSessionId(live.getIdInternal());
            } catch (RuntimeException e) {
                log.warn("Could not rewrite the session cookie of " + request.getRequestURI(), e);
            }
        }
        return live;
    }

    /**
     * The live session if this node owns it (then entered in the core); a live copy that another node owns
     * now is dropped, and null returned so that the session is acquired.
     */
    private Session enterLive(SessionReplicator engine, String clusterId, String localId) {
        Session live = sessions.get(localId);
        if (live == null) {
            return null;
        }
        SessionAccess access = engine.enter(clusterId);
        if (access == SessionAccess.OWNED) {
            return live;
        }
        if (access == SessionAccess.MOVED && live instanceof ReplicatedSession stale) {
            // another node owns it now: drop this stale copy, then acquire the session. Only this copy: by
            // the time this runs another request here may have brought the session back as a new one
            drop(stale, false);
        }
        // PROMISED: other requests here still use the live copy; the hand-over drops it once they ended
        return null;
    }

    /** The request that entered {@code clusterId} is over (after its replication). */
    void exitSession(String clusterId) {
        SessionReplicator engine = running();
        if (engine != null && clusterId != null) {
            engine.exit(clusterId);
        }
    }

    /**
     * The request is over (or its async cycle completed): replicate the session it used, once. A request that
     * never used a session replicates nothing; one that {@code ignored-paths} matches replicates nothing either,
     * unless it created the session (its access is consumed, so that Tomcat's end of the access does not
     * replicate it instead).
     */
    void requestCompleted(Request request) {
        Session session;
        LIVE_ONLY.set(Boolean.TRUE);
        try {
            session = request.getSessionInternal(false); // the session the request holds: no lookup by id
        } finally {
            LIVE_ONLY.set(Boolean.FALSE);
        }
        if (!(session instanceof ReplicatedSession replicated) || replicated.getManager() != this
                || !replicated.consumeAccess()) {
            return;
        }
        if (request.getNote(IGNORED_NOTE) == null || request.getNote(CREATED_NOTE) != null) {
            recordPrincipal(request, replicated);
            requestEnd(replicated);
        }
    }

    /**
     * Records the request's authenticated principal (else the session's own, which Tomcat's authenticators cache)
     * in the session ({@link SessionPrincipals}) when it is not the recorded one: a string comparison, no allocation,
     * on a request that does not change it.
     */
    private static void recordPrincipal(Request request, ReplicatedSession session) {
        java.security.Principal principal = request.getUserPrincipal();
        if (principal == null) {
            principal = session.getPrincipal();
        }
        if (principal == null) {
            return;
        }
        String name = principal.getName();
        if (SessionPrincipals.changes(name, session.snapshot().attribute(SessionPrincipals.ATTRIBUTE))) {
            try {
                session.setAttribute(SessionPrincipals.ATTRIBUTE, name);
            } catch (IllegalStateException e) {
                // invalidated by the request: nothing to record
            }
        }
    }

    /**
     * An access that no valve of this manager saw ended (a cross-context dispatch, Tomcat's
     * {@code Session.Accessor}): replicated like a request that entered the session, between enter and
     * exit, so that no hand-over can take the session away halfway. Nothing is replicated when the session
     * is moving (requests here that still use it replicate the changes when they end) or has moved.
     */
    void unvalvedAccessEnded(ReplicatedSession session) {
        SessionReplicator engine = running();
        if (engine == null || session.getIdInternal() == null) {
            return;
        }
        String clusterId = session.clusterId();
        if (engine.enter(clusterId) != SessionAccess.OWNED) {
            return;
        }
        try {
            if (!session.isDisowned()) {
                requestEnd(session);
            }
        } finally {
            engine.exit(clusterId);
        }
    }

    /**
     * Hands what the request(s) changed to the core. A request that changed nothing sends no attribute data;
     * the core sends its backups the new access time in a batched touch, so that they expire the session and
     * a take-over resumes it with an accurate idle time.
     */
    void requestEnd(ReplicatedSession session) {
        SessionReplicator engine = running();
        if (engine == null) {
            return;
        }
        engine.requestEnd(session.snapshot(), session.changes());
    }

    /** The attributes as configured (tests). */
    ManagerAttributes attributes() {
        return attributes;
    }
}
