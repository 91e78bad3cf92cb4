package io.sessionrep.perf.floor;

import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/** What a floor node did: sent as a primary, received and holds as a backup. */
final class FloorCounters {

    final LongAdder requestsSent = new LongAdder();
    final LongAdder changesSent = new LongAdder();
    final LongAdder valueBytesSent = new LongAdder();
    /** Changes of a type the floor does not copy (neither byte[] nor Integer). */
    final LongAdder changesSkipped = new LongAdder();
    final LongAdder sendFailures = new LongAdder();
    final LongAdder framesReceived = new LongAdder();
    final LongAdder valueBytesReceived = new LongAdder();
    /** SETs of a session read after its DESTROY (over another request thread's connection), dropped. */
    final LongAdder setsAfterDestroy = new LongAdder();

    /** One JSON object, with what the backups hold now ({@code sessions}, {@code heldValueBytes}). */
    String json(long sessionsHeld, long valueBytesHeld) {
        return String.format(Locale.ROOT, "{\"requestsSent\":%d,\"changesSent\":%d,\"valueBytesSent\":%d,\"changesSkipped\":%d,"
                        + "\"sendFailures\":%d,\"framesReceived\":%d,\"valueBytesReceived\":%d,\"setsAfterDestroy\":%d,\"sessionsHeld\":%d,\"valueBytesHeld\":%d}",
                requestsSent.sum(), changesSent.sum(), valueBytesSent.sum(), changesSkipped.sum(), sendFailures.sum(),
                framesReceived.sum(), valueBytesReceived.sum(), setsAfterDestroy.sum(), sessionsHeld, valueBytesHeld);
    }
}
