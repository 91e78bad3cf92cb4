package io.sessionrep.discovery;

import io.sessionrep.core.WarningInterval;
import io.sessionrep.discovery.FrameSealer.RefusedFrame;
import io.sessionrep.discovery.FrameSealer.Refusal;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.PhysicalAddress;
import org.jgroups.Message;
import org.jgroups.annotations.ManagedAttribute;
import org.jgroups.stack.Protocol;
import org.jgroups.util.ByteArray;
import org.jgroups.util.FastArray;
import org.jgroups.util.MessageBatch;
import org.jgroups.util.Util;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * The JGroups protocol of {@code cluster-key}, placed directly above the transport so that every message
 * of the stack passes it: discovery, failure detection, membership (joins, leaves, views, merges),
 * retransmissions and replication alike.
 *
 * <p>Down: the whole message, headers and payload (with or without one), is serialized and sealed by
 * {@link FrameSealer} into the payload of a new message to the same destination; only the flags are copied
 * to the outer message, for the transport (they are in the sealed copy too, and that copy is what goes up).
 *
 * <p>Up: a message is opened and its sealed copy goes up in its place. It is dropped (counted by reason,
 * at most one warning a minute) when it is malformed, not authentic, replayed or not fresh, or
 * when it was sealed for another member (a captured unicast sent to a different node). Nothing that did not
 * come out of {@link FrameSealer#open} reaches the protocols above.
 */
public class SealedFrames extends Protocol {

    private final FrameSealer sealer;
    private final Map<Refusal, LongAdder> refused = new EnumMap<>(Refusal.class);
    private final LongAdder misdirected = new LongAdder();
    private final WarningInterval warning = new WarningInterval(Duration.ofMinutes(1));

    SealedFrames(FrameSealer sealer) {
        this.sealer = sealer;
        for (Refusal r : Refusal.values()) {
            refused.put(r, new LongAdder());
        }
    }

    /** Frames dropped for {@code reason} since start. */
    long refused(Refusal reason) {
        return refused.get(reason).sum();
    }

    /**
     * Frames dropped since start by reason: {@code malformed}, {@code stale}, {@code replayed},
     * {@code not-authentic} and {@code misdirected} (authentic, but sealed for another member).
     */
    public Map<String, Long> refusedByReason() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (Refusal r : Refusal.values()) {
            counts.put(r.name().toLowerCase(Locale.ROOT).replace('_', '-'), refused(r));
        }
        counts.put("misdirected", misdirected.sum());
        return counts;
    }

    /** Frames dropped for any reason since start, including those sealed for another member. */
    @ManagedAttribute(description = "frames dropped: malformed, not authentic, replayed, stale or misdirected")
    public long refusedTotal() {
        return refused.values().stream().mapToLong(LongAdder::sum).sum() + misdirected.sum();
    }

    /** Authentic frames dropped because they were sealed for another member. */
    public long misdirected() {
        return misdirected.sum();
    }

    @Override
    public Object down(Message msg) {
        if (msg.getSrc() == null) {
            msg.setSrc(local_addr);
        }
        ByteArray plain;
        try {
            plain = Util.messageToBuffer(msg);
        } catch (Exception e) {
            throw new IllegalStateException("cannot serialize a message to seal it: " + e, e);
        }
        Message sealed = new BytesMessage(msg.getDest(), sealer.seal(plain.array(), plain.offset(), plain.length()))
                .setSrc(msg.getSrc())
                .setFlag(msg.getFlags(false), false);
        if (msg.isFlagSet(Message.TransientFlag.DONT_LOOPBACK)) {
            sealed.setFlag(Message.TransientFlag.DONT_LOOPBACK);
        }
        return down_prot.down(sealed);
    }

    @Override
    public Object up(Message msg) {
        Message opened = open(msg);
        return opened == null ? null : up_prot.up(opened);
    }

    @Override
    public void up(MessageBatch batch) {
        @SuppressWarnings("unchecked")
        FastArray<Message>.FastIterator it = (FastArray<Message>.FastIterator) batch.iterator();
        List<Message> apart = null;
        while (it.hasNext()) {
            Message opened = open(it.next());
            if (opened == null) {
                it.remove();
            } else if (fitsBatch(opened, batch)) {
                it.replace(opened);
            } else {
                // the envelope claimed another sender or destination kind than the sealed message: the
                // protocols above trust the batch's, so this one goes up on its own with its sealed ones
                it.remove();
                apart = apart == null ? new ArrayList<>() : apart;
                apart.add(opened);
            }
        }
        if (!batch.isEmpty()) {
            up_prot.up(batch);
        }
        if (apart != null) {
            apart.forEach(up_prot::up);
        }
    }

    private static boolean fitsBatch(Message opened, MessageBatch batch) {
        return Objects.equals(opened.getSrc(), batch.sender()) && (opened.getDest() == null) == batch.isMulticast();
    }

    private Message open(Message msg) {
        try {
            if (!msg.hasArray()) {
                throw new RefusedFrame(Refusal.MALFORMED, "no payload");
            }
            byte[] plain = sealer.open(msg.getArray(), msg.getOffset(), msg.getLength());
            Message inner = Util.messageFromBuffer(plain, 0, plain.length);
            if (!addressedToThisNode(inner.getDest())) {
                misdirected.increment();
                warn("dropped a frame sealed for " + inner.getDest() + " that came from " + msg.getSrc());
                return null;
            }
            return inner;
        } catch (RefusedFrame e) {
            refused.get(e.reason).increment();
            warn("dropped a frame from " + msg.getSrc() + ": " + e.getMessage()
                    + (e.reason == Refusal.STALE ? "; if this repeats, synchronize the nodes' clocks (NTP)" : ""));
        } catch (Exception e) {
            // authentic but not a JGroups message: only a node with the key can produce this
            refused.get(Refusal.MALFORMED).increment();
            warn("dropped an authentic frame from " + msg.getSrc() + " that is not a message: " + e);
        }
        return null;
    }

    /**
     * Whether a sealed destination is this node: a multicast (null), this node's address, or its physical
     * address (discovery sends to the physical addresses of peers).
     */
    private boolean addressedToThisNode(Address dest) {
        if (dest == null || local_addr == null || dest.equals(local_addr)) {
            return true;
        }
        if (dest instanceof PhysicalAddress) {
            PhysicalAddress own = getTransport().getPhysicalAddressFromCache(local_addr);
            return own == null || own.equals(dest);
        }
        return false;
    }

    private void warn(String message) {
        if (warning.due()) {
            log.warn("%s: %s (cluster-key; %d frames dropped so far, further drops this minute are not logged)",
                    local_addr, message, refusedTotal());
        }
    }
}
