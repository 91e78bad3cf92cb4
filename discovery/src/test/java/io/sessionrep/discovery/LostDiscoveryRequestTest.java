package io.sessionrep.discovery;

import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;
import org.jgroups.Event;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.protocols.PingHeader;
import org.jgroups.stack.IpAddress;
import org.jgroups.stack.Protocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A node whose first discovery request is lost (as when a peer closes its connection, see
 * {@link JGroupsStacks}) still joins the running cluster instead of founding one of its own: two real
 * channels on 127.0.0.1 with the generated static stack, the joiner's first request dropped below
 * discovery.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LostDiscoveryRequestTest {

    @Test
    void aJoinerWhoseFirstDiscoveryRequestIsLostStillJoinsTheCluster() throws Exception {
        String cluster = "lost-discovery-" + System.nanoTime();
        try (JChannel running = new JChannel(JGroupsStacks.build(config("running", List.of())))) {
            running.connect(cluster);
            IpAddress address = (IpAddress) running.down(new Event(Event.GET_PHYSICAL_ADDRESS, running.getAddress()));

            List<Protocol> stack = JGroupsStacks.build(config("joiner",
                    List.of(new HostPort("127.0.0.1", address.getPort()))));
            DropFirstDiscoveryRequest drop = new DropFirstDiscoveryRequest(stack.get(1).getId());
            stack.add(1, drop); // between the transport and discovery
            try (JChannel joiner = new JChannel(stack)) {
                joiner.connect(cluster);

                assertEquals(1, drop.dropped.get(), "the joiner's first discovery request was dropped");
                assertEquals(2, joiner.getView().size(), "joined the running node: " + joiner.getView());
                assertEquals(running.getAddress(), joiner.getView().getCoord());
            }
        }
    }

    private static ReplicationConfig config(String name, List<HostPort> peers) {
        return ReplicationConfig.builder().nodeName(name).discovery(DiscoveryMode.STATIC)
                .bindAddress("127.0.0.1").peers(peers).build();
    }

    /** Drops the first discovery request that goes down through it; lets everything else pass. */
    private static final class DropFirstDiscoveryRequest extends Protocol {
        private final short discoveryId;
        final AtomicInteger dropped = new AtomicInteger();

        DropFirstDiscoveryRequest(short discoveryId) {
            this.discoveryId = discoveryId;
        }

        @Override
        public Object down(Message msg) {
            if (msg.getHeader(discoveryId) instanceof PingHeader header && header.type() == PingHeader.GET_MBRS_REQ
                    && dropped.compareAndSet(0, 1)) {
                return null;
            }
            return down_prot.down(msg);
        }
    }
}
