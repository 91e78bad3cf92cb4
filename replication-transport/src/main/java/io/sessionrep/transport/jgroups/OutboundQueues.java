package io.sessionrep.transport.jgroups;

import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.protocols.UFC;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One FIFO lane per destination between the callers of {@code send}/{@code request}/{@code broadcast} and
 * the channel, so that callers never block: {@code JChannel.send} can wait for flow-control credits
 * (UFC) until a slow receiver has processed what it already got; that wait happens on a lane thread,
 * and only messages to that destination queue up behind it.
 *
 * <p>Order: a lane sends in the order messages were offered, and UNICAST3 delivers them in that order,
 * so FIFO from this node to one member holds for one-way messages and requests alike. A lane holds at
 * most {@code maxQueuedBytes} of frames; beyond that, {@link #offer} refuses (the member does not keep
 * up). When a member leaves the view its lane is closed and whatever it still held is failed.
 *
 * <p>Fast path: when a lane is idle (nothing queued, no lane thread at work) and flow control has credits
 * for the whole message, the caller hands it to the channel itself, so that no thread is woken for it:
 * {@code JChannel.send} then only puts it into the bundler's queue. Order is kept because the caller holds
 * the lane (its {@code scheduled} flag) while it sends; whatever others offer meanwhile queues behind.
 */
final class OutboundQueues {

    private static final System.Logger LOG = System.getLogger(OutboundQueues.class.getName());

    /**
     * A frame waiting to be sent; {@code onFailure} is told if it never goes out. {@code oneWay} is the core's
     * message of a one-way frame, which a {@link OneWayPath} may carry instead (null for other frames).
     */
    record Outgoing(Message message, int payloadBytes, Consumer<String> onFailure, byte[] oneWay) {
        Outgoing(Message message, int payloadBytes, Consumer<String> onFailure) {
            this(message, payloadBytes, onFailure, null);
        }
    }

    /** A path of the transport's own to one member for one-way messages ({@link LaneClient#deliver}). */
    interface OneWayPath {
        /**
         * Delivers {@code messages} in one frame, on this thread, after the {@code sentBefore} channel messages
         * sent to that member before. False if it did not (they may have been handled there or not).
         */
        boolean deliver(long sentBefore, List<byte[]> messages, int payloadLength);
    }

    private final JChannel channel;
    private final Executor executor;
    private final long maxQueuedBytes;
    private final TransportCounters counters;
    private final Map<Address, Lane> lanes = new ConcurrentHashMap<>();
    /** Unicast flow control of the stack; null if the stack has none (then a send never waits for credits). */
    private final UFC flowControl;

    OutboundQueues(JChannel channel, Executor executor, long maxQueuedBytes, TransportCounters counters) {
        this.channel = channel;
        this.executor = executor;
        this.maxQueuedBytes = maxQueuedBytes;
        this.counters = counters;
        this.flowControl = channel.getProtocolStack().findProtocol(UFC.class);
    }

    /** Would {@code JChannel.send} of {@code bytes} to {@code destination} go out without waiting for credits? */
    private boolean hasCredits(Address destination, int bytes) {
        return flowControl == null || flowControl.getSenderCreditsFor(destination) > bytes;
    }

    /**
     * Queues {@code outgoing} for its destination.
     *
     * @return null if queued, otherwise why not (lane full or closed); {@code onFailure} is not called then
     */
    String offer(Outgoing outgoing) {
        Address destination = outgoing.message().getDest();
        return lanes.computeIfAbsent(destination, Lane::new).offer(outgoing);
    }

    /**
     * Sends {@code batch}, one-way frames to {@code destination}, on this thread over {@code path} when the
     * destination's queue is idle: in frames of at most {@code room} bytes, each after the channel
     * messages sent before it; a message too large for the path, and a frame the path did not deliver, go over the
     * channel in their place, so the order of everything sent to the destination is kept.
     *
     * @return false, having sent nothing, when the queue is busy (messages wait in it): the caller {@link #offer}s them
     */
    boolean sendOver(Address destination, List<Outgoing> batch, int room, OneWayPath path) {
        return lanes.computeIfAbsent(destination, Lane::new).sendOver(batch, room, path);
    }

    /**
     * How many messages this node has handed over for {@code destination} so far (sent, or queued to be), less
     * those whose send failed: the number the destination will have handled once it has everything sent
     * before this call ({@link DeliveredCounts}).
     */
    long offeredTo(Address destination) {
        Lane lane = lanes.get(destination);
        return lane == null ? 0 : lane.offered.get();
    }

    /** Closes the lanes of destinations that are no longer members. */
    void retainOnly(Set<Address> members) {
        lanes.entrySet().removeIf(entry -> {
            if (members.contains(entry.getKey())) {
                return false;
            }
            entry.getValue().close("the member left the cluster");
            return true;
        });
    }

