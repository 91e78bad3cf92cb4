package io.sessionrep.discovery;

import org.jgroups.Address;
import org.jgroups.PhysicalAddress;
import org.jgroups.View;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.PingData;
import org.jgroups.protocols.TCPPING;
import org.jgroups.util.Responses;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * TCPPING that passes on what it knows, in two cases, with JGroups' own discovery answers (nothing else changes
 * on the wire: it takes TCPPING's protocol id):
 * <ol>
 *   <li>a member introduces a node asking to join to every member: when a node outside the view sends this
 *       member a discovery request, this member passes the newcomer's address (its id and the host:port it
 *       listens on) to every other member at once;</li>
 *   <li>a node that is itself still looking for a cluster answers a discovery request with every node its own
 *       search has heard of so far, not only with itself ({@link #introduceKnownNodes}).</li>
 * </ol>
 *
 * <p><b>Why the first.</b> With {@code discovery=static} each node may list a single peer, and a joiner's discovery request
 * goes to that peer only. The coordinator and the other members then learn its view entry (from the JOIN)
 * but not where to reach it, and JGroups drops every message to a member without a known address.
 * Measured in {@code StaticRingIT} (A restarted after {@code kill -9}, listing only D, C coordinator): B,
 * which watches A's failure-detection port, had no address to connect to and suspected A 8 ms after the
 * view that added it; C's "are you dead?" to A was dropped and C excluded A 1.3 s after the join; A kept its
 * old view and served alone until MERGE3 merged it back 27 s later (4 of 19 runs; in CI once the same
 * shape, not merged within 40 s). The coordinator's own cache dissemination on a join
 * ({@code send_cache_on_join}) cannot help: it has no address to pass on. The member the joiner asked knows
 * the address first and tells the others at once, in the tests before the view that adds the joiner.
 *
 * <p>Requests from nodes outside the view also come from MERGE3 on the other side of a partition (every 1 to
 * 3 s per node); they are introduced too, at one small message per member each time.
 *
 * <p><b>Why the second.</b> Nodes that start at the same time (a whole ring restarted, a StatefulSet started in
 * parallel) find no coordinator; JGroups then lets the first of all the nodes a node heard of (by address
 * order) found the cluster, and the others wait for it and join. With plain TCPPING a node that is not yet a
 * member answers with itself only, so in a ring each node hears of its two neighbours only, and every node
 * that comes first among itself and its two neighbours founds a cluster of its own: about a third of them.
 * Measured with eight node JVMs on 127.0.0.1 started together (each listing its predecessor): every node saw
 * exactly 2 answers in its 1.5 s of discovery and chose among 3 nodes; two or three clusters formed and
 * MERGE3 joined them 13 s later. When a waiting node passes on what it heard, each of the
 * {@value JGroupsStacks#DISCOVERY_RUNS} discovery rounds within the join timeout reaches further around the
 * ring than the one before (it also asks the nodes just learned of, which pass on what they learned
 * meanwhile), so the nodes that are already looking learn of each other, pick the same founder, and one
 * cluster forms without a merge ({@code ConcurrentRingStartTest}). In-process, with these rounds, rings of 16
 * and 24 nodes started together formed one view without a merge in 11 of 12 runs; in the other, two clusters
 * formed and MERGE3 joined them. A node that starts more than a join timeout after the others still finds a
 * cluster; one that starts early may found one alone before the others look, and MERGE3 then merges. The
 * nodes passed on carry the flags they were heard with (member, coordinator); the one that asks checks them
 * itself in its next round.
 */
public class IntroducingTcpping extends TCPPING {

    private final LongAdder introduced = new LongAdder();
    private final LongAdder passedOn = new LongAdder();

    public IntroducingTcpping() {
        setId(ClassConfigurator.getProtocolId(TCPPING.class));
    }

    @Override
    public void discoveryRequestReceived(Address sender, String logicalName, PhysicalAddress physicalAddr) {
        super.discoveryRequestReceived(sender, logicalName, physicalAddr);
        if (sender == null || physicalAddr == null) {
            return;
        }
        if (!is_server) {
            introduceKnownNodes(sender);
            return;
        }
        View current = view;
        if (current == null || current.containsMember(sender)) {
            return; // a member's request: the others know it already
        }
        for (Address member : current.getMembersRaw()) {
            if (!member.equals(local_addr)) {
                sendDiscoveryResponse(sender, physicalAddr, logicalName, member, false);
            }
        }
        introduced.increment();
        log.debug("%s: introduced %s (%s) to the other members of view %s", local_addr, sender, physicalAddr,
                current.getViewId());
    }

    /**
     * This node is not a member yet: answers {@code asker} with every other node its own pending discovery has
     * heard of (from their answers and their requests), as heard: id, name, host:port, member and coordinator
     * flags. Its own answer (itself) follows from TCPPING as before.
     */
    private void introduceKnownNodes(Address asker) {
        Map<Address, PingData> known = new LinkedHashMap<>();
        List<Responses> pending;
        synchronized (ping_responses) {
            pending = new ArrayList<>(ping_responses.values());
        }
        for (Responses responses : pending) {
            for (PingData heard : responses) {
                Address address = heard.getAddress();
                if (address != null && heard.getPhysicalAddr() != null && !address.equals(asker)
                        && !address.equals(local_addr)) {
                    known.putIfAbsent(address, new PingData(address, heard.isServer(), heard.getLogicalName(),
                            heard.getPhysicalAddr()).coord(heard.isCoord()));
                }
            }
        }
        if (known.isEmpty()) {
            return;
        }
        sendDiscoveryResponse(new ArrayList<>(known.values()), asker);
        passedOn.increment();
        log.trace("%s: not a member yet; told %s of the nodes it heard of: %s", local_addr, asker, known.keySet());
    }

    /** How many nodes from outside the view were introduced to the members. */
    public long introduced() {
        return introduced.sum();
    }

    /** How many discovery requests this node answered, while not a member, with the other nodes it heard of. */
    public long passedOn() {
        return passedOn.sum();
    }
}
