package io.sessionrep.boot;

import io.sessionrep.core.ClusterAnswer;
import io.sessionrep.core.SessionAdmin;
import io.sessionrep.core.SessionRow;
import io.sessionrep.core.wire.Message;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * {@code /actuator/sessionrep}: this node's view of the cluster ({@link NodeReport}: members, sessions owned and
 * backed up, sessions below quota, readiness), and the operator's cluster-wide session operations
 * ({@link SessionAdmin}), from any node:
 * <ul>
 *   <li>{@code GET /actuator/sessionrep/sessions?offset=0&limit=100}: the cluster's sessions, newest access first
 *       ({@code offset + limit} at most 1,000; a limit of 100 when not given);</li>
 *   <li>{@code GET /actuator/sessionrep/principals/{name}}: the sessions of a user in the whole cluster;</li>
 *   <li>{@code DELETE /actuator/sessionrep/sessions/{id}}: invalidates one session everywhere, named by its short
 *       id as listed ({@code #1a2b3c4d}, the {@code #} written {@code %23} or left out);</li>
 *   <li>{@code DELETE /actuator/sessionrep/principals/{name}}: invalidates every session of a user everywhere.</li>
 * </ul>
 * Each answers what the members answered ({@link ClusterAnswer}: the result, the members that answered, those that
 * did not and why); a listing never holds a whole session id. An unknown collection or a malformed argument answers
 * 400; while the node is not running, a read answers 404 and an invalidation 400.
 *
 * <p>Boot's exposure rules apply: nothing is exposed over HTTP until
 * {@code management.endpoints.web.exposure.include} names {@code sessionrep}, and the endpoint's default access is
 * read-only: the invalidations need {@code management.endpoint.sessionrep.access=unrestricted}. Guard the path as
 * any administrative endpoint (Spring Security: an operator role).
 */
@Endpoint(id = "sessionrep", defaultAccess = Access.READ_ONLY)
public class SessionrepEndpoint {
    /** The rows a listing answers when no limit is given. */
    static final int DEFAULT_LIMIT = 100;
    private static final String SESSIONS = "sessions";
    private static final String PRINCIPALS = "principals";
    private static final Pattern BARE_SHORT_ID = Pattern.compile("[0-9a-f]{8}");

    private final LocalNode node;

    public SessionrepEndpoint(LocalNode node) {
        this.node = node;
    }

    @ReadOperation
    public NodeReport node() {
        return NodeReport.of(node);
    }

    /** {@code GET sessions?offset=&limit=}: the cluster's sessions, newest access first. */
    @ReadOperation
    public @Nullable ClusterAnswer<List<SessionRow>> sessions(@Selector String collection, @Nullable Integer offset,
                                                              @Nullable Integer limit) {
        expect(collection, SESSIONS);
        return ask(admin -> admin.list(offset == null ? 0 : offset,
                limit == null ? Math.min(DEFAULT_LIMIT, Message.AdminQuery.MAX_ROWS - (offset == null ? 0 : offset))
                        : limit));
    }

    /** {@code GET principals/{name}}: the sessions of the user {@code name} in the whole cluster. */
    @ReadOperation
    public @Nullable ClusterAnswer<List<SessionRow>> sessionsOf(@Selector String collection, @Selector String name) {
        expect(collection, PRINCIPALS);
        return ask(admin -> admin.sessionsOf(name, Message.AdminQuery.MAX_ROWS));
    }

    /**
     * {@code DELETE sessions/{id}}: invalidates that session everywhere; {@code DELETE principals/{name}}: every
     * session of that user. How many.
     */
    @DeleteOperation
    public ClusterAnswer<Integer> invalidate(@Selector String collection, @Selector String name) {
        ClusterAnswer<Integer> done;
        if (SESSIONS.equals(collection)) {
            String session = BARE_SHORT_ID.matcher(name).matches() ? "#" + name : name;
            done = ask(admin -> admin.invalidate(session));
        } else {
            expect(collection, PRINCIPALS);
            done = ask(admin -> admin.invalidateSessionsOf(name));
        }
        if (done == null) {
            throw new InvalidEndpointRequestException("session replication is not running on this node", "not running");
        }
        return done;
    }

    /** The node this endpoint reports on. */
    protected LocalNode localNode() {
        return node;
    }

    private <T> @Nullable ClusterAnswer<T> ask(Function<SessionAdmin, ClusterAnswer<T>> operation) {
        Optional<SessionAdmin> admin = node.admin();
        if (admin.isEmpty()) {
            return null; // not running
        }
        try {
            return operation.apply(admin.get());
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
        }
    }

    private static void expect(String collection, String expected) {
        if (!expected.equals(collection)) {
            throw new InvalidEndpointRequestException("no collection '" + collection + "': sessions or principals",
                    "unknown collection");
        }
    }
}
