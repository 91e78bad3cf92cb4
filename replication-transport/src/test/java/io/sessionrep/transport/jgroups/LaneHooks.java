package io.sessionrep.transport.jgroups;

import io.sessionrep.core.transport.Member;
import io.sessionrep.transport.jgroups.lane.DataLane;
import org.jgroups.Address;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;

/** What the data lane's tests (package {@code lane}) reach of a {@link JGroupsTransport} beyond its public face. */
public final class LaneHooks {

    /** How long a batch over the lane waits for its answer before it goes over the channel. */
    public static final Duration ONE_WAYS_TIMEOUT = JGroupsTransport.ONE_WAYS_TIMEOUT;

    private LaneHooks() {
    }

    /** The transport's lane; null without one. */
    public static DataLane lane(JGroupsTransport transport) {
        return transport.lane();
    }

    /** The transport's channel address. */
    public static Address address(JGroupsTransport transport) {
        return transport.channel().getAddress();
    }

    /** {@code requestOverLane}: null when there is no lane to {@code target}; throws when it failed after the write. */
    public static byte[] requestOverLane(JGroupsTransport transport, Member target, byte[] message, Duration timeout)
            throws TimeoutException {
        return transport.requestOverLane(target, message, timeout, null);
    }

    /** As above, given up soon after {@code noLongerNeeded} completes. */
    public static byte[] requestOverLane(JGroupsTransport transport, Member target, byte[] message, Duration timeout,
                                         CompletionStage<?> noLongerNeeded) throws TimeoutException {
        return transport.requestOverLane(target, message, timeout, noLongerNeeded);
    }

    public static int laneRoom(JGroupsTransport transport) {
        return transport.laneRoom();
    }

    public static int laneConnectionsAccepted(JGroupsTransport transport) {
        return transport.laneConnectionsAccepted();
    }
}
