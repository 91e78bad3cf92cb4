package io.sessionrep.discovery;

import org.jgroups.Address;
import org.jgroups.PhysicalAddress;
import org.jgroups.View;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.TCPPING;

import java.util.concurrent.atomic.LongAdder;

/**
 * TCPPING that introduces a node asking to join to every member: when a node outside the view sends this
 * member a discovery request, this member passes the newcomer's address (its id and the host:port it
 * listens on) to every other member at once, as a discovery answer. Nothing else changes, on the wire
 * neither: it takes TCPPING's protocol id and sends JGroups' own discovery answers.
 *
 * <p>Why: with {@code discovery=static} each node may list a single peer, and a joiner's discovery request
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
 * <p>Requests from nodes outside the view also come from MERGE3 on the other side of a partition (every 4 to
 * 12 s per node); they are introduced too, at one small message per member each time.
 */
public class IntroducingTcpping extends TCPPING {

    private final LongAdder introduced = new LongAdder();

    public IntroducingTcpping() {
        setId(ClassConfigurator.getProtocolId(TCPPING.class));
    }

    @Override
    public void discoveryRequestReceived(Address sender, String logicalName, PhysicalAddress physicalAddr) {
        super.discoveryRequestReceived(sender, logicalName, physicalAddr);
        View current = view;
        if (sender == null || physicalAddr == null || current == null || current.containsMember(sender)) {
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

    /** How many nodes from outside the view were introduced to the members. */
    public long introduced() {
        return introduced.sum();
    }
}
