package io.sessionrep.core.transport;

import java.util.List;

/**
 * What a {@link ReplicationTransport} delivers to the core.
 *
 * <p>Messages from one sender arrive in the order that sender sent them (one-way messages and requests
 * alike). Calls may come from several transport threads at once (different senders); implementations
 * must be thread-safe and must not block on the network.
 */
public interface MessageReceiver {

    /**
     * One message from another member.
     *
     * @return the reply when the message came through {@link ReplicationTransport#request}, ignored for
     *         one-way messages; {@code null} means "no reply" and fails the requester's future
     */
    byte[] onMessage(Member sender, byte[] message);

    /** The membership changed; {@code members} is the complete new view, this node included. */
    void onMembershipChange(List<Member> members);
}
