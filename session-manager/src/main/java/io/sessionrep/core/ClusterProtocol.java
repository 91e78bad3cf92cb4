package io.sessionrep.core;

import io.sessionrep.core.delta.SessionUpdate;
import io.sessionrep.core.serial.ValueFormat;
import io.sessionrep.core.transport.Member;
import io.sessionrep.core.wire.Message;
import io.sessionrep.core.wire.ProtocolRange;
import io.sessionrep.core.wire.WireCodec;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Which wire protocol this node writes: the newest one that every member of its view reads, so that a cluster can
 * be upgraded (or rolled back) one node at a time. Each member states the protocols it reads in its cluster address
 * ({@link io.sessionrep.core.transport.ReplicationTransport#protocolsOf}); every view change agrees anew.
 *
 * <p>The protocol decides the format of the attribute values this node writes ({@link AttributeCodec#writeIn}):
 * protocol 2 members read only {@link ValueFormat#FIELD_ORDER}. Values written before such a member joined, or
 * received from a node of the newer protocol, are written again in field order as they are sent while the
 * protocol is 2 ({@link #encode}); one whose class cannot be loaded here is left out of that message, reported.
 *
 * <p>A member that reads no protocol this node reads cannot be part of its cluster: a node that finds one in the
 * view it joins refuses to start ({@link #noProtocolInCommon}); one that appears later is logged and left out of
 * the agreement (it rejects what this node sends it).
 */
final class ClusterProtocol {
    private static final System.Logger LOG = System.getLogger(ClusterProtocol.class.getName());

    private final String nodeName;
    private final ProtocolRange ours;
    private final AttributeCodec attributes;
    private final ReportOnce reportedStrangers = ReportOnce.standard();
    private volatile int agreed;

    ClusterProtocol(String nodeName, ProtocolRange ours, AttributeCodec attributes) {
        this.nodeName = nodeName;
        this.ours = ours;
        this.attributes = attributes;
        this.agreed = newestWritten();
        attributes.writeIn(formatOf(agreed));
    }

    /** The protocol messages are written in now. */
    int agreed() {
        return agreed;
    }

    /** The protocols this node reads. */
    ProtocolRange ours() {
        return ours;
    }

    /**
     * Agrees on the protocol for a new view: the newest this node reads that every other member whose range
     * overlaps this node's reads. Returns the members whose range does not (reported once each).
     */
    List<Member> viewChanged(List<Member> view, Function<Member, ProtocolRange> protocolsOf) {
        int newest = newestWritten();
        List<Member> strangers = new ArrayList<>();
        StringBuilder ranges = new StringBuilder();
        for (Member member : view) {
            if (member.name().equals(nodeName)) {
                continue;
            }
            ProtocolRange theirs = protocolsOf.apply(member);
            ranges.append(ranges.length() == 0 ? "" : ", ").append(member.name()).append(' ').append(theirs);
            if (!theirs.overlaps(ours)) {
                strangers.add(member);
                if (reportedStrangers.firstTime(member.name())) {
                    LOG.log(System.Logger.Level.ERROR, noProtocolInCommon(member, theirs, "it cannot take part in"
                            + " replication with this node; it rejects what this node sends it"));
                }
            } else {
                newest = Math.min(newest, theirs.newest());
            }
        }
        int previous = agreed;
        agreed = newest;
        attributes.writeIn(formatOf(newest));
        if (newest != previous) {
            LOG.log(System.Logger.Level.INFO, "node " + nodeName + " now writes wire protocol " + newest + " (values in "
                    + formatOf(newest) + "; it reads " + ours + "; members: " + ranges + ")");
        }
        return strangers;
    }

    /** The newest protocol this node states and this build writes (a node may state fewer, to rehearse a release). */
    private int newestWritten() {
        return Math.min(ours.newest(), WireCodec.CURRENT);
    }

    /** Why {@code member} and this node cannot replicate to each other, and what to do. */
    String noProtocolInCommon(Member member, ProtocolRange theirs, String consequence) {
        return "member " + member.name() + " reads wire protocols " + theirs + " and node " + nodeName + " reads "
                + ours + ": they have none in common, " + consequence + ". Roll the cluster through a release that"
                + " reads both (each release reads the protocol of the release before it): upgrade one release at a"
                + " time, or stop the whole cluster and start it on one release";
    }

    /** {@code message} in the agreed protocol, its attribute values in a format that protocol reads. */
    byte[] encode(Message message) {
        int version = agreed;
        return WireCodec.encode(version >= 3 ? message : inFieldOrder(message), version);
    }

    private Message inFieldOrder(Message message) {
        if (message instanceof Message.Update m) {
            SessionUpdate u = inFieldOrder(m.update());
            return u == m.update() ? message : new Message.Update(u, m.ackRequested());
        }
        if (message instanceof Message.FetchReply m && m.copy() != null) {
            SessionUpdate u = inFieldOrder(m.copy());
            return u == m.copy() ? message : new Message.FetchReply(u, m.primary());
        }
        if (message instanceof Message.AcquireReply m && m.state() != null) {
            SessionUpdate u = inFieldOrder(m.state());
            return u == m.state() ? message : new Message.AcquireReply(m.sessionId(), m.requestId(), m.outcome(), u,
                    m.ownerHint(), m.holders());
        }
        return message;
    }

    private SessionUpdate inFieldOrder(SessionUpdate update) {
        Map<String, byte[]> changed = null;
        for (Map.Entry<String, byte[]> e : update.changed().entrySet()) {
            if (ValueFormat.of(e.getValue()) == ValueFormat.FIELD_ORDER) {
                continue;
            }
            if (changed == null) {
                changed = new HashMap<>(update.changed());
            }
            byte[] rewritten = attributes.rewrite(update.sessionId(), e.getKey(), e.getValue(), ValueFormat.FIELD_ORDER);
            if (rewritten == null) {
                changed.remove(e.getKey());
            } else {
                changed.put(e.getKey(), rewritten);
            }
        }
        return changed == null ? update : new SessionUpdate(update.sessionId(), update.fromVersion(), update.toVersion(),
                update.full(), update.creationTime(), update.lastAccessedTime(), update.maxInactiveSeconds(), changed,
                update.removed());
    }

    private static ValueFormat formatOf(int protocol) {
        return protocol >= 3 ? ValueFormat.NAMED_FIELDS : ValueFormat.FIELD_ORDER;
    }
}
