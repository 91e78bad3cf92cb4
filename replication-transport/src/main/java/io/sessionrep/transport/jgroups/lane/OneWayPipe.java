package io.sessionrep.transport.jgroups.lane;

import io.sessionrep.discovery.SealedBytes;
import io.sessionrep.transport.jgroups.lane.LaneFrames.MalformedLaneFrame;
import io.sessionrep.transport.jgroups.lane.LaneFrames.Reply;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The async sender's connection to one member's {@link LaneServer}: batches of one-way messages written as frames
 * one after the other, without waiting for the answer to the frame before (pipelined); a thread of its own reads
 * the answers. The member answers a frame once it has handled its messages, in the order they were written; until
 * then the pipe keeps them, so that when it fails (the member answered that this node's channel messages had not
 * arrived there in time, the connection broke, or no answer came within the time-out) they go over the channel in
 * its place, in order ({@link #settle}). The writer is thus free as soon as its frame is in the socket, as it is
 * free once the channel has taken a message; a primary killed then loses only what it had not written yet.
 *
 * <p>Never blocked without bound: unanswered frames (with {@link #FRAME_OVERHEAD} each) add up to at most
 * {@code room} bytes, which the socket's send buffer holds whatever the member has read of them, so a write never
 * waits for the member; a frame that does not fit beside them waits for answers, at most the time-out, after which
 * the pipe fails. A failure rests the member's lane ({@code pause}) and tells the owner ({@code onFailure}), who
 * then sends what was not answered over the channel.
 *
 * @param <T> what the owner keeps per message, handed back by {@link #settle} and {@link #abandon}
 */
final class OneWayPipe<T> implements DataLane.OneWays<T> {

    private static final System.Logger LOG = System.getLogger(OneWayPipe.class.getName());

    /** What a frame costs beyond its payload: its length, the request header and a seal. */
    static final int FRAME_OVERHEAD = 4 + LaneFrames.REQUEST_HEADER + SealedBytes.OVERHEAD;

    /** Rests a member's lane. */
    interface Pause {
        void pauseFor(long millis, String why);
    }

    private record Frame<T>(long exchange, List<T> items, List<byte[]> messages, int windowBytes, long writtenAt) {
    }

    private final LaneClient.Connection connection;
    private final LaneFrames frames;
    private final DataLane.Counts counters;
    private final int room;
    private final long timeoutNanos;
    private final Pause pause;
    private final Runnable onFailure;
    private final ArrayDeque<Frame<T>> unanswered = new ArrayDeque<>(); // guarded by this
    private long unansweredBytes; // guarded by this
    private String failure; // guarded by this; once set, nothing more is written
    private volatile long lastWriteMillis = System.currentTimeMillis();

    OneWayPipe(LaneClient.Connection connection, LaneFrames frames, DataLane.Counts counters, int room,
               long timeoutMillis, Pause pause, Runnable onFailure, String threadName) {
        this.connection = connection;
        this.frames = frames;
        this.counters = counters;
        this.room = room;
        this.timeoutNanos = timeoutMillis * 1_000_000L;
        this.pause = pause;
        this.onFailure = onFailure;
        Thread reader = new Thread(this::readAnswers, threadName);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Writes {@code messages} as one frame, to be handled after the channel messages sent to the member before
     * ({@code sentBefore}, their {@link ChannelPosition}). Waits for answers only while the frame does not fit beside the unanswered ones.
     *
     * @param payloadLength {@link LaneFrames#oneWaysLength} of the messages, at most {@code room} (the send buffer holds
     *                      a frame of that much beside its overhead)
     * @param items what {@link #settle} hands back for these messages if the pipe fails before they are answered
     * @return false when the pipe had failed or fails while waiting for room: the frame was not taken
     */
    @Override
    public boolean write(long sentBefore, List<byte[]> messages, int payloadLength, List<T> items) {
        int bytes = payloadLength + FRAME_OVERHEAD;
        long exchange;
        long started = System.nanoTime();
        synchronized (this) {
            try {
                while (failure == null && !unanswered.isEmpty()) {
                    long now = System.nanoTime();
                    if (now - unanswered.peekFirst().writtenAt() > timeoutNanos) {
                        failLocked("no answer on the lane within " + timeoutNanos / 1_000_000 + " ms",
                                LaneClient.UNREACHABLE_RETRY_AFTER_MILLIS);
                    } else if (unansweredBytes + bytes > room) {
                        wait(Math.max(1, (timeoutNanos - (now - started)) / 1_000_000));
                    } else {
                        break;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failLocked("interrupted while waiting for answers", LaneClient.RETRY_AFTER_MILLIS);
            }
            if (failure != null) {
                return false;
            }
            exchange = connection.link.nextExchange();
            unanswered.addLast(new Frame<>(exchange, items, messages, bytes, System.nanoTime()));
            unansweredBytes += bytes;
        }
        try {
            frames.writeOneWays(connection.out, connection.link, exchange, sentBefore, LaneClient.ONE_WAYS_CHANNEL_WAIT_MILLIS,
                    messages, payloadLength);
            lastWriteMillis = System.currentTimeMillis();
        } catch (IOException e) {
            fail("writing a frame failed (" + e + ")", LaneClient.RETRY_AFTER_MILLIS); // settle hands this frame back
        }
        return true;
    }

    /**
     * Waits until every frame written is answered, at most the time-out (then the pipe fails).
     *
     * @return the items of the frames not answered, in the order written, when the pipe failed (it is then done
     *         with: {@link #usable} is false); an empty list when all were answered
     */
    @Override
    public List<T> settle() {
        long started = System.nanoTime();
        synchronized (this) {
            try {
                while (failure == null && !unanswered.isEmpty()) {
                    long left = timeoutNanos - (System.nanoTime() - started);
                    if (left <= 0) {
                        failLocked("no answer on the lane within " + timeoutNanos / 1_000_000 + " ms",
                                LaneClient.UNREACHABLE_RETRY_AFTER_MILLIS);
                        break;
                    }
                    wait(Math.max(1, left / 1_000_000));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failLocked("interrupted while waiting for answers", LaneClient.RETRY_AFTER_MILLIS);
            }
            return takeUnanswered();
        }
    }

    /** Closes the pipe and hands back the items of the frames not answered, in order (their fate is unknown). */
    @Override
    public List<T> abandon() {
        synchronized (this) {
            if (failure == null) {
                failure = "closed";
            }
            notifyAll(); // a writer waiting for room gives up
        }
        connection.close();
        synchronized (this) {
            return takeUnanswered();
        }
    }

    private List<T> takeUnanswered() {
        List<T> items = new ArrayList<>();
        if (failure != null) {
            for (Frame<T> f : unanswered) {
                items.addAll(f.items());
            }
            unanswered.clear();
            unansweredBytes = 0;
        }
        return items;
    }

    /** No frame waits for its answer (also once failed and {@link #settle}d). */
    @Override
    public synchronized boolean idle() {
        return unanswered.isEmpty();
    }

    /** Failed or closed. */
    synchronized boolean failed() {
        return failure != null;
    }

    /** Failed with frames not answered: the owner should {@link #settle} it. */
    @Override
    public synchronized boolean needsSettling() {
        return failure != null && !unanswered.isEmpty();
    }

    /** Not failed, and written to recently enough that the member has not closed it as idle. */
    @Override
    public synchronized boolean usable() {
        return failure == null && System.currentTimeMillis() - lastWriteMillis < LaneClient.IDLE_MILLIS;
    }

    @Override
    public void close() {
        abandon();
    }

    private void readAnswers() {
        try {
            while (true) {
                Reply reply = frames.readReply(connection.in, connection.link, 0); // an answer to one-way messages carries nothing
                if (reply.status() != LaneFrames.REPLIED) {
                    fail("its lane answered that this node's channel messages had not been handled there within "
                            + LaneClient.ONE_WAYS_CHANNEL_WAIT_MILLIS + " ms", LaneClient.RETRY_AFTER_MILLIS);
                    return;
                }
                answered(reply.exchange());
            }
        } catch (MalformedLaneFrame e) {
            counters.countLaneRefused();
            fail("the connection failed (" + e.getMessage() + ")", LaneClient.RETRY_AFTER_MILLIS);
        } catch (IOException e) {
            fail("the connection failed (" + e + ")", LaneClient.RETRY_AFTER_MILLIS);
        }
    }

    /**
     * The member answered the frame {@code exchange}: it must be the oldest unanswered one, as the member handles them
     * in the order written; an answer to a later one means an earlier frame was not handled there (it is not taken as
     * answered: the pipe fails and hands it back).
     */
    private void answered(long exchange) throws MalformedLaneFrame {
        Frame<T> frame;
        synchronized (this) {
            frame = unanswered.peekFirst();
            if (frame == null || frame.exchange() != exchange) {
                throw new MalformedLaneFrame("an answer to frame " + exchange + " where the oldest unanswered is "
                        + (frame == null ? "none" : frame.exchange()));
            }
            unanswered.pollFirst();
            unansweredBytes -= frame.windowBytes();
            // counted before the waiters are released: one that sees the frame answered sees it counted
            counters.laneExchanged();
            frame.messages().forEach(m -> counters.sent(m.length));
            notifyAll();
        }
    }

    private void fail(String why, long pauseMillis) {
        synchronized (this) {
            failLocked(why, pauseMillis);
        }
    }

    /** Fails the pipe once; if frames were not answered, rests the lane and tells the owner (outside the lock). */
    private void failLocked(String why, long pauseMillis) {
        if (failure != null) {
            return;
        }
        failure = why;
        notifyAll();
        connection.close();
        if (unanswered.isEmpty()) {
            LOG.log(System.Logger.Level.DEBUG, () -> "idle one-way pipe closed: " + why);
            return;
        }
        counters.requestFailed();
        pause.pauseFor(pauseMillis, why);
        onFailure.run(); // only schedules the owner's queue thread, which settles this pipe once this lock is free

    }
}
