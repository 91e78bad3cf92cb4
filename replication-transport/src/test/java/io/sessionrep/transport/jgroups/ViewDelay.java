package io.sessionrep.transport.jgroups;

import org.jgroups.Header;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.MessageBatch;

/**
 * A test protocol just below GMS that delays the coordinator's view messages to this member: it then
 * installs a new view after the others, as a busy member does (docs/operations.md, 5.8).
 */
final class ViewDelay extends Protocol {

    private final long delayMillis;
    private final short gmsId = ClassConfigurator.getProtocolId(GMS.class);

    private ViewDelay(long delayMillis) {
        this.delayMillis = delayMillis;
    }

    /** Inserts a delay of {@code delayMillis} for every view message into the running {@code channel}. */
    static void install(JChannel channel, long delayMillis) throws Exception {
        channel.getProtocolStack().insertProtocol(new ViewDelay(delayMillis), ProtocolStack.Position.BELOW, GMS.class);
    }

    @Override
    public Object up(Message msg) {
        if (isView(msg)) {
            pause();
        }
        return up_prot.up(msg);
    }

    @Override
    public void up(MessageBatch batch) {
        for (Message msg : batch) {
            if (isView(msg)) {
                pause();
                break;
            }
        }
        up_prot.up(batch);
    }

    private boolean isView(Message msg) {
        Header header = msg.getHeader(gmsId);
        return header instanceof GMS.GmsHeader gms && gms.getType() == GMS.GmsHeader.VIEW;
    }

    private void pause() {
        try {
            Thread.sleep(delayMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
