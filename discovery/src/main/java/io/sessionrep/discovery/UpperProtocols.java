package io.sessionrep.discovery;

import org.jgroups.protocols.FD_ALL3;
import org.jgroups.protocols.FRAG4;
import org.jgroups.protocols.MERGE3;
import org.jgroups.protocols.MFC;
import org.jgroups.protocols.UFC;
import org.jgroups.protocols.UNICAST3;
import org.jgroups.protocols.VERIFY_SUSPECT2;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.protocols.pbcast.STABLE;
import org.jgroups.stack.Protocol;

import java.net.InetAddress;
import java.util.List;

/**
 * The protocols above discovery, the same for every discovery mode, bottom to top:
 * <pre>
 * MERGE3          min_interval 1s, max_interval 2s (so views are compared every 3.2s): each member looks for
 *                 members outside its view every 1 to 3s; split clusters (nodes started at slightly different
 *                 times that founded clusters of their own, or the two sides of a healed partition) find each
 *                 other and merge within a few seconds. With 2s/8s (views compared every 12.8s) eight nodes
 *                 started together in a ring were one view only 13 to 27s after they were all ready. Each
 *                 look costs about N requests and answers, and over TCPPING about N x N INFO messages (every
 *                 member answers with the whole view), all small
 * FD_SOCK2        bind_addr = bind-address, ports transport port + 100 .. +103: a TCP connection to the
 *                 next member in the view; a process that dies (even kill -9) closes it and is
 *                 suspected at once; frames capped at 64 KiB ({@link BoundedFdSock2})
 * FD_ALL3         interval 2s, timeout 8s: heartbeats catch a member that hangs with its sockets open
 * VERIFY_SUSPECT2 timeout 1s: a suspect is removed only if it does not answer within 1s; over TCP at once
 *                 if its transport port refuses a connection (its process is gone: {@link CrashAwareVerifySuspect})
 * NAKACK2         reliable, ordered broadcasts (view installation, group messages); no multicast
 *                 retransmission over TCP
 * UNICAST3        reliable, FIFO point-to-point messages (all replication traffic); xmit_interval 20ms:
 *                 the sender keeps every message until the receiver acknowledges it, and a receiver
 *                 acknowledges batches of fewer than 100 messages only on this timer. With JGroups' default
 *                 (500 ms) a primary held each sent update about 230 ms on average (8 ms with 20 ms:
 *                 SentUpdatesReleasedTest), long enough to outlive young collections and be collected from
 *                 the old generation. At sessions of 500 KiB,
 *                 acknowledging every batch at once gave 1.26x throughput and less than half the GC time
 *                 (run 20261125-ack-ab, in git history), but cost 8 % at 1 KiB sessions; 20 ms matched it at
 *                 500 KiB and was no worse at 1 KiB (20261125-xmit20-ab), with at most 50 acknowledgements
 *                 a second per peer
 * STABLE          desired_avg_gossip 50s, max_bytes 4M: garbage-collects delivered broadcasts
 * GMS             join_timeout 1.5s: how long a starting node looks for a coordinator before it
 *                 founds a cluster of its own; print_local_addr off
 * UFC / MFC       max_credits 4M, min_threshold 0.4: a sender may have 4 MB in flight to a receiver that
 *                 has not yet processed it, then it waits for credits; max_block_time 500ms: after
 *                 waiting that long it asks the receiver for credits. JGroups' default (5 s) stalled all
 *                 replication to a node that had just joined for 5 s: a joining node does not count what
 *                 it receives before its first view, so it never replenished the credits spent on it
 *                 meanwhile, and an async primary killed in that window lost 5 s of updates
 * FRAG4           frag_size 960000 over TCP, 60000 over UDP: larger messages (whole sessions, up to
 *                 max-session-size) are cut into fragments. UDP needs fragments below its 64 KiB datagram;
 *                 TCP does not, and each fragment costs the receiver a copy: it reads every fragment into
 *                 an array of its own, then copies them all into one. Over TCP a fragment stays below the
 *                 frame-length cap, whose headroom is 1 MiB (JGroupsStacks.maxFrameLength), and below
 *                 the flow-control credits
 * </pre>
 * Detection, measured on 127.0.0.1 (2 cores): a member that closes its channel leaves the others' view
 * at once (about 0.1 s: it says goodbye); a killed process (kill -9) over TCP at once too (FD_SOCK2 sees the
 * connection close, its port refuses a connection; over UDP, and before that probe, 1.1 to 2.0 s: VERIFY_SUSPECT2
 * waits 1 s and checks once a second); a hung process (kill -STOP, sockets stay open) after
 * about 11 s (FD_ALL3's 8 s timeout, up to one 2 s check interval, 1 s verification).
 */