    /** Waits until every lane has handed its queued messages to the channel, at most {@code millis}. */
    void drain(long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            boolean idle = true;
            for (Lane lane : lanes.values()) {
                idle &= lane.idle();
            }
            if (idle) {
                return;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Closes every lane. */
    void closeAll(String reason) {
        lanes.values().forEach(lane -> lane.close(reason));
        lanes.clear();
    }

    private final class Lane implements Runnable {
        private final Address destination;
        private final Queue<Outgoing> queue = new ConcurrentLinkedQueue<>();
        private final AtomicLong queuedBytes = new AtomicLong();
        private final AtomicBoolean scheduled = new AtomicBoolean();
        /** Counted before a message joins the queue (or is sent), so a count read covers every message queued before. */
        private final AtomicLong offered = new AtomicLong();
        /** Messages handed to the channel; only the thread holding the lane changes it, so it reads it exactly. */
        private final AtomicLong handed = new AtomicLong();
        private volatile String closedBecause;

        Lane(Address destination) {
            this.destination = destination;
        }

        String offer(Outgoing outgoing) {
            int size = outgoing.message().getLength();
            if (closedBecause != null) {
                return closedBecause;
            }
            if (queue.isEmpty() && hasCredits(destination, size) && scheduled.compareAndSet(false, true)) {
                offered.incrementAndGet();
                sendHoldingTheLane(outgoing);
                return null;
            }
            long queued = queuedBytes.addAndGet(size);
            if (queued > maxQueuedBytes && queued != size) { // one oversized frame alone may pass
                queuedBytes.addAndGet(-size);
                return "the outbound queue to it is full (" + maxQueuedBytes + " bytes waiting)";
            }
            offered.incrementAndGet();
            queue.add(outgoing);
            if (closedBecause != null) {
                failQueued(); // closed between the check and the add
            } else {
                schedule();
            }
            return null;
        }

        boolean sendOver(List<Outgoing> batch, int room, OneWayPath path) {
            if (closedBecause != null || !queue.isEmpty() || !scheduled.compareAndSet(false, true)) {
                return false;
            }
            try {
                List<Outgoing> frame = new ArrayList<>();
                long frameBytes = 0;
                for (int i = 0; i < batch.size(); i++) {
                    Outgoing next = batch.get(i);
                    byte[] m = next.oneWay();
                    boolean fits = m != null && LaneFrames.oneWaysLength(1, m.length) <= room;
                    if (!fits || LaneFrames.oneWaysLength(frame.size() + 1, frameBytes + m.length) > room) {
                        if (!deliver(frame, frameBytes, path)) {
                            queueInOrder(frame);
                            queueInOrder(batch.subList(i, batch.size()));
                            return true;
                        }
                        frame.clear();
                        frameBytes = 0;
                    }
                    if (fits) {
                        frame.add(next);
                        frameBytes += m.length;
                    } else if (hasCredits(destination, next.message().getLength())) {
                        offered.incrementAndGet();
                        send(next);
                    } else { // this thread must not wait for credits: a lane thread sends it and what follows
                        queueInOrder(batch.subList(i, batch.size()));
                        return true;
                    }
                }
                if (!deliver(frame, frameBytes, path)) {
                    queueInOrder(frame);
                }
                return true;
            } finally {
                release(); // a lane thread sends over the channel whatever was queued
            }
        }

        /** One frame over the path; false if the path did not deliver it (nothing, some or all of it handled there). */
        private boolean deliver(List<Outgoing> frame, long frameBytes, OneWayPath path) {
            if (frame.isEmpty()) {
                return true;
            }
            List<byte[]> messages = new ArrayList<>(frame.size());
            frame.forEach(o -> messages.add(o.oneWay()));
            if (closedBecause == null
                    && path.deliver(handed.get(), messages, LaneFrames.oneWaysLength(messages.size(), frameBytes))) {
                messages.forEach(m -> counters.sent(m.length));
                return true;
            }
            return false;
        }

        /** Queues messages for the channel while this thread holds the lane (so nothing else is sent meanwhile). */
        private void queueInOrder(List<Outgoing> messages) {
            for (Outgoing o : messages) {
                offered.incrementAndGet();
                queuedBytes.addAndGet(o.message().getLength());
                queue.add(o);
            }
        }

        boolean idle() {
            return closedBecause != null || (queue.isEmpty() && !scheduled.get());
        }

        void close(String reason) {
            closedBecause = reason;
            failQueued();
        }

        /** The fast path: this thread holds the lane, sends, then lets a lane thread take what queued meanwhile. */
        private void sendHoldingTheLane(Outgoing outgoing) {
            try {
                if (send(outgoing)) {
                    counters.sentInline();
                }
            } finally {
                release();
            }
        }

        @Override
        public void run() {
            try {
                Outgoing next;
                while (closedBecause == null && (next = queue.poll()) != null) {
                    queuedBytes.addAndGet(-next.message().getLength());
                    send(next);
                }
            } finally {
                release();
            }
        }

        /** Gives the lane up; if something queued meanwhile, a lane thread sends it (or it fails if closed). */
        private void release() {
            scheduled.set(false);
            if (!queue.isEmpty()) {
                if (closedBecause != null) {
                    failQueued();
                } else {
                    schedule();
                }
            }
        }

        private void schedule() {
            if (scheduled.compareAndSet(false, true)) {
                try {
                    executor.execute(this);
                } catch (RuntimeException rejected) { // executor shut down: the transport is closing
                    scheduled.set(false);
                    close("the transport is closed");
                }
            }
        }

        private boolean send(Outgoing outgoing) {
            try {
                channel.send(outgoing.message());
                handed.incrementAndGet();
                counters.sent(outgoing.payloadBytes());
                return true;
            } catch (Exception e) {
                offered.decrementAndGet(); // it will never be handled there
                LOG.log(System.Logger.Level.DEBUG, () -> "could not send to " + destination, e);
                outgoing.onFailure().accept("sending failed: " + e);
                return false;
            }
        }

        private void failQueued() {
            Outgoing dropped;
            while ((dropped = queue.poll()) != null) {
                queuedBytes.addAndGet(-dropped.message().getLength());
                dropped.onFailure().accept(closedBecause);
            }
        }
    }
}
