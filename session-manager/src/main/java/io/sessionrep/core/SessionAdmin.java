package io.sessionrep.core;

import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.MalformedMessageException;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.ProtocolRange;
import io.sessionrep.core.wire.WireCodec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The operator's view of the sessions of the whole cluster, from any node: count and list them, find the sessions of
 * a principal, invalidate one session or all of a principal's. Container-neutral; each integration makes one with its
 * {@link LiveSessions} ({@link SessionReplicator#admin}) and exports it over JMX
 * ({@link io.sessionrep.core.admin.SessionAdminView}).
 *
 * <p>Cluster-wide: this node asks every other member ({@link Message.AdminQuery}, wire protocol 4, over the
 * transport's request path) and answers itself from what it holds ({@link LocalSessionIndex}); each member answers
 * for the sessions it owns. A member of an older release (whose cluster address states no protocol 4) is not asked,
 * and one that does not answer within {@link #ANSWER_TIMEOUT} is left out: {@link ClusterAnswer} names both.
 * Listings are newest access first and bounded ({@link Message.AdminQuery#MAX_ROWS}); rows carry the short form of
 * ids only ({@link LogIds}).
 *
 * <p>An invalidation takes the path every invalidation takes ({@link SessionReplicator#invalidate}: a tombstone here,
 * then every member drops its copies, tombstones the id, and its container drops a live copy), so an invalidated
 * session never comes back: a session the container holds live on this node is invalidated through the container
 * ({@link LiveSessions#invalidate}, its listeners run), any other one through the core.
 */
public final class SessionAdmin {
    private static final System.Logger LOG = System.getLogger(SessionAdmin.class.getName());
    /** How long this node waits for the members' answers (all asked at once). */
    public static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(3);

    private final NodeState node;
    private final LocalSessionIndex local;
    private final SessionReplicator replicator;
    private final LiveSessions live;

    SessionAdmin(NodeState node, LocalSessionIndex local, SessionReplicator replicator, LiveSessions live) {
        this.node = node;
        this.local = local;
        this.replicator = replicator;
        this.live = live;
    }

    /** How many sessions the members own (copies of a departed owner's sessions included). */
    public ClusterAnswer<Integer> count() {
        Answers answers = ask(new Message.AdminQuery(Message.AdminKind.COUNT, "", 0, 0));
        return answers.result(answers.total());
    }

    /**
     * The sessions of the cluster, newest access first, from the {@code offset}-th on, at most {@code limit}
     * ({@code offset + limit} at most {@link Message.AdminQuery#MAX_ROWS}).
     */
    public ClusterAnswer<List<SessionRow>> list(int offset, int limit) {
        checkWindow(offset, limit);
        Answers answers = ask(new Message.AdminQuery(Message.AdminKind.LIST, "", 0, offset + limit));
        return answers.result(answers.rows(offset, limit));
    }

    /** The sessions of the principal {@code name}, newest access first, at most {@code limit}. */
    public ClusterAnswer<List<SessionRow>> sessionsOf(String name, int limit) {
        checkWindow(0, limit);
        Answers answers = ask(new Message.AdminQuery(Message.AdminKind.PRINCIPAL, checkName(name), 0, limit));
        return answers.result(answers.rows(0, limit));
    }

    /**
     * Invalidates the session named by its short form ({@code #1a2b3c4d}, as listed) or its whole id (with or without
     * route suffix), everywhere in the cluster.
     *
     * @return how many sessions were invalidated: for a short form 0 (no member holds it) or 1, with the members
     *         asked to resolve it; for a whole id always 1 (sent to every member without asking first, whether one
     *         held it or not)
     * @throws IllegalArgumentException a short form that names more than one session (give the whole id)
     */
    public ClusterAnswer<Integer> invalidate(String session) {
        if (session == null || session.isBlank()) {
            throw new IllegalArgumentException("no session named");
        }
        String named = session.strip();
        if (!named.startsWith("#")) {
            String clusterId = ReplicationNode.clusterId(named);
            invalidateEverywhere(clusterId); // no look-up first: every member drops what it holds of the id
            LOG.log(System.Logger.Level.INFO, "operator invalidated session " + LogIds.shortForm(clusterId)
                    + " in the cluster");
            return new ClusterAnswer<>(1, List.of(node.self.name()), Map.of());
        }
        Answers answers = ask(new Message.AdminQuery(Message.AdminKind.RESOLVE_SHORT_ID, named, 0, 2));
        Set<String> ids = answers.wholeIds();
        if (ids.size() > 1) {
            throw new IllegalArgumentException(named + " names " + ids.size() + " sessions: give the whole id");
        }
        for (String id : ids) {
            invalidateEverywhere(id);
        }
        LOG.log(System.Logger.Level.INFO, "operator invalidated session " + named + (ids.isEmpty() ? ": no member"
                + " holds it" : "") + " (" + answers.coverage() + ")");
        return answers.result(ids.size());
    }

    /** Invalidates every session of the principal {@code name}, everywhere in the cluster; how many. */
    public ClusterAnswer<Integer> invalidateSessionsOf(String name) {
        ClusterAnswer<List<PrincipalSession>> found = sessionsOfPrincipal(name);
        for (PrincipalSession session : found.result()) {
            invalidateEverywhere(ReplicationNode.clusterId(session.sessionId()));
        }
        LOG.log(System.Logger.Level.INFO, "operator invalidated the " + found.result().size() + " session(s) of a"
                + " principal (" + found.coverage() + ")");
        return new ClusterAnswer<>(found.result().size(), found.answered(), found.notAnswered());
    }

    /**
     * The sessions of the principal {@code name} in the whole cluster, each by its whole id with its owner's route
     * ({@code <id>.<owner>}: what the container's {@code HttpSession.getId()} answers on that node) and its last
     * access, oldest first: for an integration's own bookkeeping (Spring Security's session registry), never to
     * be shown or logged. A session whose owner left (not taken over yet) is named without a route.
     */
    public ClusterAnswer<List<PrincipalSession>> sessionsOfPrincipal(String name) {
        Answers answers = ask(new Message.AdminQuery(Message.AdminKind.RESOLVE_PRINCIPAL, checkName(name), 0,
                Message.AdminQuery.MAX_ROWS));
        Map<String, PrincipalSession> byId = new LinkedHashMap<>();
        for (Message.AdminReply reply : answers.replies) {
            for (Message.AdminRow r : reply.rows()) {
                String id = r.owner().isEmpty() ? r.session() : r.session() + "." + r.owner();
                byId.merge(r.session(), new PrincipalSession(id, r.lastAccessedTime()),
                        (a, b) -> a.lastAccessedTime() >= b.lastAccessedTime() ? a : b);
            }
        }
        List<PrincipalSession> sessions = new ArrayList<>(byId.values());
        sessions.sort(Comparator.comparingLong(PrincipalSession::lastAccessedTime));
        return answers.result(List.copyOf(sessions));
    }

    /**
     * One session of a principal, as {@link #sessionsOfPrincipal} finds it.
     *
     * @param sessionId        the whole id with its owner's route (never shown or logged)
     * @param lastAccessedTime when a request last used it (epoch milliseconds)
     */
    public record PrincipalSession(String sessionId, long lastAccessedTime) {
        @Override
        public String toString() {
            return LogIds.shortForm(ReplicationNode.clusterId(sessionId)) + " last-access=" + lastAccessedTime;
        }
    }

    /**
     * Sets ({@code name} non-null) or clears the principal of a session this node's container holds live, named by
     * its whole id; false when it holds no such session.
     */
    public boolean setPrincipal(String sessionId, String name) {
        return live.setPrincipal(ReplicationNode.clusterId(sessionId), name);
    }

    /**
     * The value of attribute {@code name} of a session this node owns and its container holds live, named by its
     * short form or whole id; null when there is none.
     */
    public Object attribute(String session, String name) {
        String id = localId(session);
        return id == null ? null : live.attribute(id, name);
    }

    /** The short forms of the sessions this node owns, newest access first, at most {@code limit}. */
    public List<String> localShortIds(int limit) {
        checkWindow(0, limit);
        Message.AdminReply reply = local.answer(new Message.AdminQuery(Message.AdminKind.LIST, "", 0, limit));
        return reply.rows().stream().map(Message.AdminRow::session).toList();
    }

    /** How many sessions this node owns. */
    public int localCount() {
        return local.answer(new Message.AdminQuery(Message.AdminKind.COUNT, "", 0, 0)).total();
    }

    /**
     * The whole id of a session this node owns, named by its short form or whole id; null when it owns none such
     * (for an integration's own look-ups, never shown).
     */
    public String localId(String session) {
        if (session == null || session.isBlank()) {
            return null;
        }
        String named = session.strip();
        if (!named.startsWith("#")) {
            String clusterId = ReplicationNode.clusterId(named);
            return node.primaries.containsKey(clusterId) ? clusterId : null;
        }
        Message.AdminReply reply = local.answer(new Message.AdminQuery(Message.AdminKind.RESOLVE_SHORT_ID, named, 0, 2));
        return reply == null || reply.rows().size() != 1 ? null : reply.rows().get(0).session();
    }

    private void invalidateEverywhere(String clusterId) {
        if (!live.invalidate(clusterId)) {
            replicator.invalidate(clusterId);
        }
    }

    private static void checkWindow(int offset, int limit) {
        if (offset < 0 || limit < 0 || (long) offset + limit > Message.AdminQuery.MAX_ROWS) {
            throw new IllegalArgumentException("offset " + offset + " and limit " + limit + ": both at least 0, their"
                    + " sum at most " + Message.AdminQuery.MAX_ROWS);
        }
    }

    private static String checkName(String name) {
        if (name == null || name.isEmpty() || name.length() > LocalSessionIndex.MAX_NAME) {
            throw new IllegalArgumentException("a principal name of 1 to " + LocalSessionIndex.MAX_NAME + " characters");
        }
        return name;
    }

    // ------------------------------------------------------------------ asking the members

    /** Asks every other member that reads protocol 4 at once, answers itself meanwhile, waits for them. */
    private Answers ask(Message.AdminQuery query) {
        Map<String, CompletableFuture<byte[]>> asked = new LinkedHashMap<>();
        Answers answers = new Answers();
        int ours = Math.min(WireCodec.CURRENT, node.wire.ours().newest());
        byte[] encoded = ours >= WireCodec.ADMIN_SINCE ? WireCodec.encode(query, WireCodec.ADMIN_SINCE) : null;
        for (Member member : node.others()) {
            ProtocolRange theirs = node.transport.protocolsOf(member);
            if (encoded == null || theirs.newest() < WireCodec.ADMIN_SINCE) {
                answers.notAnswered.put(member.name(), "reads wire protocols " + theirs + ", without operator queries"
                        + " (an older release)");
            } else {
                asked.put(member.name(), node.transport.request(member, encoded, ANSWER_TIMEOUT));
            }
        }
        Message.AdminReply mine = local.answer(query);
        if (mine == null) {
            throw new IllegalArgumentException("not a query: " + query.kind() + " '" + query.argument() + "'");
        }
        answers.add(node.self.name(), mine);
        long deadline = System.nanoTime() + ANSWER_TIMEOUT.toNanos() + 500_000_000L;
        for (Map.Entry<String, CompletableFuture<byte[]>> e : asked.entrySet()) {
            answers.add(e.getKey(), e.getValue(), deadline);
        }
        return answers;
    }

    /** The answers collected so far. */
    private static final class Answers {
        final List<String> answered = new ArrayList<>();
        final Map<String, String> notAnswered = new LinkedHashMap<>();
        final List<Message.AdminReply> replies = new ArrayList<>();

        void add(String member, Message.AdminReply reply) {
            answered.add(member);
            replies.add(reply);
        }

        void add(String member, CompletableFuture<byte[]> reply, long deadline) {
            try {
                byte[] bytes = reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (bytes != null && WireCodec.decode(bytes) instanceof Message.AdminReply answer) {
                    add(member, answer);
                } else {
                    notAnswered.put(member, "answered something else");
                }
            } catch (TimeoutException e) {
                reply.cancel(false);
                notAnswered.put(member, "no answer within " + ANSWER_TIMEOUT.toMillis() + " ms");
            } catch (ExecutionException e) {
                notAnswered.put(member, "no answer: " + e.getCause());
            } catch (MalformedMessageException e) {
                notAnswered.put(member, "malformed answer: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                notAnswered.put(member, "interrupted while waiting for its answer");
            }
        }

        int total() {
            return replies.stream().mapToInt(Message.AdminReply::total).sum();
        }

        /**
         * The rows of every answer, newest access first, {@code limit} from {@code offset}. A session whose owner
         * left is listed by each member holding a copy of it: once, its holders as its backups.
         */
        List<SessionRow> rows(int offset, int limit) {
            Map<String, SessionRow> orphans = new LinkedHashMap<>();
            List<SessionRow> all = new ArrayList<>();
            for (Message.AdminReply reply : replies) {
                for (Message.AdminRow r : reply.rows()) {
                    SessionRow row = new SessionRow(r.session(), r.owner(), r.backups(), r.sizeBytes(),
                            r.lastAccessedTime(), r.principal().isEmpty() ? null : r.principal());
                    if (!r.owner().isEmpty()) {
                        all.add(row);
                    } else {
                        orphans.merge(r.session(), row, (a, b) -> {
                            List<String> holders = new ArrayList<>(a.backups());
                            holders.addAll(b.backups());
                            return new SessionRow(a.shortId(), "", holders, a.sizeBytes(),
                                    Math.max(a.lastAccessedTime(), b.lastAccessedTime()), a.principal());
                        });
                    }
                }
            }
            all.addAll(orphans.values());
            all.sort(Comparator.comparingLong(SessionRow::lastAccessedTime).reversed());
            return List.copyOf(all.subList(Math.min(offset, all.size()), Math.min(offset + limit, all.size())));
        }

        /** The whole ids of a RESOLVE query's answers. */
        Set<String> wholeIds() {
            Set<String> ids = new HashSet<>();
            for (Message.AdminReply reply : replies) {
                for (Message.AdminRow r : reply.rows()) {
                    ids.add(r.session());
                }
            }
            return ids;
        }

        String coverage() {
            return new ClusterAnswer<>(null, answered, notAnswered).coverage();
        }

        <T> ClusterAnswer<T> result(T value) {
            return new ClusterAnswer<>(value, List.copyOf(answered), Map.copyOf(notAnswered));
        }
    }
}
