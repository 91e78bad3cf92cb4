package io.sessionrep.discovery;

import io.sessionrep.core.config.DiscoveryMode;
import io.sessionrep.core.config.HostPort;
import io.sessionrep.core.config.ReplicationConfig;
import org.jgroups.Event;
import org.jgroups.JChannel;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.TCPPING;
import org.jgroups.stack.IpAddress;
import org.jgroups.stack.Protocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * discovery=static where a node joins through a member that is not the coordinator, as in a ring where each
 * node lists one peer: four real channels on 127.0.0.1 with the generated stack. The newcomer lists only
 * the second member; the coordinator and the third member never heard from it before the JOIN, and the
 * third member watches its failure-detection port (the next in the view). Without the introduction the
 * third member could not reach that port and suspected the newcomer at once, the coordinator could not ask
 * it "are you dead?" and excluded it about a second after it joined (what {@code StaticRingIT} showed for a
 * node restarted after kill -9).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NewcomerIntroductionTest {

    private final List<JChannel> channels = new ArrayList<>();

    @AfterEach
    void close() {
        for (int i = channels.size() - 1; i >= 0; i--) {
            channels.get(i).close();
        }
    }

    @Test
    void everyMemberCanReachANodeThatJoinedThroughAnotherMemberAndItStaysInTheView() throws Exception {
        String cluster = "introduction-" + System.nanoTime();
        JChannel coordinator = start("coordinator", List.of(), cluster);
        JChannel second = start("second", List.of(coordinator), cluster);
        JChannel third = start("third", List.of(coordinator), cluster);
        assertEquals(3, coordinator.getView().size(), coordinator.getView().toString());

        // one discovery request, so that only the introduction can spread its address (the later requests of
        // num_discovery_runs also reach every member the first answer named)
        JChannel newcomer = start("newcomer", List.of(second), cluster, 1);
        assertEquals(4, newcomer.getView().size(), newcomer.getView().toString());
        for (JChannel member : List.of(coordinator, third)) {
            assertNotNull(member.down(new Event(Event.GET_PHYSICAL_ADDRESS, newcomer.getAddress())),
                    member.getName() + " knows where the newcomer listens");
        }

        // failure detection suspects within a second and the verification takes one more: wait past both
        Thread.sleep(4_000);
        for (JChannel member : channels) {
            assertTrue(member.getView().containsMember(newcomer.getAddress()),
                    member.getName() + " still has the newcomer in its view: " + member.getView());
        }
        IntroducingTcpping introducer = (IntroducingTcpping) second.getProtocolStack().findProtocol(TCPPING.class);
        assertTrue(introducer.introduced() >= 1, "the member the newcomer asked introduced it");
        assertEquals(ClassConfigurator.getProtocolId(TCPPING.class), introducer.getId(), "TCPPING's id on the wire");
    }

    private JChannel start(String name, List<JChannel> peers, String cluster) throws Exception {
        return start(name, peers, cluster, JGroupsStacks.DISCOVERY_RUNS);
    }

    private JChannel start(String name, List<JChannel> peers, String cluster, int discoveryRuns) throws Exception {
        List<HostPort> hosts = new ArrayList<>();
        for (JChannel peer : peers) {
            IpAddress address = (IpAddress) peer.down(new Event(Event.GET_PHYSICAL_ADDRESS, peer.getAddress()));
            hosts.add(new HostPort("127.0.0.1", address.getPort()));
        }
        ReplicationConfig config = ReplicationConfig.builder().nodeName(name).discovery(DiscoveryMode.STATIC)
                .bindAddress("127.0.0.1").peers(hosts).build();
        List<Protocol> stack = JGroupsStacks.build(config);
        ((TCPPING) stack.get(1)).numDiscoveryRuns(discoveryRuns);
        JChannel channel = new JChannel(stack).name(name);
        channels.add(channel);
        channel.connect(cluster);
        return channel;
    }
}
