package io.sessionrep.core.wire;

/**
 * The wire protocols a node reads, from {@code oldest} to {@code newest}; it writes the newest one that every
 * member of its view reads. A node states its range in its cluster address; a member whose address states none
 * is a build that knew only protocol 2 ({@link #UNSTATED}).
 *
 * <table>
 *   <caption>wire protocols</caption>
 *   <tr><td>2</td><td>attribute values in {@code ValueFormat.FIELD_ORDER}</td></tr>
 *   <tr><td>3</td><td>attribute values in {@code ValueFormat.NAMED_FIELDS} (or field order, each value says which
 *       by its first byte); the messages are otherwise those of 2</td></tr>
 *   <tr><td>4</td><td>as 3, plus the operator's queries ({@code Message.AdminQuery}, {@code Message.AdminReply}); an
 *       acknowledgement names the session it answers</td></tr>
 * </table>
 */
public record ProtocolRange(int oldest, int newest) {
    /** What this build reads, and writes when every member reads its newest. */
    public static final ProtocolRange SUPPORTED = new ProtocolRange(WireCodec.OLDEST_READ, WireCodec.CURRENT);
    /** A member whose address states no range. */
    public static final ProtocolRange UNSTATED = new ProtocolRange(2, 2);

    public ProtocolRange {
        if (oldest < 1 || newest < oldest || newest > 255) {
            throw new IllegalArgumentException("not a protocol range: " + oldest + "-" + newest);
        }
    }

    /** Whether both read one protocol at least. */
    public boolean overlaps(ProtocolRange other) {
        return oldest <= other.newest && other.oldest <= newest;
    }

    /** {@code 2-3}, or {@code 2} for one protocol. */
    @Override
    public String toString() {
        return oldest == newest ? String.valueOf(oldest) : oldest + "-" + newest;
    }

    /** The range {@link #toString} wrote, or null when {@code text} is not one. */
    public static ProtocolRange parse(String text) {
        if (text == null || text.isEmpty() || text.length() > 7) {
            return null;
        }
        int dash = text.indexOf('-');
        try {
            int oldest = Integer.parseInt(dash < 0 ? text : text.substring(0, dash));
            int newest = dash < 0 ? oldest : Integer.parseInt(text.substring(dash + 1));
            return oldest >= 1 && newest >= oldest && newest <= 255 ? new ProtocolRange(oldest, newest) : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
