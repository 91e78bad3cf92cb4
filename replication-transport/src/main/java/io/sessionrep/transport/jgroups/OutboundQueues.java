package io.sessionrep.transport.jgroups;

import io.sessionrep.transport.jgroups.lane.DataLane;
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
import java.util.concurrent.atomic.AtomicInteger;
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
 *
 * <p>The data lane: the async sender's batches may go into the destination's {@link DataLane.OneWays pipe} instead
 * ({@link #sendOver}); while frames written there wait for their answers, nothing goes to that destination over
 * the channel (a queue thread waits for the answers first), and what a failed pipe did not deliver goes over the
 * channel before anything else.
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

    /** A path of the transport's own to one member for one-way messages: the data lane ({@link DataLane#openOneWays}). */
    interface OneWayPath {
        /**
         * A pipe to that member, or null when its lane is not to be used now.
         *
         * @param onFailure to be told when the pipe fails with messages not answered
         */
        DataLane.OneWays<Outgoing> open(Runnable onFailure);
    }

    private final JChannel channel;
    private final Executor executor;
    private final long maxQueuedBytes;
    private final TransportCounters counters;
    private final Map<Address, Lane> lanes = new ConcurrentHashMap<>();
    /** The last {@link DataLane#position position} stream opened: each lane is one stream of its destination's messages. */
    private final AtomicInteger streams = new AtomicInteger();
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
     * destination's queue is idle: written into its pipe in frames of at most {@code room} bytes, each after the
     * channel messages sent before it, without waiting for their answers. Nothing goes over the channel to the
     * destination while frames written before wait for their answer (a queue thread waits for them first); a message
     * too large for a frame, and the rest of its batch, and the messages of frames a failed pipe did not deliver, go
     * over the channel after them, so the order of everything sent to the destination is kept.
     *
     * @return false, having sent nothing, when the queue is busy (messages wait in it): the caller {@link #offer}s them
     */
    boolean sendOver(Address destination, List<Outgoing> batch, int room, OneWayPath path) {
        return lanes.computeIfAbsent(destination, Lane::new).sendOver(batch, room, path);
    }

    /**
     * The {@link DataLane#position position} the destination will have handled once it has everything this node handed over for
     * it so far (sent, or queued to be; those whose send fails are not counted), for the data lane to wait for
     * ({@link DataLane#handled}).
     */
    long offeredTo(Address destination) {
        Lane lane = lanes.get(destination);
        return lane == null ? DataLane.NO_POSITION : DataLane.position(lane.stream, lane.offered.get());
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
        /** This lane's stream of the destination's {@link DataLane#position position}s. */
        private final int stream;
        private final Queue<Outgoing> queue = new ConcurrentLinkedQueue<>();
        private final AtomicLong queuedBytes = new AtomicLong();
        private final AtomicBoolean scheduled = new AtomicBoolean();
        /** Counted before a message joins the queue (or is sent), so a count read covers every message queued before. */
        private final AtomicLong offered = new AtomicLong();
        /** Messages handed to the channel; only the thread holding the lane changes it, so it reads it exactly. */
        private final AtomicLong handed = new AtomicLong();
        /**
         * Messages for the channel that go before the queue: those the holder could not write into the pipe or send at
         * once, and those a failed pipe did not deliver. Added to by the holder only.
         */
        private final Queue<Outgoing> ahead = new ConcurrentLinkedQueue<>();
        /** The data lane's pipe to the destination; changed by the holder only (and by close). */
        private volatile DataLane.OneWays<Outgoing> pipe;
        private volatile String closedBecause;

        Lane(Address destination) {
            this.destination = destination;
            // wraps only after a million lanes opened (a member rejoining this node's view opens one)
            this.stream = streams.updateAndGet(n -> n >= DataLane.MAX_STREAM ? 1 : n + 1);
        }

        String offer(Outgoing outgoing) {
            int size = outgoing.message().getLength();
            if (closedBecause != null) {
                return closedBecause;
            }
            if (queue.isEmpty() && hasCredits(destination, size) && scheduled.compareAndSet(false, true)) {
                if (channelIsNext()) {
                    offered.incrementAndGet();
                    sendHoldingTheLane(outgoing);
                    return null;
                }
                scheduled.set(false); // frames on the lane first: a queue thread waits for their answers
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

        /** Holding the lane: may a message go over the channel now (no lane frame unanswered, nothing ahead of it)? */
        private boolean channelIsNext() {
            DataLane.OneWays<Outgoing> p = pipe;
            return ahead.isEmpty() && (p == null || p.idle());
        }

        boolean sendOver(List<Outgoing> batch, int room, OneWayPath path) {
            if (closedBecause != null || !queue.isEmpty() || !scheduled.compareAndSet(false, true)) {
                return false;
            }
            try {
                DataLane.OneWays<Outgoing> p = pipeFor(path);
                if (p == null) {
                    toChannel(batch, 0);
                    return true;
                }
                List<Outgoing> frame = new ArrayList<>();
                long frameBytes = 0;
                for (int i = 0; i < batch.size(); i++) {
                    Outgoing next = batch.get(i);
                    byte[] m = next.oneWay();
                    boolean fits = m != null && DataLane.oneWaysLength(1, m.length) <= room;
                    if (!fits || DataLane.oneWaysLength(frame.size() + 1, frameBytes + m.length) > room) {
                        if (!write(p, frame, frameBytes)) {
                            settlePipe(); // what the failed pipe did not deliver goes first
                            toChannel(frame, 0);
                            toChannel(batch, i);
                            return true;
                        }
                        frame = new ArrayList<>();
                        frameBytes = 0;
                    }
                    if (!fits) { // over the channel once the frames before it are answered, and the rest after it
                        toChannel(batch, i);
                        return true;
                    }
                    frame.add(next);
                    frameBytes += m.length;
                }
                if (!write(p, frame, frameBytes)) {
                    settlePipe();
                    toChannel(frame, 0);
                }
                return true;
            } finally {
                release(); // a queue thread sends whatever waits for the channel
            }
        }

        /** Holding the lane: the pipe to use, opened if need be (a failed one settled first); null: use the channel. */
        private DataLane.OneWays<Outgoing> pipeFor(OneWayPath path) {
            DataLane.OneWays<Outgoing> p = pipe;
            if (p != null && !p.usable()) {
                settlePipe();
                p = pipe;
            }
            if (p == null && ahead.isEmpty() && closedBecause == null) {
                p = path.open(this::schedule);
                pipe = p;
            }
            return ahead.isEmpty() ? p : null;
        }

        /** One frame into the pipe; false if the pipe has failed (the frame was not written). */
        private boolean write(DataLane.OneWays<Outgoing> p, List<Outgoing> frame, long frameBytes) {
            if (frame.isEmpty()) {
                return true;
            }
            List<byte[]> messages = new ArrayList<>(frame.size());
            frame.forEach(o -> messages.add(o.oneWay()));
            return closedBecause == null
                    && p.write(DataLane.position(stream, handed.get()), messages,
                            DataLane.oneWaysLength(messages.size(), frameBytes), frame);
        }

        /**
         * Holding the lane: waits until the pipe's frames are answered (at most its time-out); the messages of those
         * it did not deliver go ahead of everything else, and a pipe that failed, or went idle too long, is closed.
         */
        private void settlePipe() {
            DataLane.OneWays<Outgoing> p = pipe;
            if (p == null) {
                return;
            }
            for (Outgoing o : p.settle()) {
                offered.incrementAndGet();
                ahead.add(o);
            }
            if (!p.usable()) {
                pipe = null;
                p.close();
            }
        }

        /** Holding the lane: {@code messages} from {@code from} on over the channel, at once if nothing is before them. */
        private void toChannel(List<Outgoing> messages, int from) {
            for (int i = from; i < messages.size(); i++) {
                Outgoing o = messages.get(i);
                offered.incrementAndGet();
                if (channelIsNext() && hasCredits(destination, o.message().getLength())) {
                    send(o); // this thread must not wait for credits: without them a queue thread sends it
                } else {
                    ahead.add(o);
                }
            }
        }

        boolean idle() {
            return closedBecause != null || (queue.isEmpty() && !scheduled.get() && channelIsNext());
        }

        void close(String reason) {
            closedBecause = reason;
            DataLane.OneWays<Outgoing> p = pipe;
            if (p != null) {
                p.abandon().forEach(o -> o.onFailure().accept(reason));
            }
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
                settlePipe(); // the channel after the lane's frames: wait for their answers
                Outgoing next;
                while (closedBecause == null && (next = ahead.poll()) != null) {
                    send(next);
                }
                while (closedBecause == null && (next = queue.poll()) != null) {
                    queuedBytes.addAndGet(-next.message().getLength());
                    send(next);
                }
            } finally {
                release();
            }
        }

        /** Gives the lane up; if something waits meanwhile, a queue thread sends it (or it fails if closed). */
        private void release() {
            scheduled.set(false);
            DataLane.OneWays<Outgoing> p = pipe;
            if (!queue.isEmpty() || !ahead.isEmpty() || (p != null && p.needsSettling())) {
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
                WireFormat.placeAt(outgoing.message(), DataLane.position(stream, handed.get() + 1));
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
            while ((dropped = ahead.poll()) != null) {
                dropped.onFailure().accept(closedBecause);
            }
            while ((dropped = queue.poll()) != null) {
                queuedBytes.addAndGet(-dropped.message().getLength());
                dropped.onFailure().accept(closedBecause);
            }
        }
    }
}
