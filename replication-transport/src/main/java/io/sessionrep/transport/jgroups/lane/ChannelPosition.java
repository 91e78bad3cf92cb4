package io.sessionrep.transport.jgroups.lane;

/**
 * Where a node's channel messages to one destination stand, as one {@code long}: the stream they belong to (the
 * sender's {@code OutboundQueues} lane to that destination, numbered from 1 each time it is opened: at the first
 * message, and again after the destination left the sender's view and came back) in the high {@value #STREAM_BITS}
 * bits, and how many messages of that stream were sent, counted from 1, in the others. Every channel message carries
 * its own position ({@code WireFormat}); a lane request carries the position of the last channel message sent before
 * it. Positions compare as unsigned numbers: a later stream is after every position of an earlier one.
 *
 * <p>Why a stream and not a count alone: each side resets its count when the other leaves its view, and the two sides
 * of a split do not always see the same views. A receiver that had counted from zero again while its sender went on
 * (or the other way round) waited for messages that would never come, or not for those that would, for good; with
 * positions the receiver takes the sender's count from the next message it handles.
 */
final class ChannelPosition {

    static final int STREAM_BITS = 20;
    private static final int COUNT_BITS = Long.SIZE - STREAM_BITS;
    private static final long COUNT_MASK = (1L << COUNT_BITS) - 1;
    /** The highest stream number; a sender opens a new stream only when a member rejoins its view. */
    static final int MAX_STREAM = (1 << STREAM_BITS) - 1;

    /** No message sent: every request at this position may be handled at once. */
    static final long NONE = 0;

    private ChannelPosition() {
    }

    /** The position after {@code count} messages of {@code stream} (1 to {@link #MAX_STREAM}). */
    static long of(int stream, long count) {
        if (stream < 1 || stream > MAX_STREAM || count < 0 || count > COUNT_MASK) {
            throw new IllegalArgumentException("stream " + stream + ", count " + count);
        }
        return ((long) stream << COUNT_BITS) | count;
    }

    static int stream(long position) {
        return (int) (position >>> COUNT_BITS);
    }

    static long count(long position) {
        return position & COUNT_MASK;
    }

    /** Whether {@code position} is at or past {@code wanted}: a later stream, or the same one as far or further. */
    static boolean reached(long position, long wanted) {
        return count(wanted) == 0 || Long.compareUnsigned(position, wanted) >= 0;
    }

    static String toString(long position) {
        return stream(position) + ":" + count(position);
    }
}
