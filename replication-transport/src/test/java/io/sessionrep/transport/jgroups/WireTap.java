package io.sessionrep.transport.jgroups;

import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.protocols.TP;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * A test protocol inserted directly above a node's transport (below SealedFrames when cluster-key is set):
 * it sees every frame exactly as it goes on the wire, can hold back the frames that match a predicate (an
 * on-path attacker dropping them), and can send crafted frames through the real transport to another
 * node's port, bypassing everything above it.
 */
final class WireTap extends Protocol {
    final List<Message> captured = new CopyOnWriteArrayList<>();
    /** The payload lengths of the messages the transport passed up. */
    final List<Integer> receivedLengths = new CopyOnWriteArrayList<>();
    private volatile Predicate<Message> holdBack = m -> false;

    /** Inserts a tap into the channel of {@code transport}. */
    static WireTap on(JGroupsTransport transport) throws Exception {
        WireTap tap = new WireTap();
        channel(transport).getProtocolStack().insertProtocol(tap, ProtocolStack.Position.ABOVE, TP.class);
        return tap;
    }

    static JChannel channel(JGroupsTransport transport) throws Exception {
        var field = JGroupsTransport.class.getDeclaredField("channel");
        field.setAccessible(true);
        return (JChannel) field.get(transport);
    }

    /** From now on, frames matching {@code which} are recorded but not sent. */
    void holdBack(Predicate<Message> which) {
        this.holdBack = which;
    }

    /** Sends {@code frame} as it is through the transport. */
    void inject(Message frame) {
        down_prot.down(frame);
    }

    @Override
    public Object up(Message msg) {
        receivedLengths.add(msg.getLength());
        return up_prot.up(msg);
    }

    @Override
    public void up(org.jgroups.util.MessageBatch batch) {
        batch.forEach(m -> receivedLengths.add(m.getLength()));
        up_prot.up(batch);
    }

    @Override
    public Object down(Message msg) {
        captured.add(msg.copy(true, true));
        if (holdBack.test(msg)) {
            return null;
        }
        return down_prot.down(msg);
    }
}
