package io.sessionrep.core.transport;

/**
 * A request's target is not, or no longer, a member of the cluster: it was not sent, or its reply will never come.
 * The caller can tell this from other failures (the target refused or failed to handle it, the transport is
 * closing), e.g. to send the update to whoever holds the departed member's share in the next view.
 */
public class MemberLeftException extends TransportException {
    public MemberLeftException(String message) {
        super(message);
    }
}
