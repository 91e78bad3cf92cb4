package io.sessionrep.transport.jgroups;

import org.jgroups.Message;
import org.jgroups.protocols.TP;
import org.jgroups.util.MaxOneThreadPerSender;
import org.jgroups.util.MessageBatch;

/**
 * How the transport hands received messages on: JGroups' default ({@link MaxOneThreadPerSender}: each
 * sender's regular messages one at a time on a pool thread, out-of-band ones each on a pool thread), except
 * for this transport's replies, which are passed up on the thread that read them from the connection.
 *
 * <p>Why: a sync request end waits for its backup's reply. Handing the reply to a pool thread first costs a
 * thread wake-up on the way back (the reading thread wakes a pool thread, which wakes the request thread);
 * passed up here, the reading thread completes the request's future itself and wakes the request thread at
 * once. A reply's work above the transport is short: UNICAST3 records it, {@link PendingRequests} completes
 * the future, and the core's callbacks on it take a session's monitor, queue messages, and at most encode one
 * session's full copy (when a backup asks for one); none waits for the network (the SPI's rule for them).
 * Were one to wait, nothing more would be read from that member meanwhile (over UDP, from any member: one
 * thread receives every member's unicasts). Everything else keeps JGroups' threads: requests and one-way
 * messages may run longer (applying a large update), and must not hold up reading, on which flow-control
 * credits and replies from that member also depend.
 *
 * <p>Only messages whose frame header is visible here qualify: with {@code cluster-key} the whole message is
 * sealed until the protocol above the transport opens it, so sealed replies take the pool as before.
 */
final class RepliesOnReceiverThread extends MaxOneThreadPerSender {

    /** Installs this policy on the channel's transport, in place of the default one it was created with. */
    static void install(TP transport) {
        RepliesOnReceiverThread policy = new RepliesOnReceiverThread();
        transport.msgProcessingPolicy(policy);
        policy.init(transport);
    }

    @Override
    public boolean process(Message message, boolean oob) {
        if (oob && isReply(message)) {
            passUp(message);
            return true;
        }
        return super.process(message, oob);
    }

    @Override
    public boolean process(MessageBatch batch, boolean oob) {
        if (oob && allReplies(batch)) {
            tp.passBatchUp(batch, true, true);
            return true;
        }
        return super.process(batch, oob);
    }

    private void passUp(Message message) {
        try {
            tp.passMessageUp(message, true, message.getDest() == null, true);
        } catch (Throwable t) { // as the pool's handler does: nothing escapes into the connection's reader
            log.error("passing up a reply failed", t);
        }
    }

    private static boolean allReplies(MessageBatch batch) {
        for (Message message : batch) {
            if (!isReply(message)) {
                return false;
            }
        }
        return !batch.isEmpty();
    }

    static boolean isReply(Message message) {
        return message.getHeader(WireFormat.HEADER_ID) instanceof WireFormat.FrameHeader header && header.isReply();
    }
}