final class UpperProtocols {

    static final long MERGE_MIN_INTERVAL_MS = 1_000;
    static final long MERGE_MAX_INTERVAL_MS = 2_000;
    static final int FD_SOCK_PORT_OFFSET = 100;
    static final long HEARTBEAT_INTERVAL_MS = 2_000;
    static final long HEARTBEAT_TIMEOUT_MS = 8_000;
    static final long VERIFY_SUSPECT_TIMEOUT_MS = 1_000;
    static final long STABLE_GOSSIP_MS = 50_000;
    static final long STABLE_MAX_BYTES = 4L * 1024 * 1024;
    static final long JOIN_TIMEOUT_MS = 1_500;
    static final long FLOW_CONTROL_CREDITS = 4L * 1024 * 1024;
    static final double FLOW_CONTROL_MIN_THRESHOLD = 0.4;
    static final long FLOW_CONTROL_MAX_BLOCK_MS = 500;
    /** Fragment size over UDP: below the 64 KiB datagram. */
    static final int FRAG_SIZE = 60_000;
    /** Fragment size over TCP: below the 1 MiB headroom of the frame-length cap, headers included. */
    static final int TCP_FRAG_SIZE = 960_000;
    static final long UNICAST_XMIT_INTERVAL_MS = 20;

    private UpperProtocols() {
    }

    /**
     * @param bindAddress  where FD_SOCK2 listens (the transport's bind-address)
     * @param multicasting whether the transport has IP multicast (UDP); otherwise NAKACK2 does not
     *                     retransmit by multicast
     */
    static List<Protocol> create(InetAddress bindAddress, boolean multicasting) {
        return List.of(
                new MERGE3().setMinInterval(MERGE_MIN_INTERVAL_MS).setMaxInterval(MERGE_MAX_INTERVAL_MS),
                new BoundedFdSock2().setBindAddress(bindAddress).setOffset(FD_SOCK_PORT_OFFSET),
                new FD_ALL3().setInterval(HEARTBEAT_INTERVAL_MS).setTimeout(HEARTBEAT_TIMEOUT_MS),
                (multicasting ? new VERIFY_SUSPECT2() : new CrashAwareVerifySuspect()).setTimeout(VERIFY_SUSPECT_TIMEOUT_MS),
                new NAKACK2().useMcastXmit(multicasting),
                new UNICAST3().setXmitInterval(UNICAST_XMIT_INTERVAL_MS),
                new STABLE().setDesiredAverageGossip(STABLE_GOSSIP_MS).setMaxBytes(STABLE_MAX_BYTES),
                new GMS().setJoinTimeout(JOIN_TIMEOUT_MS).printLocalAddress(false),
                new UFC().setMaxCredits(FLOW_CONTROL_CREDITS).setMinThreshold(FLOW_CONTROL_MIN_THRESHOLD)
                        .setMaxBlockTime(FLOW_CONTROL_MAX_BLOCK_MS),
                new MFC().setMaxCredits(FLOW_CONTROL_CREDITS).setMinThreshold(FLOW_CONTROL_MIN_THRESHOLD)
                        .setMaxBlockTime(FLOW_CONTROL_MAX_BLOCK_MS),
                new FRAG4().setFragSize(multicasting ? FRAG_SIZE : TCP_FRAG_SIZE));
    }
}
