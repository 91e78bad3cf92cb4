package io.sessionrep.boot;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/sessionrep}: this node's view of the cluster ({@link NodeReport}: members, sessions owned and
 * backed up, sessions below quota, readiness). Expose it with
 * {@code management.endpoints.web.exposure.include=health,sessionrep}.
 *
 * <p>Only this node's view: cluster-wide operations (listing every session, by principal) belong to a
 * cluster-wide administration API of the core; they would be further operations of this endpoint
 * (selectors such as {@code /actuator/sessionrep/sessions}), which is why it is not final.
 */
@Endpoint(id = "sessionrep")
public class SessionrepEndpoint {

    private final LocalNode node;

    public SessionrepEndpoint(LocalNode node) {
        this.node = node;
    }

    @ReadOperation
    public NodeReport node() {
        return NodeReport.of(node);
    }

    /** The node this endpoint reports on. */
    protected LocalNode localNode() {
        return node;
    }
}
